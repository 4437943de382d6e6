// random_crop_from_borders: the output is the drawn window of the input (OpenCV's ROI copy) on the
// corpus photographs and on every sample type, the four draws follow Albumentations'
// RandomCropFromBorders (bounds, uniformity: chi-square tests that can fail), the fractions are
// validated, and the importer reads the transform.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_random_crop_from_borders {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;

struct BorderWindow {
  int x0, y0, x1, y1;
};

BorderWindow border_window(const Pipeline& p, const Shape& s, const std::string& key) {
  const nlohmann::json m = p.plan(5, key, 0, s).record[0]["params"];
  const int x = m.at("x"), y = m.at("y"), w = m.at("width"), h = m.at("height");
  return {x, y, x + w, y + h};
}

double border_chi2(const std::vector<int>& v, int lo, int hi) {
  std::map<int, int> counts;
  for (int x : v) counts[x]++;
  const double expected = static_cast<double>(v.size()) / (hi - lo + 1);
  double chi = 0;
  for (int k = lo; k <= hi; ++k) {
    const double d = counts[k] - expected;
    chi += d * d / expected;
  }
  return chi;
}

TEST(RandomCropFromBorders, OutputIsTheWindowOfTheInput) {
  for (DType t : testing::geometry::kTypes)
    for (const Image& im : testing::geometry::photographs(t)) {
      const char* stage = R"({"stage": "random_crop_from_borders", "crop_left": 0.2, "crop_right": 0.3, "crop_top": 0.25, "crop_bottom": 0.15})";
      for (int i = 0; i < 4; ++i) {
        const std::string key = "w" + std::to_string(i);
        const testing::Both b = testing::geometry::both(stage, im, key);
        const nlohmann::json m = b.plan.record[0]["params"];
        const BorderWindow w{m.at("x").get<int>(), m.at("y").get<int>(), m.at("x").get<int>() + m.at("width").get<int>(),
                             m.at("y").get<int>() + m.at("height").get<int>()};
        const Image want = from_mat(mat(im)(cv::Rect(w.x0, w.y0, w.x1 - w.x0, w.y1 - w.y0)).clone());
        ASSERT_EQ(b.cpu.shape(), want.shape());
        EXPECT_EQ(compare(b.cpu, want).count, 0u) << dtype_name(t) << " " << key;
      }
    }
}

TEST(RandomCropFromBorders, DrawsAreAlbumentations) {
  // W = 200, crop_left 0.3, crop_right 0.2: x_min = integer(0, 60), x_max = integer(max(x_min + 1,
  // 160), 200), each uniform; H = 100, crop_top 0.05, crop_bottom 0.5: y_min = integer(0, 5), y_max =
  // integer(max(y_min + 1, 50), 100). Chi-square 99.9% quantiles: 60 dof 99.6, 40 dof 73.4,
  // 5 dof 20.5, 50 dof 86.7.
  const Shape shape{200, 100, 3, DType::U8};
  const Pipeline p = testing::one_stage(
      R"({"stage": "random_crop_from_borders", "crop_left": 0.3, "crop_right": 0.2, "crop_top": 0.05, "crop_bottom": 0.5})");
  std::vector<int> x0, x1, y0, y1;
  for (int i = 0; i < 12000; ++i) {
    const BorderWindow w = border_window(p, shape, "d" + std::to_string(i));
    x0.push_back(w.x0), x1.push_back(w.x1), y0.push_back(w.y0), y1.push_back(w.y1);
  }
  EXPECT_EQ(*std::min_element(x0.begin(), x0.end()), 0);
  EXPECT_EQ(*std::max_element(x0.begin(), x0.end()), 60);
  EXPECT_EQ(*std::min_element(x1.begin(), x1.end()), 160);
  EXPECT_EQ(*std::max_element(x1.begin(), x1.end()), 200);
  EXPECT_EQ(*std::max_element(y0.begin(), y0.end()), 5);
  EXPECT_EQ(*std::min_element(y1.begin(), y1.end()), 50);
  EXPECT_LT(border_chi2(x0, 0, 60), 99.6);
  EXPECT_LT(border_chi2(x1, 160, 200), 73.4);
  EXPECT_LT(border_chi2(y0, 0, 5), 20.5);
  EXPECT_LT(border_chi2(y1, 50, 100), 86.7);
  // Where the two ranges meet, x_max starts after x_min: crop_left 0.5, crop_right 0.5 on 10 pixels.
  const Pipeline q = testing::one_stage(
      R"({"stage": "random_crop_from_borders", "crop_left": 0.5, "crop_right": 0.5, "crop_top": 1, "crop_bottom": 0})");
  std::map<std::pair<int, int>, int> seen;
  for (int i = 0; i < 3000; ++i) {
    const BorderWindow w = border_window(q, Shape{10, 7, 1, DType::U8}, "m" + std::to_string(i));
    ASSERT_GE(w.x1, std::max(w.x0 + 1, 5));
    ASSERT_LE(w.x1, 10);
    ASSERT_LE(w.x0, 5);
    ASSERT_LE(w.y0, 6);  // crop_top 1: at most H - 1, so that one row is left
    ASSERT_EQ(w.y1, 7);
    seen[{w.x0, w.x1}]++;
  }
  // x_min 5 leaves x_max in 6..10 (5 values); x_min 0..4 leave 5..10 (6 values): 35 pairs.
  EXPECT_EQ(seen.size(), 35u);
}

TEST(RandomCropFromBorders, FractionsAreValidatedAndAnySumLeavesAWindow) {
  testing::geometry::expect_errors_name_the_parameter({
      {R"({"stage": "random_crop_from_borders", "crop_left": 1.5})", "crop_left"},
      {R"({"stage": "random_crop_from_borders", "crop_top": -0.1})", "crop_top"},
      {R"({"stage": "random_crop_from_borders", "crop_bottom": 1.01})", "crop_bottom"},
  });
  // Albumentations refuses sums above 1; the draws here still leave at least one pixel.
  const Pipeline p = testing::one_stage(R"({"stage": "random_crop_from_borders", "crop_left": 1, "crop_right": 1, "crop_top": 0.9, "crop_bottom": 0.8})");
  for (int i = 0; i < 500; ++i) {
    const BorderWindow w = border_window(p, Shape{9, 4, 1, DType::U8}, "s" + std::to_string(i));
    ASSERT_GE(w.x0, 0);
    ASSERT_GT(w.x1, w.x0);
    ASSERT_LE(w.x1, 9);
    ASSERT_GT(w.y1, w.y0);
    ASSERT_LE(w.y1, 4);
  }
}

TEST(RandomCropFromBorders, ImportsAlbumentations) {
  const std::string text =
      R"({"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "p": 1.0, "transforms": [)"
      R"({"__class_fullname__": "RandomCropFromBorders", "crop_left": 0.2, "crop_right": 0.25, "crop_top": 0.3, "p": 0.4}]}})";
  const auto s = import_albumentations(nlohmann::json::parse(text), "t.json").pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "random_crop_from_borders");
  EXPECT_EQ(s["crop_left"], 0.2);
  EXPECT_EQ(s["crop_right"], 0.25);
  EXPECT_EQ(s["crop_top"], 0.3);
  EXPECT_EQ(s["crop_bottom"], 0.1);
  EXPECT_EQ(s["p"], 0.4);
}

}  // namespace
}  // namespace aug::test_random_crop_from_borders
