// channel_gain: hand-computed values (the gains, the clamp, the gray image's luma weights), alpha left
// as it is, and the float path clamped to [0, 1].
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "tests/stages/stage_runner.hpp"

namespace aug::test_channel_gain {
namespace {

using testing::run_cpu;

TEST(ChannelGain, HandComputedValues) {
  Image im({3, 1, 3, DType::U8});
  const std::uint8_t px[] = {100, 100, 100, 250, 10, 0, 1, 2, 255};
  std::copy(px, px + 9, im.data());
  const Image out = run_cpu(R"({"stage": "channel_gain", "r": 1.1, "g": 0.5, "b": 2})", im);
  // 100*1.1 = 110; 100*0.5 = 50; 100*2 = 200; 250*1.1 = 275 -> 255; 10*0.5 = 5; 1*1.1 = 1.1 -> 1;
  // 2*0.5 = 1; 255*2 -> 255
  const std::uint8_t expected[] = {110, 50, 200, 255, 5, 0, 1, 1, 255};
  EXPECT_TRUE(std::equal(expected, expected + 9, out.data()));

  Image half({1, 1, 1, DType::U8});  // gray: 0.299*2 + 0.587*0 + 0.114*0 = 0.598; 100 * 0.598 = 59.8 -> 60
  half.data()[0] = 100;
  EXPECT_EQ(run_cpu(R"({"stage": "channel_gain", "r": 2, "g": 0, "b": 0})", half).data()[0], 60);
}

TEST(ChannelGain, AlphaUntouchedAndFloatClamped) {
  Image rgba({1, 1, 4, DType::U16});
  auto* p = reinterpret_cast<std::uint16_t*>(rgba.data());
  p[0] = 40000, p[1] = 1000, p[2] = 3, p[3] = 12345;
  const Image out = run_cpu(R"({"stage": "channel_gain", "r": 2, "g": 1.5, "b": 0.5})", rgba);
  const auto* q = reinterpret_cast<const std::uint16_t*>(out.data());
  EXPECT_EQ(q[0], 65535);
  EXPECT_EQ(q[1], 1500);
  EXPECT_EQ(q[2], 2);  // 1.5 rounds half up in the fixed-point formula: (3*32768 + 32768) >> 16 = 2
  EXPECT_EQ(q[3], 12345);

  Image f({1, 1, 4, DType::F32});
  auto* fp = reinterpret_cast<float*>(f.data());
  fp[0] = 0.8f, fp[1] = 0.2f, fp[2] = 0.5f, fp[3] = 1.7f;  // alpha out of range stays as it is
  const Image fo = run_cpu(R"({"stage": "channel_gain", "r": 2, "g": 1.5, "b": 0.5})", f);
  const auto* fq = reinterpret_cast<const float*>(fo.data());
  EXPECT_EQ(fq[0], 1.0f);
  EXPECT_FLOAT_EQ(fq[1], 0.3f);
  EXPECT_EQ(fq[2], 0.25f);
  EXPECT_EQ(fq[3], 1.7f);
}

}  // namespace
}  // namespace aug::test_channel_gain
