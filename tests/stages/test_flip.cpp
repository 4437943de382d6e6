// flip: against cv::flip in both directions for every sample type and channel count, and flipping
// twice as the identity (once is not) on every sample type and channel count.
#include <gtest/gtest.h>

#include <string>

#include <opencv2/core.hpp>

#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::run_cpu;

TEST(Flip, EqualsCvFlipForEveryTypeAndChannelCount) {
  for (DType t : testing::geometry::kTypes)
    for (int c : testing::geometry::kChannels) {
      const Image im = testing::random_image({41, 39, c, t}, 1);
      cv::Mat h, v;
      cv::flip(mat(im), h, 1);
      cv::flip(mat(im), v, 0);
      EXPECT_EQ(compare(run_cpu(R"({"stage": "flip", "direction": "horizontal"})", im), from_mat(h)).count, 0u);
      EXPECT_EQ(compare(run_cpu(R"({"stage": "flip", "direction": "vertical"})", im), from_mat(v)).count, 0u);
    }
}

class FlipIdentities : public testing::geometry::TypesAndChannels {};

TEST_P(FlipIdentities, FlipTwiceIsTheIdentity) {
  const Image im = image();
  for (const char* d : {"horizontal", "vertical"}) {
    const std::string stage = std::string(R"({"stage": "flip", "direction": ")") + d + "\"}";
    EXPECT_EQ(compare(run_cpu(stage, run_cpu(stage, im)), im).count, 0u) << d;
    EXPECT_GT(compare(run_cpu(stage, im), im).count, 0u) << d;  // and once is not
  }
}

INSTANTIATE_TEST_SUITE_P(TypesAndChannels, FlipIdentities, testing::geometry::types_and_channels(),
                         testing::geometry::type_and_channels_name);

}  // namespace
}  // namespace aug
