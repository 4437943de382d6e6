// crop_non_empty_mask: the output is the drawn window of the input (OpenCV's ROI copy) with and without
// labels; on photographs with drawn objects every output holds labelled pixels of the label map (and
// never only ignored ones); the draws follow Albumentations' CropNonEmptyMaskIfExists (the chosen pixel
// uniform over the labelled ones, the offsets uniform, the empty-mask placement uniform: chi-square
// tests that can fail); the objects stand in for a missing label map; the importer reads the transform.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/label_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_crop_non_empty_mask {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::sample_as;
namespace labelled = testing::labelled;

double nonempty_chi2(const std::map<int, int>& counts, int lo, int hi, int total) {
  const double expected = static_cast<double>(total) / (hi - lo + 1);
  double chi = 0;
  for (int k = lo; k <= hi; ++k) {
    const auto it = counts.find(k);
    const double d = (it == counts.end() ? 0 : it->second) - expected;
    chi += d * d / expected;
  }
  return chi;
}

Image roi_of(const Image& im, const nlohmann::json& m) {
  return from_mat(mat(im)(cv::Rect(m.at("x").get<int>(), m.at("y").get<int>(), m.at("width").get<int>(),
                                   m.at("height").get<int>()))
                      .clone());
}

const std::vector<std::string> kPhotos{"chelsea.png", "astronaut.jpg", "coffee_rgba.png", "camera.png"};

TEST(CropNonEmptyMask, OutputIsTheWindowOfTheInputWithoutLabels) {
  for (DType t : testing::geometry::kTypes)
    for (const Image& im : testing::geometry::photographs(t))
      for (int i = 0; i < 4; ++i) {
        const std::string key = "w" + std::to_string(i);
        const testing::Both b = testing::geometry::both(R"({"stage": "crop_non_empty_mask", "size": [97, 61]})", im, key);
        const nlohmann::json m = b.plan.record[0]["params"];
        EXPECT_EQ(m.at("from"), "none");
        EXPECT_EQ(m.at("labelled"), 0);
        const Image want = roi_of(im, m);
        ASSERT_EQ(b.cpu.shape(), want.shape());
        EXPECT_EQ(compare(b.cpu, want).count, 0u) << dtype_name(t) << " " << key;
      }
}

// The acceptance figures: photographs with drawn objects and their label map, several seeds, 4
// copies each: every output's label map holds labelled pixels; with ignore_values naming some
// classes, every output holds a class that is not ignored, and the chosen pixel is never an ignored one.
TEST(CropNonEmptyMask, EveryOutputHoldsALabelledPixelOfTheLabelMap) {
  int outputs = 0, non_empty = 0, ignoring_outputs = 0, ignoring_non_empty = 0;
  const Pipeline plain = testing::one_stage(R"({"stage": "crop_non_empty_mask", "size": [96, 80]})");
  // Objects 0, 1 and 2 (map values 1, 2, 3) ignored.
  const Pipeline ignoring =
      testing::one_stage(R"({"stage": "crop_non_empty_mask", "size": [96, 80], "ignore_values": [1, 2, 3]})");
  for (const std::string& name : testing::sampled(kPhotos))
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const Image photo = sample_as(name, DType::U8, 3);
      // Small objects, so that a window placed anywhere would often miss them all.
      const labelled::Drawn d = labelled::draw_objects(photo, 6, seed, 0.03, 0.06);
      ASSERT_EQ(d.labels.objects.size(), 6u);
      for (std::uint32_t copy = 0; copy < 4; ++copy) {
        const std::string key = name + std::to_string(seed);
        const labelled::Labelled r = labelled::run_labelled(plain, d, key, copy);
        const nlohmann::json m = r.plan.record[0]["params"];
        ASSERT_EQ(m.at("from"), "label map");
        ASSERT_EQ(r.mask.shape(), (Shape{96, 80, 1, DType::U8}));
        EXPECT_EQ(compare(r.image, roi_of(d.image, m)).count, 0u) << key;
        ++outputs;
        if (cv::countNonZero(mat(r.mask)) > 0) ++non_empty;

        const labelled::Labelled q = labelled::run_labelled(ignoring, d, key, copy);
        const nlohmann::json n = q.plan.record[0]["params"];
        ASSERT_TRUE(n.contains("pixel")) << key;
        const int px = n["pixel"][0], py = n["pixel"][1];
        EXPECT_GT(d.mask.view<std::uint8_t>().row(py)[px], 3) << key << ": an ignored class was chosen";
        ++ignoring_outputs;
        bool counted = false;
        const cv::Mat qm = mat(q.mask);
        for (int y = 0; y < qm.rows; ++y)
          for (int x = 0; x < qm.cols; ++x) counted = counted || qm.at<std::uint8_t>(y, x) > 3;
        if (counted) ++ignoring_non_empty;
      }
    }
  std::printf("crop_non_empty_mask: %d of %d outputs hold labelled pixels; ignoring classes 1-3: %d of %d hold a "
              "class not ignored\n",
              non_empty, outputs, ignoring_non_empty, ignoring_outputs);
  EXPECT_EQ(non_empty, outputs);
  EXPECT_EQ(ignoring_non_empty, ignoring_outputs);
  EXPECT_GT(outputs, 0);
}

