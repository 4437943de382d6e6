// hue_saturation_value: against cv::cvtColor RGB2HSV, Albumentations' tables and cv::cvtColor HSV2RGB
// on photographs, random images of many widths and every RGB colour; the draws; gray pixels; the
// types and channel counts it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "kernels/color/hue_saturation_value.hpp"
#include "lib/core/error.hpp"
#include "lib/stages/engines/hsv8_tables.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_hue_saturation_value {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

// OpenCV's 8-bit HSV2RGB depends on the code it dispatches to: the stage reproduces its AVX2 code
// (blocks of 32 pixels, fused multiply-adds). Elsewhere it may differ by a level.
double opencv_tolerance() {
  return cv::checkHardwareSupport(CV_CPU_AVX2) && cv::checkHardwareSupport(CV_CPU_FMA3) ? 0 : 1;
}

// Albumentations' steps with OpenCV and numpy's arithmetic: RGB2HSV, the three tables, HSV2RGB.
Image albumentations(const Image& in, double dh, double ds, double dv) {
  cv::Mat rgb = testing::mat(in), hsv, back;
  if (in.shape().channels == 4) cv::cvtColor(rgb, rgb, cv::COLOR_RGBA2RGB);
  cv::cvtColor(rgb, hsv, cv::COLOR_RGB2HSV);
  cv::Mat lut(1, 256, CV_8UC3);
  for (int i = 0; i < 256; ++i) {
    double h = std::fmod(i + dh, 180.0);
    if (h != 0 && h < 0) h += 180;  // numpy's mod takes the divisor's sign
    lut.at<cv::Vec3b>(0, i) = {static_cast<std::uint8_t>(h),
                               static_cast<std::uint8_t>(i == 0 ? 0.0 : std::min(255.0, std::max(0.0, i + ds))),
                               static_cast<std::uint8_t>(std::min(255.0, std::max(0.0, i + dv)))};
  }
  cv::LUT(hsv, lut, hsv);
  cv::cvtColor(hsv, back, cv::COLOR_HSV2RGB);
  if (in.shape().channels == 4) {
    std::vector<cv::Mat> planes;
    cv::split(back, planes);
    cv::Mat alpha;
    cv::extractChannel(testing::mat(in), alpha, 3);
    planes.push_back(alpha);
    cv::merge(planes, back);
  }
  return testing::from_mat(back);
}

struct Shifts {
  double h, s, v;
};
Shifts drawn(const Plan& plan) {
  const auto p = plan.steps.at(0).op->params();
  return {p.at("hue_shift").get<double>(), p.at("sat_shift").get<double>(), p.at("val_shift").get<double>()};
}

void expect_albumentations(const std::string& config, const Image& in, const std::string& what) {
  const auto b = run_both(one_stage(config), in);
  const Shifts d = drawn(b.plan);
  const Image want = albumentations(in, d.h, d.s, d.v);
  SCOPED_TRACE(what + " " + config);
  EXPECT_EQ(compare(b.cpu, want, opencv_tolerance()).count, 0u) << compare(b.cpu, want).str();
  EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
  if (opencv_tolerance() == 0) {
    EXPECT_EQ(compare(b.emulated, want).count, 0u);
  }
}

TEST(HueSaturationValue, PhotographsEqualOpenCVAndAlbumentationsTables) {
  for (const char* name : {"astronaut.jpg", "chelsea.png", "coffee.png", "coffee_rgba.png", "rocket.jpg"})
    for (const char* config :
         {R"({"stage": "hue_saturation_value", "p": 1})",
          R"({"stage": "hue_saturation_value", "p": 1, "hue_shift": [-90, 90], "sat_shift": 80, "val_shift": 60})",
          R"({"stage": "hue_saturation_value", "p": 1, "hue_shift": 0, "sat_shift": 0, "val_shift": 0})"})
      expect_albumentations(config, testing::sample(name), name);
}

TEST(HueSaturationValue, RandomImagesOfEveryWidthEqualOpenCV) {
  // Widths across OpenCV's 32-pixel blocks: rows made only of the one-by-one tail, of blocks, and both.
  for (int w : {1, 2, 7, 31, 32, 33, 63, 64, 65, 95, 100, 129})
    for (int c : {3, 4})
      for (std::uint32_t seed : {1u, 2u}) {
        Image in({w, 5, c, DType::U8});
        std::uint32_t x = seed * 2654435761u + static_cast<std::uint32_t>(w);
        for (int y = 0; y < 5; ++y)
          for (int i = 0; i < w * c; ++i)
            in.row(y)[i] = static_cast<std::uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
        expect_albumentations(
            R"({"stage": "hue_saturation_value", "p": 1, "hue_shift": 60, "sat_shift": 100, "val_shift": 50})", in,
            "width " + std::to_string(w) + " c=" + std::to_string(c) + " seed " + std::to_string(seed));
      }
}

