// random_resized_crop: the windows follow scale and ratio and the output is the window resized by
// cv::resize (INTER_LINEAR_EXACT), the fallback window, the CPU path (OpenCV or the resize driver)
// against the kernels run on the host, and the resize tables exact at scale one on every sample type
// and channel count.
#include <gtest/gtest.h>

#include <string>

#include <opencv2/imgproc.hpp>

#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_random_resized_crop {
namespace {

using testing::compare;
using testing::expect_parity;
using testing::from_mat;
using testing::mat;
using testing::geometry::kChannels;
using testing::geometry::kTypes;

TEST(RandomResizedCrop, WindowsFollowScaleAndRatioAndOutputIsTheResizedWindow) {
  const Image im = testing::random_image({300, 200, 3, DType::U8}, 30);
  const Pipeline p = testing::one_stage(R"({"stage": "random_resized_crop", "size": [64, 48], "scale": [0.2, 0.6], "ratio": [0.5, 2]})");
  for (int i = 0; i < 40; ++i) {
    const testing::Both b = testing::run_both(p, im, "k" + std::to_string(i));
    const auto crop = b.plan.record[0]["params"]["crop"];
    const int x = crop[0], y = crop[1], w = crop[2], h = crop[3];
    ASSERT_GE(x, 0);
    ASSERT_GE(y, 0);
    ASSERT_LE(x + w, 300);
    ASSERT_LE(y + h, 200);
    const double area = static_cast<double>(w) * h / (300.0 * 200.0), ratio = static_cast<double>(w) / h;
    EXPECT_GE(area, 0.2 - 0.01);  // rounding of w and h moves the area a little
    EXPECT_LE(area, 0.6 + 0.01);
    EXPECT_GE(ratio, 0.5 - 0.02);
    EXPECT_LE(ratio, 2.0 + 0.02);
    cv::Mat theirs;
    cv::resize(mat(im)(cv::Rect(x, y, w, h)), theirs, cv::Size(64, 48), 0, 0, cv::INTER_LINEAR_EXACT);
    EXPECT_EQ(compare(b.cpu, from_mat(theirs)).count, 0u);
  }
}

TEST(RandomResizedCrop, FallsBackToTheLargestCentredWindow) {
  // No window with area >= 99% and ratio 4 fits a square image: the fallback takes the full width.
  const Pipeline p = testing::one_stage(R"({"stage": "random_resized_crop", "size": [10, 10], "scale": [0.99, 1], "ratio": [4, 5]})");
  const auto crop = p.plan(1, "x", 0, {100, 100, 3, DType::U8}).record[0]["params"]["crop"];
  EXPECT_EQ(crop, nlohmann::json::parse("[0, 37, 100, 25]"));  // h = round(100 / 4) = 25, y = (100 - 25) // 2
}

// ---- the CPU path against the kernels ------------------------------------------------------------

TEST(RandomResizedCrop, AreaHalvingEqualsTheKernels) {
  // An exact halving of a window inside the image.
  expect_parity(R"({"stage": "random_resized_crop", "size": [20, 12], "scale": [0.1, 0.2], "interpolation": "area"})",
                kTypes, kChannels, 4);
}

TEST(RandomResizedCrop, BilinearEqualsTheKernels) {
  expect_parity(R"({"stage": "random_resized_crop", "size": [24, 16]})", kTypes, kChannels, 4);
}

TEST(RandomResizedCrop, NearestEqualsTheKernels) {
  expect_parity(R"({"stage": "random_resized_crop", "size": [24, 16], "interpolation": "nearest"})", kTypes, kChannels,
                4);
}

// ---- properties on every sample type and channel count -------------------------------------------

class RandomResizedCropIdentities : public testing::geometry::TypesAndChannels {};

TEST_P(RandomResizedCropIdentities, ResizeTablesAreExactAtScaleOne) {
  // Not the copy shortcut: a crop of the full image resized to its own size goes through the tables.
  const Image im = image(30, 20);
  const Image out = testing::run_cpu(
      R"({"stage": "random_resized_crop", "size": [30, 20], "scale": [1, 1], "ratio": [1.5, 1.5]})", im);
  EXPECT_EQ(compare(out, im).count, 0u);
}

INSTANTIATE_TEST_SUITE_P(TypesAndChannels, RandomResizedCropIdentities, testing::geometry::types_and_channels(),
                         testing::geometry::type_and_channels_name);

}  // namespace
}  // namespace aug::test_random_resized_crop
