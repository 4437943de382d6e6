// crop_with_object: on photographs with drawn objects every output holds at least one object whole
// (found again in the pixels where its unclipped label says); the output is the window's pixels;
// the draws follow Albumentations' AtLeastOneBBoxRandomCrop (a box chosen uniformly, the corner
// uniform over its range; without boxes over the image; chi-square and binomial tests that can
// fail); the importer reads it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/label_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_crop_with_object {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
namespace lab = testing::labelled;

const std::vector<const char*> kObjectCropPhotos{"astronaut.jpg", "chelsea.png", "coffee_rgba.png", "camera.png"};

std::array<int, 4> object_crop_window(const nlohmann::json& record, const Shape& s) {
  const nlohmann::json& m = record[0]["params"];
  if (!m.contains("crop")) return {0, 0, s.width, s.height};
  return m.at("crop").get<std::array<int, 4>>();
}

std::array<int, 4> object_crop_window_of(const Pipeline& p, const Shape& s, const std::string& key,
                                         const labels::ImageLabels* l) {
  return object_crop_window(p.plan(5, key, 0, s, DrawInputs{l, nullptr}).record, s);
}

double object_crop_chi2(const std::vector<int>& v, int lo, int hi) {
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

labels::ImageLabels object_boxes(int W, int H, const std::vector<labels::Box>& boxes) {
  labels::ImageLabels l{W, H, {}, false, nlohmann::json::object()};
  for (const labels::Box& b : boxes) {
    labels::Object o;
    o.box = b;
    l.objects.push_back(o);
  }
  return l;
}

TEST(CropWithObject, EveryOutputHoldsAtLeastOneObjectWhole) {
  std::size_t outputs = 0, with_whole = 0, whole_objects = 0, objects = 0;
  for (const char* photo : testing::sampled(kObjectCropPhotos)) {
    const Image im = testing::sample_as(photo, DType::U8, 3);
    // A window a third of the image each way: most objects (up to a fifth of a side) fit, few together.
    const std::string stage = R"({"stage": "crop_with_object", "size": [)" + std::to_string(im.width() / 3) + ", " +
                              std::to_string(im.height() / 3) + "]}";
    const Pipeline p = testing::one_stage(stage);
    for (std::uint64_t seed : {3u, 8u, 21u}) {
      const lab::Drawn d = lab::draw_objects(im.clone(), 5, seed);
      for (std::uint32_t copy = 0; copy < 4; ++copy) {
        const lab::Labelled r = lab::run_labelled(p, d, std::string(photo) + std::to_string(seed), copy, seed);
        const auto c = object_crop_window(r.plan.record, im.shape());
        ++outputs;
        objects += d.labels.objects.size();
        std::size_t whole = 0;
        for (const labels::Object& o : r.labels.objects) {
          const labels::Box& before = *d.labels.objects[static_cast<std::size_t>(o.category)].box;
          // Unclipped: the label is the original box moved by the window's corner.
          const bool unclipped = std::abs(o.box->x0 - (before.x0 - c[0])) < 1e-6 &&
                                 std::abs(o.box->x1 - (before.x1 - c[0])) < 1e-6 &&
                                 std::abs(o.box->y0 - (before.y0 - c[1])) < 1e-6 &&
                                 std::abs(o.box->y1 - (before.y1 - c[1])) < 1e-6;
          const auto found = lab::find_colour(r.image, d.colours[static_cast<std::size_t>(o.category)]);
          whole += unclipped && found && lab::iou(*found, *o.box) >= 0.95;
        }
        with_whole += whole > 0;
        whole_objects += whole;
      }
    }
  }
  std::printf("[ acceptance ] crop_with_object: %zu of %zu outputs hold an object whole (%zu of %zu objects whole)\n",
              with_whole, outputs, whole_objects, objects);
  EXPECT_EQ(with_whole, outputs);
}

TEST(CropWithObject, OutputIsTheWindowsPixelsOnThePhotographs) {
  std::size_t values = 0, differing = 0;
  for (const char* photo : testing::sampled(kObjectCropPhotos)) {
    for (const auto& [dtype, channels] : {std::pair{DType::U8, 3}, {DType::U16, 1}, {DType::F32, 3}}) {
      const Image im = testing::sample_as(photo, dtype, channels);
      const Pipeline p = testing::one_stage(R"({"stage": "crop_with_object", "size": [101, 77]})");
      for (int i = 0; i < 4; ++i) {
        const testing::Both b = testing::run_both(p, im, std::string(photo) + std::to_string(i));
        EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << photo << " cpu vs cuda-emulated";
        const auto c = object_crop_window(b.plan.record, im.shape());
        const testing::Diff d = compare(b.cpu, from_mat(mat(im)(cv::Rect(c[0], c[1], c[2], c[3])).clone()));
        EXPECT_EQ(d.count, 0u) << photo << ": " << d.str();
        values += b.cpu.shape().values();
        differing += d.count;
      }
    }
  }
  std::printf("[ vs OpenCV ] crop_with_object differing values: %zu of %zu\n", differing, values);
}

TEST(CropWithObject, TheBoxIsChosenUniformlyAndTheCornerUniformOverItsRange) {
  // 200 x 100, window 40 x 40. Box A (50, 30)-(70, 50): x = int(30 + 20 u) on 30..49, y = int(10 + 20 v)
  // on 10..29. Box B (150, 60)-(160, 100): x on int(120 + 30 u) = 120..149, y = int(60 + 0 v) = 60.
  const Shape s{200, 100, 3, DType::U8};
  const labels::ImageLabels l = object_boxes(200, 100, {{50, 30, 70, 50}, {150, 60, 160, 100}});
  const Pipeline p = testing::one_stage(R"({"stage": "crop_with_object", "size": [40, 40]})");
  std::vector<int> ax, ay, bx;
  const int n = 8000;
  for (int i = 0; i < n; ++i) {
    const auto c = object_crop_window_of(p, s, "o" + std::to_string(i), &l);
    ASSERT_EQ(c[2], 40);
    ASSERT_EQ(c[3], 40);
    if (c[0] <= 50 && c[1] <= 30 && c[0] + 40 >= 70 && c[1] + 40 >= 50) {
      ax.push_back(c[0]), ay.push_back(c[1]);
    } else {
      ASSERT_LE(c[0], 150);
      ASSERT_GE(c[0] + 40, 160);
      ASSERT_EQ(c[1], 60);
      bx.push_back(c[0]);
    }
  }
  // Each box half the time: |count - n/2| within 4 standard deviations (sqrt(n)/2).
  EXPECT_LT(std::abs(static_cast<double>(ax.size()) - n / 2.0), 4 * std::sqrt(n) / 2);
  // 99.9% quantiles of chi-square with 19 and 29 degrees of freedom.
  EXPECT_LT(object_crop_chi2(ax, 30, 49), 43.8);
  EXPECT_LT(object_crop_chi2(ay, 10, 29), 43.8);
  EXPECT_LT(object_crop_chi2(bx, 120, 149), 58.3);
  EXPECT_EQ(*std::min_element(ax.begin(), ax.end()), 30);
  EXPECT_EQ(*std::max_element(ax.begin(), ax.end()), 49);
}

TEST(CropWithObject, ErosionOneOnlyAsksTheWindowToTouchTheBox) {
  // erosion_factor 1: x in int(uniform(clip(50 - 40), clip(70))) = 10..69 on a 200-wide image.
  const Shape s{200, 100, 1, DType::U8};
  const labels::ImageLabels l = object_boxes(200, 100, {{50, 30, 70, 50}});
  const Pipeline p = testing::one_stage(R"({"stage": "crop_with_object", "size": [40, 40], "erosion_factor": 1})");
  const Pipeline half = testing::one_stage(R"({"stage": "crop_with_object", "size": [40, 40], "erosion_factor": 0.5})");
  std::vector<int> xs;
  int lo_half = 1000, hi_half = 0;
  for (int i = 0; i < 6000; ++i) {
    xs.push_back(object_crop_window_of(p, s, "t" + std::to_string(i), &l)[0]);
    // erosion 0.5: ew = 10, x in [50 + 10 - 40, 70 - 10] = [20, 60).
    const int x = object_crop_window_of(half, s, "t" + std::to_string(i), &l)[0];
    lo_half = std::min(lo_half, x), hi_half = std::max(hi_half, x);
  }
  EXPECT_LT(object_crop_chi2(xs, 10, 69), 99.6);  // 59 degrees of freedom: 99.9% quantile ~ 99.6
  EXPECT_EQ(lo_half, 20);
  EXPECT_EQ(hi_half, 59);
}

TEST(CropWithObject, WithoutLabelsTheWindowIsUniformOverTheImage) {
  // No boxes: x = int((W - w) u) on 0..W - w - 1, y likewise; an empty label set draws the same.
  const Shape s{120, 60, 3, DType::U8};
  const labels::ImageLabels none = object_boxes(120, 60, {});
  const Pipeline p = testing::one_stage(R"({"stage": "crop_with_object", "size": [70, 20]})");
  std::vector<int> xs, ys;
  for (int i = 0; i < 10000; ++i) {
    const auto c = object_crop_window_of(p, s, "u" + std::to_string(i), nullptr);
    xs.push_back(c[0]), ys.push_back(c[1]);
    if (i < 200) {
      EXPECT_EQ(object_crop_window_of(p, s, "u" + std::to_string(i), &none), c);
    }
  }
  EXPECT_LT(object_crop_chi2(xs, 0, 49), 86.7);  // 49 degrees of freedom
  EXPECT_LT(object_crop_chi2(ys, 0, 39), 72.1);  // 39 degrees of freedom
  EXPECT_EQ(*std::max_element(xs.begin(), xs.end()), 49);
}

TEST(CropWithObject, AWindowLargerThanTheImageIsAnErrorNamingTheStage) {
  const Pipeline p = testing::one_stage(R"({"stage": "crop_with_object", "size": [70, 20]})");
  try {
    (void)p.plan(1, "small.png", 0, Shape{60, 60, 3, DType::U8});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("crop_with_object"), std::string::npos) << e.what();
  }
}

TEST(CropWithObject, ImportsAtLeastOneBBoxRandomCrop) {
  const std::string text = R"({"__version__": "2.0.5", "transform": {"__class_fullname__": "Compose", "p": 1.0, "transforms": [
      {"__class_fullname__": "AtLeastOneBBoxRandomCrop", "height": 300, "width": 400, "erosion_factor": 0.25, "p": 1.0}]}})";
  const auto s = import_albumentations(nlohmann::json::parse(text), "t.json").pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "crop_with_object");
  EXPECT_EQ(s["size"], nlohmann::json::parse("[400, 300]"));
  EXPECT_EQ(s["erosion_factor"], 0.25);
}

TEST(CropWithObject, ErrorsNameTheParameter) {
  testing::geometry::expect_errors_name_the_parameter({
      {R"({"stage": "crop_with_object"})", "size"},
      {R"({"stage": "crop_with_object", "size": [0, 4]})", "size"},
      {R"({"stage": "crop_with_object", "size": [4, 4], "erosion_factor": 2})", "erosion_factor"},
  });
}

}  // namespace
}  // namespace aug::test_crop_with_object