TEST(HueSaturationValue, EveryColourEqualsOpenCVsRoundTrip) {
  // All 2^24 colours in rows of 4096 (blocks) and, for a slice, rows of 7 (one by one).
  for (const auto& [w, h] : {std::pair{4096, 4096}, std::pair{7, 4096}}) {
    Image in({w, h, 3, DType::U8});
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const std::uint32_t i =
            static_cast<std::uint32_t>(y) * 4096u + static_cast<std::uint32_t>(x) * (w == 7 ? 577u : 1u);
        std::uint8_t* p = in.row(y) + 3 * x;
        p[0] = static_cast<std::uint8_t>(i >> 16), p[1] = static_cast<std::uint8_t>(i >> 8),
        p[2] = static_cast<std::uint8_t>(i);
      }
    const Image out = testing::run_cpu(
        R"({"stage": "hue_saturation_value", "p": 1, "hue_shift": [3, 3], "sat_shift": [-5, -5], "val_shift": [9, 9]})",
        in);
    const Image want = albumentations(in, 3, -5, 9);
    EXPECT_EQ(compare(out, want, opencv_tolerance()).count, 0u) << w << ": " << compare(out, want).str();
  }
}

TEST(HueSaturationValue, GrayPixelsStayGrayAndValueSaturates) {
  Image in({3, 1, 3, DType::U8});
  for (int x = 0; x < 3; ++x)
    for (int c = 0; c < 3; ++c) in.row(0)[3 * x + c] = static_cast<std::uint8_t>(x == 0 ? 0 : x == 1 ? 128 : 250);
  const Image out = testing::run_cpu(
      R"({"stage": "hue_saturation_value", "p": 1, "hue_shift": [50, 50], "sat_shift": [100, 100], "val_shift": [20, 20]})",
      in);
  for (int x = 0; x < 3; ++x)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(out.row(0)[3 * x + c], x == 0 ? 20 : x == 1 ? 148 : 255) << x;
}

TEST(HueSaturationValue, ShiftsFillTheirRanges) {
  const Pipeline pipe = one_stage(R"({"stage": "hue_saturation_value", "p": 1, "val_shift": [5, 10]})");
  double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {-1e9, -1e9, -1e9};
  for (int i = 0; i < 2000; ++i) {
    const Shifts d = drawn(pipe.plan(3, "img" + std::to_string(i), 0, {4, 4, 3, DType::U8}));
    const double v[3] = {d.h, d.s, d.v};
    for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], v[k]), hi[k] = std::max(hi[k], v[k]);
  }
  const double want_lo[3] = {-20, -30, 5}, want_hi[3] = {20, 30, 10};
  for (int k = 0; k < 3; ++k) {
    EXPECT_GE(lo[k], want_lo[k]);
    EXPECT_LE(hi[k], want_hi[k]);
    EXPECT_LT(lo[k], want_lo[k] + 0.1) << k;
    EXPECT_GT(hi[k], want_hi[k] - 0.1) << k;
  }
}

// The host driver with any tables: Albumentations' are shifts, which it computes instead of reading
// (kernels/color/hue_saturation_value_cpu.cpp); others are read. Both equal the kernels' pixel
// function, pixel by pixel, on every width around the blocks, RGB and RGBA.
TEST(HueSaturationValue, HostDriverEqualsThePixelFunctionForShiftsAndOtherTables) {
  std::vector<std::uint8_t> shifted(3 * 256), scrambled(3 * 256);
  for (int i = 0; i < 256; ++i) {
    shifted[i] = static_cast<std::uint8_t>((i + 170) % 180);
    shifted[256 + i] = static_cast<std::uint8_t>(i == 0 ? 0 : std::clamp(i - 40, 0, 255));
    shifted[512 + i] = static_cast<std::uint8_t>(std::clamp(i + 25, 0, 255));
    scrambled[i] = static_cast<std::uint8_t>((i * 7 + 3) % 180);  // hues stay below 180, as the kernels need
    scrambled[256 + i] = static_cast<std::uint8_t>(255 - i);
    scrambled[512 + i] = static_cast<std::uint8_t>((i * i) % 256);
  }
  for (const auto* lut : {&shifted, &scrambled})
    for (int channels : {3, 4})
      for (int width : {7, 8, 31, 32, 40, 67}) {
        const Image in = testing::random_image(Shape{width, 5, channels, DType::U8}, 7u + width);
        Image got(in.shape()), want(in.shape());
        const k::HsvArgs a{hsv8_division_table(false).data(), hsv8_division_table(true).data(), lut->data()};
        k::cpu::hue_saturation_value(in.view<std::uint8_t>(), got.view<std::uint8_t>(), a);
        const int blocks = width / k::kHsvBlock * k::kHsvBlock;
        for (int y = 0; y < 5; ++y)
          for (int x = 0; x < width; ++x)
            k::hsv_pixel(in.view<std::uint8_t>().row(y) + x * channels, want.view<std::uint8_t>().row(y) + x * channels,
                         channels, a, x < blocks);
        EXPECT_EQ(compare(got, want).count, 0u)
            << (lut == &shifted ? "shift" : "other") << " tables, width " << width << ", " << channels << " channels";
      }
}

TEST(HueSaturationValue, RefusesWhatIsNotEightBitColour) {
  const Pipeline pipe = one_stage(R"({"stage": "hue_saturation_value", "p": 1})");
  for (const Shape& s : {Shape{4, 4, 1, DType::U8}, Shape{4, 4, 3, DType::U16}, Shape{4, 4, 3, DType::F32}}) {
    try {
      testing::run_both(pipe, Image(s));
      ADD_FAILURE() << "accepted " << s.channels << " channels of " << dtype_name(s.dtype);
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("hue_saturation_value"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(one_stage(R"({"stage": "hue_saturation_value", "sat_shift": 300})"), PipelineError);
}

}  // namespace
}  // namespace aug::test_hue_saturation_value
