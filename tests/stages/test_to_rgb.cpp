// to_rgb: gray images against cv::cvtColor(COLOR_GRAY2RGB) (and four equal channels), every type,
// both backends; colour images pass unchanged; the import.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include "tests/stages/stage_runner.hpp"

namespace aug::test_to_rgb {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

TEST(ToRgb, GrayBecomesThreeEqualChannels) {
  for (DType t : {DType::U8, DType::U16, DType::F32}) {
    const Image in = testing::random_image({31, 17, 1, t}, 3);
    const auto b = run_both(one_stage(R"({"stage": "to_rgb"})"), in);
    cv::Mat want;
    cv::cvtColor(testing::mat(in), want, cv::COLOR_GRAY2RGB);
    ASSERT_EQ(b.cpu.shape().channels, 3);
    EXPECT_EQ(compare(b.cpu, testing::from_mat(want)).count, 0u);
    EXPECT_EQ(compare(b.emulated, testing::from_mat(want)).count, 0u);
    const auto four = run_both(one_stage(R"({"stage": "to_rgb", "num_output_channels": 4})"), in);
    ASSERT_EQ(four.cpu.shape().channels, 4);
    EXPECT_EQ(compare(four.cpu, four.emulated).count, 0u);
    cv::Mat want4;
    cv::cvtColor(testing::mat(in), want4, cv::COLOR_GRAY2RGBA);
    cv::Mat planes[4];
    cv::split(want4, planes);
    planes[3] = testing::mat(in).clone();  // every channel is the gray value, the fourth too
    cv::merge(planes, 4, want4);
    EXPECT_EQ(compare(four.cpu, testing::from_mat(want4)).count, 0u);
  }
}

TEST(ToRgb, ColourImagesPassUnchanged) {
  for (int c : {3, 4}) {
    const Image in = testing::random_image({20, 10, c, DType::U8}, c);
    const auto b = run_both(one_stage(R"({"stage": "to_rgb"})"), in);
    EXPECT_EQ(compare(b.cpu, in).count, 0u);
    EXPECT_EQ(compare(b.emulated, in).count, 0u);
  }
}

}  // namespace
}  // namespace aug::test_to_rgb
