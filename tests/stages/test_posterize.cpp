// posterize: torchvision's posterize written out here (the top `bits` bits of every 8-bit and 16-bit
// value kept, alpha untouched; floats floored to 2^bits levels) against the CPU backend, and the
// distribution of the drawn bit count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "tests/stages/color_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_posterize {
namespace {

using testing::run_cpu;
using testing::color::at;
using testing::color::ramp_u8;

TEST(Posterize, KeepsTheTopBitsOfEveryValue) {
  const Image ramp = ramp_u8();
  for (int bits = 1; bits <= 8; ++bits) {
    const Image out = run_cpu(R"({"stage": "posterize", "p": 1, "bits": )" + std::to_string(bits) + "}", ramp);
    const int drop = 8 - bits;
    for (int v = 0; v < 256; ++v) ASSERT_EQ(out.row(0)[v], (v >> drop) << drop) << bits << " bits, v = " << v;
  }
  const Image u16 = testing::random_image({37, 5, 4, DType::U16}, 9);
  const Image o16 = run_cpu(R"({"stage": "posterize", "p": 1, "bits": 3})", u16);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 37; ++x)
      for (int c = 0; c < 4; ++c) {
        const int v = at<std::uint16_t>(u16, x, y, c);
        ASSERT_EQ(at<std::uint16_t>(o16, x, y, c), c < 3 ? (v & 0xE000) : v);
      }
  const Image f32 = testing::random_image({37, 5, 3, DType::F32}, 10);
  const Image of = run_cpu(R"({"stage": "posterize", "p": 1, "bits": 2})", f32);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 37 * 3; ++x) {
      const float v = reinterpret_cast<const float*>(f32.row(y))[x];
      ASSERT_EQ(reinterpret_cast<const float*>(of.row(y))[x], std::clamp(std::floor(v * 4.f), 0.f, 3.f) / 4.f);
    }
}

TEST(Posterize, DrawsEveryBitCountOfTheRange) {
  const Pipeline p = testing::one_stage(R"({"stage": "posterize", "p": 1, "bits": [2, 7]})");
  std::map<int, int> seen;
  for (int i = 0; i < 1200; ++i) {
    const Plan plan = p.plan(3, "img" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8});
    ++seen[plan.steps.at(0).op->params()["bits"].get<int>()];
  }
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_EQ(seen.begin()->first, 2);
  EXPECT_EQ(seen.rbegin()->first, 7);
  for (const auto& [bits, n] : seen) EXPECT_NEAR(n, 200, 60) << bits;
}

}  // namespace
}  // namespace aug::test_posterize
