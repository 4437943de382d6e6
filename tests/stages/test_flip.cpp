// flip: against cv::flip in every direction for every sample type and channel count, flipping
// twice as the identity (once is not) on every sample type and channel count, and a list of
// directions (Albumentations' Flip) drawing each equally.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <opencv2/core.hpp>

#include "tests/stages/geometry_support.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_flip {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::run_cpu;

TEST(Flip, EqualsCvFlipForEveryTypeAndChannelCount) {
  for (DType t : testing::geometry::kTypes)
    for (int c : testing::geometry::kChannels) {
      const Image im = testing::random_image({41, 39, c, t}, 1);
      cv::Mat h, v, both;
      cv::flip(mat(im), h, 1);
      cv::flip(mat(im), v, 0);
      cv::flip(mat(im), both, -1);
      EXPECT_EQ(compare(run_cpu(R"({"stage": "flip", "direction": "horizontal"})", im), from_mat(h)).count, 0u);
      EXPECT_EQ(compare(run_cpu(R"({"stage": "flip", "direction": "vertical"})", im), from_mat(v)).count, 0u);
      EXPECT_EQ(compare(run_cpu(R"({"stage": "flip", "direction": "both"})", im), from_mat(both)).count, 0u);
    }
}

class FlipIdentities : public testing::geometry::TypesAndChannels {};

TEST_P(FlipIdentities, FlipTwiceIsTheIdentity) {
  const Image im = image();
  for (const char* d : {"horizontal", "vertical", "both"}) {
    const std::string stage = std::string(R"({"stage": "flip", "direction": ")") + d + "\"}";
    EXPECT_EQ(compare(run_cpu(stage, run_cpu(stage, im)), im).count, 0u) << d;
    EXPECT_GT(compare(run_cpu(stage, im), im).count, 0u) << d;  // and once is not
  }
}

TEST(Flip, BothIsHorizontalThenVertical) {
  const Image im = testing::random_image({23, 17, 3, DType::U8}, 4);
  const Image hv = run_cpu(R"({"stage": "flip", "direction": "vertical"})",
                           run_cpu(R"({"stage": "flip", "direction": "horizontal"})", im));
  EXPECT_EQ(compare(run_cpu(R"({"stage": "flip", "direction": "both"})", im), hv).count, 0u);
}

// Albumentations' Flip draws cv2.flip's code from randint(-1, 1): each direction a third of the
// time. The list of three directions draws the same way (chi-square, 2 degrees of freedom, 0.1%).
TEST(Flip, AListDrawsEachDirectionEqually) {
  const Pipeline p = testing::one_stage(R"({"stage": "flip", "direction": ["horizontal", "vertical", "both"]})");
  std::map<std::string, int> seen;
  const int n = 3000;
  for (int i = 0; i < n; ++i)
    ++seen[p.plan(11, "img" + std::to_string(i) + ".png", 0, Shape{8, 8, 1, DType::U8})
               .steps.at(0)
               .op->params()
               .at("direction")
               .get<std::string>()];
  ASSERT_EQ(seen.size(), 3u);
  double chi2 = 0;
  for (const auto& [d, k] : seen) chi2 += (k - n / 3.0) * (k - n / 3.0) / (n / 3.0);
  EXPECT_LT(chi2, 13.8) << "horizontal " << seen["horizontal"] << ", vertical " << seen["vertical"] << ", both "
                        << seen["both"];
}

TEST(Flip, ImportsAlbumentationsFlipAsAListOfTheThreeDirections) {
  auto import_one = [](const std::string& transform) {
    const nlohmann::json saved = nlohmann::json::parse(
        R"({"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "transforms": [)" + transform + "]}}");
    return import_albumentations(saved, "a.json");
  };
  const auto s = import_one(R"({"__class_fullname__": "albumentations.augmentations.transforms.Flip", "p": 0.3})")
                     .pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "flip");
  EXPECT_EQ(s["direction"], nlohmann::ordered_json::array({"horizontal", "vertical", "both"}));
  EXPECT_EQ(s["p"], 0.3);
  EXPECT_EQ(import_one(R"({"__class_fullname__": "Flip"})").pipeline["stages"][0]["p"], 0.5);
}

INSTANTIATE_TEST_SUITE_P(TypesAndChannels, FlipIdentities, testing::geometry::types_and_channels(),
                         testing::geometry::type_and_channels_name);

}  // namespace
}  // namespace aug::test_flip
