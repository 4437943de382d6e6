// gamma: torchvision's adjust_gamma written out here value by value (binary32, gain clamped; 8 bits
// scaled by 255.999 and truncated, 16 bits rounded to nearest) against the CPU backend on every 8-bit
// value and on random 16-bit images, the identity at the defaults, and known values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/stages/color_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_gamma {
namespace {

using testing::run_cpu;
using testing::color::put;
using testing::color::ramp_u8;

// torchvision's adjust_gamma of one integer value, in float32.
std::int64_t gamma_value(std::int64_t v, double max, float gamma, float gain) {
  const float x = static_cast<float>(v) * static_cast<float>(1.0 / max);
  float y = gamma == 2.f ? x * x : (gamma == 0.5f ? std::sqrt(x) : std::pow(x, gamma));
  if (gain != 1.f) y = std::clamp(y * gain, 0.f, 1.f);
  if (max == 255.0) return static_cast<std::int64_t>(y * 255.999f);
  return std::llrint(static_cast<double>(y) * max);  // 16 bits: to nearest
}

TEST(Gamma, IsAdjustGammaOnEveryValue) {
  const Image ramp = ramp_u8();
  for (const auto& [gamma, gain] :
       std::vector<std::pair<double, double>>{{0.5, 1}, {2.2, 1}, {0.8, 1.3}, {2, 0.7}, {1, 1}}) {
    const Image out = run_cpu(R"({"stage": "gamma", "gamma": )" + std::to_string(gamma) + R"(, "gain": )" +
                                  std::to_string(gain) + "}",
                              ramp);
    for (int v = 0; v < 256; ++v)
      ASSERT_EQ(out.row(0)[v], gamma_value(v, 255, static_cast<float>(gamma), static_cast<float>(gain)))
          << gamma << " " << gain << " v = " << v;
  }
  EXPECT_EQ(testing::compare(run_cpu(R"({"stage": "gamma"})", ramp), ramp).count, 0u);
  Image ramp16({65536, 1, 1, DType::U16});
  for (int v = 0; v < 65536; ++v) put<std::uint16_t>(ramp16, v, 0, 0, static_cast<std::uint16_t>(v));
  EXPECT_EQ(testing::compare(run_cpu(R"({"stage": "gamma"})", ramp16), ramp16).count, 0u);
  const Image u16 = testing::random_image({41, 9, 3, DType::U16}, 12);
  const Image o16 = run_cpu(R"({"stage": "gamma", "gamma": 0.45})", u16);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 41 * 3; ++x)
      ASSERT_EQ(reinterpret_cast<const std::uint16_t*>(o16.row(y))[x],
                gamma_value(reinterpret_cast<const std::uint16_t*>(u16.row(y))[x], 65535, 0.45f, 1.f));
}

TEST(Gamma, KnownValues) {
  // (128 / 255)^0.5 * 255.999 = 181.37; (128 / 255)^2 * 255.999 = 64.50; 255 stays 255.
  const Image ramp = ramp_u8();
  EXPECT_EQ(run_cpu(R"({"stage": "gamma", "gamma": 0.5})", ramp).row(0)[128], 181);
  EXPECT_EQ(run_cpu(R"({"stage": "gamma", "gamma": 2})", ramp).row(0)[128], 64);
  EXPECT_EQ(run_cpu(R"({"stage": "gamma", "gamma": 2})", ramp).row(0)[255], 255);
  EXPECT_EQ(run_cpu(R"({"stage": "gamma", "gamma": 1, "gain": 2})", ramp).row(0)[200], 255);
}

// Albumentations' RandomGamma table: NumPy's arange(0, 256 / 255, 1 / 255) holds i * (1 / 255), which
// for 24 values lies just below i / 255, so even gamma 1 moves them down by one (33 -> 32, ...).
TEST(Gamma, AlbumentationsTableTruncatesTheArangeValues) {
  const Image ramp = ramp_u8();
  const Image one = run_cpu(R"({"stage": "gamma", "gamma": 1, "method": "albumentations"})", ramp);
  int moved = 0;
  for (int v = 0; v < 256; ++v) {
    const int want = static_cast<int>(v * (1.0 / 255) * 255);
    ASSERT_EQ(one.row(0)[v], want) << v;
    moved += want != v;
  }
  EXPECT_EQ(moved, 24);
  EXPECT_EQ(one.row(0)[33], 32);
  EXPECT_EQ(one.row(0)[255], 255);
  for (double g : {0.8, 1.13, 1.2}) {
    const auto b = testing::run_both(
        testing::one_stage(R"({"stage": "gamma", "method": "albumentations", "gamma": )" + std::to_string(g) + "}"),
        ramp);
    ASSERT_EQ(testing::compare(b.cpu, b.emulated).count, 0u);
    const double drawn = b.plan.record[0]["params"]["gamma"].get<double>();
    for (int v = 0; v < 256; ++v)
      ASSERT_EQ(b.cpu.row(0)[v], static_cast<int>(std::pow(v * (1.0 / 255), drawn) * 255)) << g << " " << v;
  }
}

}  // namespace
}  // namespace aug::test_gamma