// Without a label map the objects (polygons; boxes where there are none) stand in for it: every output
// keeps at least one object.
TEST(CropNonEmptyMask, WithoutALabelMapTheObjectsStandInForIt) {
  int outputs = 0, holding = 0;
  const Pipeline p = testing::one_stage(R"({"stage": "crop_non_empty_mask", "size": [96, 80]})");
  static auto cpu = make_cpu_backend(1);
  for (const std::string& name : testing::sampled(kPhotos))
    for (std::uint64_t seed : {4u, 5u}) {
      const Image photo = sample_as(name, DType::U8, 3);
      labelled::Drawn d = labelled::draw_objects(photo, 6, seed, 0.03, 0.06);
      // Half the objects keep only their box.
      for (std::size_t i = 0; i < d.labels.objects.size(); i += 2) d.labels.objects[i].polygons.clear();
      for (std::uint32_t copy = 0; copy < 4; ++copy) {
        const Plan plan = p.plan(11, name, copy, d.image.shape(), DrawInputs{&d.labels, nullptr});
        const nlohmann::json m = plan.record[0]["params"];
        ASSERT_EQ(m.at("from"), "labels");
        ASSERT_TRUE(m.contains("pixel"));
        // The chosen pixel lies in an object (every object here fills its box or its triangle).
        const int px = m["pixel"][0], py = m["pixel"][1];
        bool inside = false;
        for (const labels::Object& o : d.labels.objects)
          inside = inside || (px + 0.5 >= o.box->x0 && px + 0.5 < o.box->x1 && py + 0.5 >= o.box->y0 && py + 0.5 < o.box->y1);
        EXPECT_TRUE(inside) << name << " pixel " << px << "," << py;
        labels::ImageLabels moved = d.labels;
        labels::move_plan_labels(plan, moved, p.label_rules(), *cpu, 0);
        ++outputs;
        if (!moved.objects.empty()) ++holding;
      }
    }
  std::printf("crop_non_empty_mask without a label map: %d of %d outputs keep an object\n", holding, outputs);
  EXPECT_EQ(holding, outputs);
  // ignore_values names categories there: with all but category 5 ignored, the pixel is in object 5.
  const Image photo = sample_as("chelsea.png", DType::U8, 3);
  const labelled::Drawn d = labelled::draw_objects(photo, 6, 9, 0.03, 0.06);
  const Pipeline q = testing::one_stage(R"({"stage": "crop_non_empty_mask", "size": [50, 40], "ignore_values": [0, 1, 2, 3, 4]})");
  const labels::Box& b5 = *d.labels.objects[5].box;
  for (std::uint32_t copy = 0; copy < 40; ++copy) {
    const nlohmann::json m = q.plan(3, "c", copy, d.image.shape(), DrawInputs{&d.labels, nullptr}).record[0]["params"];
    const int px = m["pixel"][0], py = m["pixel"][1];
    EXPECT_TRUE(px >= b5.x0 - 1 && px < b5.x1 + 1 && py >= b5.y0 - 1 && py < b5.y1 + 1) << px << "," << py;
  }
}

