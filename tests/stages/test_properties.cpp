// Properties stages must keep, on every sample type and channel count, beyond the declared
// identity configurations the catalog suite (test_catalog.cpp) checks for every stage.
#include <gtest/gtest.h>

#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using testing::compare;
using testing::random_image;
using testing::run_cpu;

class Identities : public ::testing::TestWithParam<std::tuple<DType, int>> {
 protected:
  Image image(int w = 41, int h = 39) const {
    return random_image({w, h, std::get<1>(GetParam()), std::get<0>(GetParam())}, 5);
  }
};

TEST_P(Identities, FlipTwiceIsTheIdentity) {
  const Image im = image();
  for (const char* d : {"horizontal", "vertical"}) {
    const std::string stage = std::string(R"({"stage": "flip", "direction": ")") + d + "\"}";
    EXPECT_EQ(compare(run_cpu(stage, run_cpu(stage, im)), im).count, 0u) << d;
    EXPECT_GT(compare(run_cpu(stage, im), im).count, 0u) << d;  // and once is not
  }
}

TEST_P(Identities, ResizeTablesAreExactAtScaleOne) {
  // Not the copy shortcut: a crop of the full image resized to its own size goes through the tables.
  const Image im = image(30, 20);
  EXPECT_EQ(compare(run_cpu(R"({"stage": "random_resized_crop", "size": [30, 20], "scale": [1, 1], "ratio": [1.5, 1.5]})", im), im).count, 0u);
}

TEST_P(Identities, CropOfTheWholeImageIsTheIdentity) {
  const Image im = image();
  EXPECT_EQ(compare(run_cpu(R"({"stage": "crop", "size": [41, 39], "position": "random"})", im), im).count, 0u);
}

TEST_P(Identities, BlurKeepsAConstantImageConstant) {
  Image im = image();
  with_sample_type(im.dtype(), [&](auto tag) {
    using T = decltype(tag);
    auto* p = reinterpret_cast<T*>(im.data());
    for (std::size_t i = 0; i < im.shape().values(); ++i) p[i] = std::is_same_v<T, float> ? T(0.7f) : T(200);
  });
  for (const char* b : {"reflect101", "replicate"})
    EXPECT_EQ(compare(run_cpu(std::string(R"({"stage": "gaussian_blur", "sigma": 2.3, "border": ")") + b + "\"}", im), im, im.dtype() == DType::F32 ? 1e-6 : 0).count, 0u) << b;
}

INSTANTIATE_TEST_SUITE_P(TypesAndChannels, Identities,
                         ::testing::Combine(::testing::Values(DType::U8, DType::U16, DType::F32),
                                            ::testing::Values(1, 3, 4)),
                         [](const auto& info) {
                           return std::string(dtype_name(std::get<0>(info.param))) + "_c" +
                                  std::to_string(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace aug
