// The CPU paths that call OpenCV or a host driver of their own (resize's area halving, bilinear,
// nearest and bicubic/area sums, gaussian_blur's 8-bit path, the window of crop and pad, invert, grayscale,
// channel_shuffle, the constant fills of random_erasing and coarse_dropout) against the kernels run
// on the host, on photographs and on random images of awkward sizes: 0 differing values.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/stages/stage_cases.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using testing::expect_parity;

const auto kAll = {DType::U8, DType::U16, DType::F32};
const auto kChannels = {1, 3, 4};

TEST(CpuDrivers, ResizeAreaHalvingEqualsTheKernels) {
  expect_parity(R"({"stage": "resize", "scale": 0.5, "interpolation": "area"})", kAll, kChannels);
  // An exact halving of a window inside the image (random_resized_crop's path).
  expect_parity(R"({"stage": "random_resized_crop", "size": [20, 12], "scale": [0.1, 0.2], "interpolation": "area"})",
                kAll, kChannels, 4);
}

// Shrinking runs the vertical pass first, enlarging the horizontal one (each source row once); 8-bit
// bicubic sums in int32, 16-bit in int64.
TEST(CpuDrivers, ResizeBicubicAndAreaEqualTheKernels) {
  for (const char* interp : {"bicubic", "area"})
    for (const char* size : {R"("scale": 0.75)", R"("scale": 0.37)", R"("scale": 1.6)", R"("size": [31, 7])",
                             R"("size": [3, 40])", R"("scale": 0.25)"})
      expect_parity(std::string(R"({"stage": "resize", )") + size + R"(, "interpolation": ")" + interp + "\"}", kAll,
                    kChannels);
}

TEST(CpuDrivers, ResizeBilinearEqualsTheKernels) {
  for (const char* size : {R"("scale": 0.75)", R"("scale": 0.5)", R"("scale": 2.3)", R"("size": [31, 7])",
                           R"("short_side": 20)"})
    expect_parity(std::string(R"({"stage": "resize", )") + size + R"(, "interpolation": "bilinear"})", kAll,
                  kChannels);
  expect_parity(R"({"stage": "random_resized_crop", "size": [24, 16]})", kAll, kChannels, 4);
}

TEST(CpuDrivers, ResizeNearestEqualsTheKernels) {
  for (const char* size : {R"("scale": 0.5)", R"("scale": 1.5)", R"("scale": 0.37)", R"("size": [31, 7])"})
    expect_parity(std::string(R"({"stage": "resize", )") + size + R"(, "interpolation": "nearest"})", kAll, kChannels);
  expect_parity(R"({"stage": "random_resized_crop", "size": [24, 16], "interpolation": "nearest"})", kAll, kChannels, 4);
}

TEST(CpuDrivers, GaussianBlurEightBitEqualsTheKernelsForEveryBorder) {
  for (const char* border : {"reflect101", "replicate", "reflect", "constant"})
    for (const char* blur : {R"("sigma": 1.0, "kernel_size": 7)", R"("sigma": 0.6)", R"("sigma": 3.0)",
                             R"("sigma": 2.0, "kernel_size": 3)", R"("sigma": 9.0)"})
      expect_parity(std::string(R"({"stage": "gaussian_blur", )") + blur + R"(, "border": ")" + border + "\"}",
                    {DType::U8}, kChannels);
}

TEST(CpuDrivers, CropAndPadWindowsEqualTheKernels) {
  for (const char* border : {"constant", "replicate", "reflect", "reflect101", "wrap"}) {
    const std::string b = std::string(R"(, "border": ")") + border + "\"";
    expect_parity(R"({"stage": "crop", "size": [30, 20], "padding": [5, 3, 2, 7], "position": "random")" + b + "}",
                  kAll, kChannels, 3);
    expect_parity(R"({"stage": "crop", "size": [70, 60], "padding": 4, "pad_if_needed": true, "position": "random")" +
                      b + "}",
                  kAll, kChannels, 3);
    expect_parity(R"({"stage": "crop", "size": [9, 4], "pad_if_needed": true)" + b + "}", kAll, kChannels, 2);
  }
}

TEST(CpuDrivers, InvertEqualsTheKernels) { expect_parity(R"({"stage": "invert"})", kAll, kChannels); }

TEST(CpuDrivers, GrayscaleEqualsTheKernels) { expect_parity(R"({"stage": "grayscale"})", kAll, {3, 4}); }

TEST(CpuDrivers, ChannelShuffleEqualsTheKernelsForEveryDrawnOrder) {
  expect_parity(R"({"stage": "channel_shuffle", "p": 1})", kAll, kChannels, 12);
}

TEST(CpuDrivers, ConstantFillsEqualTheKernels) {
  expect_parity(R"({"stage": "random_erasing", "p": 1})", kAll, kChannels, 4);
  expect_parity(R"({"stage": "random_erasing", "p": 1, "value": [0.2, 0.5, 0.9]})", kAll, kChannels, 4);
  expect_parity(R"({"stage": "coarse_dropout", "p": 1, "num_holes": [8, 16], "hole_height": [2, 9], "hole_width": [2, 9]})",
                kAll, kChannels, 4);
}

}  // namespace
}  // namespace aug