TEST(CropNonEmptyMask, DrawsAreAlbumentations) {
  // A 60 x 40 map whose labelled pixels sit away from the borders (no clipping): values 1..4 at 12
  // places, one of them ignored. Window 8 x 6: x0 = x - integer(0, 7), y0 = y - integer(0, 5).
  Image map({60, 40, 1, DType::U8});
  mat(map).setTo(0);
  std::vector<std::pair<int, int>> places;
  for (int i = 0; i < 12; ++i) {
    const int x = 15 + 3 * i, y = 12 + (i * 7) % 15;
    mat(map).at<std::uint8_t>(y, x) = static_cast<std::uint8_t>(1 + i % 4);
    if (i % 4 != 2) places.emplace_back(x, y);  // value 3 is ignored below
  }
  const Shape shape{60, 40, 3, DType::U8};
  const Pipeline p = testing::one_stage(R"({"stage": "crop_non_empty_mask", "size": [8, 6], "ignore_values": 3})");
  std::map<int, int> chosen, dx, dy;
  const int n = 9000;
  for (int i = 0; i < n; ++i) {
    const nlohmann::json m = p.plan(7, "d" + std::to_string(i), 0, shape, DrawInputs{nullptr, &map}).record[0]["params"];
    ASSERT_EQ(m.at("labelled"), 9);
    const int x = m["pixel"][0], y = m["pixel"][1];
    const auto at = std::find(places.begin(), places.end(), std::pair{x, y});
    ASSERT_NE(at, places.end()) << x << "," << y << " is not a counted pixel";
    chosen[static_cast<int>(at - places.begin())]++;
    dx[x - m.at("x").get<int>()]++;
    dy[y - m.at("y").get<int>()]++;
  }
  // Chi-square 99.9% quantiles: 8 dof 26.1, 7 dof 24.3, 5 dof 20.5.
  EXPECT_LT(nonempty_chi2(chosen, 0, 8, n), 26.1);
  EXPECT_LT(nonempty_chi2(dx, 0, 7, n), 24.3);
  EXPECT_LT(nonempty_chi2(dy, 0, 5, n), 20.5);
  EXPECT_EQ(dx.size(), 8u);
  EXPECT_EQ(dy.size(), 6u);

  // Near a border the window is clipped and still holds the pixel: one pixel at (1, 38).
  Image corner({60, 40, 1, DType::U16});
  mat(corner).setTo(0);
  mat(corner).at<std::uint16_t>(38, 1) = 1000;
  const Pipeline c = testing::one_stage(R"({"stage": "crop_non_empty_mask", "size": [8, 6]})");
  std::map<int, int> xs, ys;
  for (int i = 0; i < 2000; ++i) {
    const nlohmann::json m = c.plan(7, "c" + std::to_string(i), 0, shape, DrawInputs{nullptr, &corner}).record[0]["params"];
    xs[m.at("x").get<int>()]++;
    ys[m.at("y").get<int>()]++;
  }
  // x0 = max(0, 1 - integer(0, 7)): 0 with probability 7/8, else 1; y0 = min(34, 38 - integer(0, 5)):
  // 34 with probability 5/6, else 33.
  EXPECT_EQ(xs.size(), 2u);
  EXPECT_NEAR(xs[0] / 2000.0, 7.0 / 8, 0.03);
  EXPECT_EQ(ys.size(), 2u);
  EXPECT_NEAR(ys[34] / 2000.0, 5.0 / 6, 0.03);

  // Nothing labelled (an empty map, every value ignored, or ignore_channels [0]): x0 = integer(0, 52),
  // y0 = integer(0, 34), uniform.
  Image empty({60, 40, 1, DType::U8});
  mat(empty).setTo(0);
  for (const auto& [stage, with] : std::vector<std::pair<std::string, const Image*>>{
           {R"({"stage": "crop_non_empty_mask", "size": [8, 6]})", &empty},
           {R"({"stage": "crop_non_empty_mask", "size": [8, 6], "ignore_values": [1, 2, 3, 4]})", &map},
           {R"({"stage": "crop_non_empty_mask", "size": [8, 6], "ignore_channels": [0]})", &map}}) {
    const Pipeline e = testing::one_stage(stage);
    std::map<int, int> ex, ey;
    for (int i = 0; i < 5300; ++i) {
      const nlohmann::json m = e.plan(7, "e" + std::to_string(i), 0, shape, DrawInputs{nullptr, with}).record[0]["params"];
      ASSERT_EQ(m.at("labelled"), 0) << stage;
      ex[m.at("x").get<int>()]++;
      ey[m.at("y").get<int>()]++;
    }
    // 52 dof 90.0, 34 dof 65.2.
    EXPECT_LT(nonempty_chi2(ex, 0, 52, 5300), 90.0) << stage;
    EXPECT_LT(nonempty_chi2(ey, 0, 34, 5300), 65.2) << stage;
  }
}

