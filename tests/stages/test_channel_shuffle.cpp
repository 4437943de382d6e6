// channel_shuffle: Albumentations' ChannelShuffle (a uniform permutation of the colour channels,
// recorded in the plan): the distribution of the drawn orders, the output moved by the recorded
// order with alpha kept on both backends, and the CPU path against the kernels run on the host for
// every drawn order.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_channel_shuffle {
namespace {

using testing::compare;
using testing::expect_parity;
using testing::one_stage;
using testing::random_image;
using testing::run_both;
using testing::noise::at;

TEST(ChannelShuffle, PermutesColourChannelsUniformly) {
  const Pipeline p = one_stage(R"({"stage": "channel_shuffle", "p": 1})");
  std::map<std::vector<int>, int> seen;
  const int n = 6000;
  for (int i = 0; i < n; ++i) {
    const auto order =
        p.plan(11, std::to_string(i), 0, {4, 4, 4, DType::U8}).record[0]["params"]["order"].get<std::vector<int>>();
    ASSERT_EQ(order.size(), 3u);
    ASSERT_EQ(std::set<int>(order.begin(), order.end()).size(), 3u);
    ++seen[order];
  }
  ASSERT_EQ(seen.size(), 6u);
  for (const auto& [order, count] : seen) EXPECT_NEAR(count / static_cast<double>(n), 1 / 6.0, 0.025);
}

TEST(ChannelShuffle, MovesChannelsByTheRecordedOrderAndKeepsAlpha) {
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int C : {1, 3, 4})
      for (const char* key : {"a.png", "b.png", "c.png", "d.png"}) {
        const Image im = random_image({19, 13, C, t}, 2);
        const testing::Both b = run_both(one_stage(R"({"stage": "channel_shuffle", "p": 1})"), im, key);
        ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
        const auto order = b.plan.record[0]["params"]["order"].get<std::vector<int>>();
        ASSERT_EQ(order.size(), static_cast<std::size_t>(C == 4 ? 3 : C));
        for (int y = 0; y < 13; ++y)
          for (int x = 0; x < 19; ++x)
            for (int c = 0; c < C; ++c)
              ASSERT_EQ(at(b.cpu, x, y, c), at(im, x, y, c < static_cast<int>(order.size()) ? order[c] : c));
      }
}

TEST(ChannelShuffle, CpuDriverEqualsTheKernelsForEveryDrawnOrder) {
  expect_parity(R"({"stage": "channel_shuffle", "p": 1})", {DType::U8, DType::U16, DType::F32}, {1, 3, 4}, 12);
}

}  // namespace
}  // namespace aug::test_channel_shuffle
