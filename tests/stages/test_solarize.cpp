// solarize: torchvision's RandomSolarize written out here (values at or above the threshold, a
// fraction of the type's range, become max - v; alpha untouched) against the CPU backend on every
// 8-bit value and on floats, and the distribution of the drawn threshold.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/stages/color_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_solarize {
namespace {

using testing::run_cpu;
using testing::color::at;
using testing::color::ramp_u8;

TEST(Solarize, ThresholdIsAFractionOfTheRange) {
  const Image ramp = ramp_u8();
  // torchvision's RandomSolarize(threshold=128) on uint8.
  const Image out =
      run_cpu(R"({"stage": "solarize", "p": 1, "threshold": )" + nlohmann::json(128.0 / 255.0).dump() + "}", ramp);
  for (int v = 0; v < 256; ++v) ASSERT_EQ(out.row(0)[v], v >= 128 ? 255 - v : v) << v;
  const Image all = run_cpu(R"({"stage": "solarize", "p": 1, "threshold": 0})", ramp);
  for (int v = 0; v < 256; ++v) ASSERT_EQ(all.row(0)[v], 255 - v);
  const Image none = run_cpu(R"({"stage": "solarize", "p": 1, "threshold": 1.01})", ramp);
  EXPECT_EQ(testing::compare(none, ramp).count, 0u);
  const Image top = run_cpu(R"({"stage": "solarize", "p": 1, "threshold": 1})", ramp);
  for (int v = 0; v < 256; ++v) ASSERT_EQ(top.row(0)[v], v == 255 ? 0 : v);

  const Image f32 = testing::random_image({29, 7, 4, DType::F32}, 11);
  const Image of = run_cpu(R"({"stage": "solarize", "p": 1, "threshold": 0.3})", f32);
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 29; ++x)
      for (int c = 0; c < 4; ++c) {
        const float v = at<float>(f32, x, y, c);
        ASSERT_EQ(at<float>(of, x, y, c), c < 3 && v >= 0.3f ? 1.f - v : v);
      }
}

TEST(Solarize, DrawsThresholdsUniformlyInTheRange) {
  const Pipeline p = testing::one_stage(R"({"stage": "solarize", "p": 1, "threshold": [0.2, 0.9]})");
  double lo = 1, hi = 0, sum = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    const double t =
        p.plan(3, "img" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8}).steps.at(0).op->params()["threshold"];
    lo = std::min(lo, t), hi = std::max(hi, t), sum += t;
  }
  EXPECT_GE(lo, 0.2);
  EXPECT_LT(hi, 0.9);
  EXPECT_LT(lo, 0.21);
  EXPECT_GT(hi, 0.89);
  EXPECT_NEAR(sum / n, 0.55, 0.015);
}

}  // namespace
}  // namespace aug::test_solarize