TEST(CropNonEmptyMask, ParametersAndSizesAreChecked) {
  testing::geometry::expect_errors_name_the_parameter({
      {R"({"stage": "crop_non_empty_mask"})", "size"},
      {R"({"stage": "crop_non_empty_mask", "size": [4, 4], "ignore_channels": [1]})", "ignore_channels"},
      {R"({"stage": "crop_non_empty_mask", "size": [4, 4], "ignore_values": [-1]})", "ignore_values"},
  });
  const Pipeline p = testing::one_stage(R"({"stage": "crop_non_empty_mask", "size": [50, 10]})");
  EXPECT_THROW(p.plan(1, "a", 0, Shape{49, 20, 3, DType::U8}), InputError);
  Image wrong({30, 20, 1, DType::U8});
  EXPECT_THROW(p.plan(1, "a", 0, Shape{60, 20, 3, DType::U8}, DrawInputs{nullptr, &wrong}), InputError);
}

TEST(CropNonEmptyMask, ImportsAlbumentations) {
  const std::string v1 =
      R"({"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "p": 1.0, "transforms": [)"
      R"({"__class_fullname__": "CropNonEmptyMaskIfExists", "height": 128, "width": 256, "ignore_values": [5, 7],)"
      R"( "ignore_channels": null, "p": 0.7}]}})";
  auto s = import_albumentations(nlohmann::json::parse(v1), "t.json").pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "crop_non_empty_mask");
  EXPECT_EQ(s["size"], nlohmann::json::parse("[256, 128]"));
  EXPECT_EQ(s["ignore_values"], nlohmann::json::parse("[5, 7]"));
  EXPECT_FALSE(s.contains("ignore_channels"));
  EXPECT_EQ(s["p"], 0.7);
  const std::string v2 =
      R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "p": 1.0, "transforms": [)"
      R"({"__class_fullname__": "CropNonEmptyMaskIfExists", "height": 64, "width": 32, "ignore_values": null,)"
      R"( "ignore_channels": [0, 2], "p": 1.0}]}})";
  s = import_albumentations(nlohmann::json::parse(v2), "t.json").pipeline["stages"][0];
  EXPECT_EQ(s["size"], nlohmann::json::parse("[32, 64]"));
  EXPECT_EQ(s["ignore_channels"], nlohmann::json::parse("[0]"));
  EXPECT_FALSE(s.contains("ignore_values"));
}

}  // namespace
}  // namespace aug::test_crop_non_empty_mask
