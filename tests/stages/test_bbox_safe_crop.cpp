// bbox_safe_crop: on photographs with drawn objects every object stays whole in every output and
// its moved box matches the object found again in the pixels; the output is the window cut out or
// resized by cv::resize; the window's draws follow Albumentations 2.x (with boxes and without,
// chi-square tests that can fail); the importer reads both transforms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/label_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_bbox_safe_crop {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
namespace lab = testing::labelled;

const std::vector<const char*> kSafeCropPhotos{"astronaut.jpg", "chelsea.png", "coffee_rgba.png", "camera.png"};

// {x, y, w, h} of the resolved window.
std::array<int, 4> safe_crop_window(const nlohmann::json& record, const Shape& s) {
  const nlohmann::json& m = record[0]["params"];
  if (!m.contains("crop")) return {0, 0, s.width, s.height};
  return m.at("crop").get<std::array<int, 4>>();
}

std::array<int, 4> safe_crop_window_of(const Pipeline& p, const Shape& s, const std::string& key,
                                       const labels::ImageLabels* l) {
  return safe_crop_window(p.plan(5, key, 0, s, DrawInputs{l, nullptr}).record, s);
}

double safe_crop_chi2(const std::vector<int>& v, int lo, int hi) {
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

labels::ImageLabels boxes_only(int W, int H, const std::vector<labels::Box>& boxes) {
  labels::ImageLabels l{W, H, {}, false, nlohmann::json::object()};
  for (const labels::Box& b : boxes) {
    labels::Object o;
    o.box = b;
    l.objects.push_back(o);
  }
  return l;
}

struct KeptCount {
  std::size_t kept = 0, total = 0, outputs = 0, whole_outputs = 0;
  double iou_sum = 0;
  std::size_t iou_n = 0;
};

// Runs `stage` over the photographs with objects drawn on them, 4 copies each, and counts the
// objects kept and their boxes' IoU with the objects found again in the output's pixels.
KeptCount safe_crop_acceptance(const std::string& stage) {
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [)" + stage + "]}", "t.json");
  KeptCount k;
  for (const char* photo : testing::sampled(kSafeCropPhotos)) {
    const Image im = testing::sample_as(photo, DType::U8, 3);
    for (std::uint64_t seed : {3u, 8u, 21u}) {
      const lab::Drawn d = lab::draw_objects(im.clone(), 5, seed);
      for (std::uint32_t copy = 0; copy < 4; ++copy) {
        const lab::Labelled r = lab::run_labelled(p, d, std::string(photo) + std::to_string(seed), copy, seed);
        ++k.outputs;
        k.total += d.labels.objects.size();
        std::size_t whole = 0;
        for (const labels::Object& o : r.labels.objects) {
          const auto found = lab::find_colour(r.image, d.colours[static_cast<std::size_t>(o.category)]);
          if (!found) continue;
          ++k.kept;
          const double v = lab::iou(*found, *o.box);
          k.iou_sum += v;
          ++k.iou_n;
          whole += v >= 0.9;
        }
        k.whole_outputs += whole == d.labels.objects.size();
      }
    }
  }
  return k;
}

TEST(BBoxSafeCrop, EveryDrawnObjectStaysWholeInEveryOutput) {
  // Every object kept and found again in every output. Cut out, every box matches its object's
  // pixels exactly; resized, the objects (some under 15 pixels after the scale) lose a pixel's
  // fraction to the sampling: bilinear blends their edges, nearest (cv::resize INTER_NEAREST takes
  // floor(d / s), not the pixel under the centre) shifts them by up to one source pixel.
  struct Case {
    std::string stage;
    double min_mean_iou;
    bool every_box_exact;
  };
  for (const Case& c : {Case{R"({"stage": "bbox_safe_crop"})", 0.999, true},
                        Case{R"({"stage": "bbox_safe_crop", "size": [320, 320]})", 0.95, false},
                        Case{R"({"stage": "bbox_safe_crop", "size": [256, 384], "interpolation": "nearest"})", 0.93, false}}) {
    const KeptCount k = safe_crop_acceptance(c.stage);
    const double mean = k.iou_n ? k.iou_sum / k.iou_n : 0;
    std::printf("[ acceptance ] %s: %zu of %zu objects kept and found again; mean IoU %.4f; %zu of %zu outputs with "
                "every object at IoU >= 0.9\n",
                c.stage.c_str(), k.kept, k.total, mean, k.whole_outputs, k.outputs);
    EXPECT_EQ(k.kept, k.total) << c.stage;
    EXPECT_GE(mean, c.min_mean_iou) << c.stage;
    if (c.every_box_exact) {
      EXPECT_EQ(k.whole_outputs, k.outputs) << c.stage;
    }
  }
}

TEST(BBoxSafeCrop, TheWindowHoldsTheBoxesUnionAndTheLabelsMoveWithIt) {
  const Image im = testing::sample_as("chelsea.png", DType::U8, 3);
  const Pipeline p = testing::one_stage(R"({"stage": "bbox_safe_crop"})");
  int cropped = 0;
  for (std::uint64_t seed : {1u, 2u, 5u, 9u}) {
    const lab::Drawn d = lab::draw_objects(im.clone(), 4, seed);
    double ux0 = 1e9, uy0 = 1e9, ux1 = 0, uy1 = 0;
    for (const labels::Object& o : d.labels.objects)
      ux0 = std::min(ux0, o.box->x0), uy0 = std::min(uy0, o.box->y0), ux1 = std::max(ux1, o.box->x1),
      uy1 = std::max(uy1, o.box->y1);
    for (std::uint32_t copy = 0; copy < 4; ++copy) {
      const lab::Labelled r = lab::run_labelled(p, d, "w.png", copy, seed);
      const auto c = safe_crop_window(r.plan.record, im.shape());
      EXPECT_LE(c[0], ux0);
      EXPECT_LE(c[1], uy0);
      EXPECT_GE(c[0] + c[2], ux1);
      EXPECT_GE(c[1] + c[3], uy1);
      cropped += c[2] < im.width() || c[3] < im.height();
      ASSERT_EQ(r.labels.objects.size(), d.labels.objects.size());
      for (std::size_t i = 0; i < d.labels.objects.size(); ++i) {
        const labels::Box& a = *d.labels.objects[i].box;
        const labels::Box& b = *r.labels.objects[i].box;
        EXPECT_NEAR(b.x0, a.x0 - c[0], 1e-6);
        EXPECT_NEAR(b.y1, a.y1 - c[1], 1e-6);
      }
    }
  }
  EXPECT_GT(cropped, 10);
}

TEST(BBoxSafeCrop, OutputIsTheWindowCutOrResizedByOpenCVOnThePhotographs) {
  std::size_t values = 0, differing = 0;
  for (const char* photo : testing::sampled(kSafeCropPhotos)) {
    const Image im = testing::sample_as(photo, DType::U8, 3);
    const lab::Drawn d = lab::draw_objects(im.clone(), 3, 4);
    for (const auto& [stage, code] : {std::pair<const char*, int>{R"({"stage": "bbox_safe_crop", "size": [200, 150]})", cv::INTER_LINEAR_EXACT},
                                      {R"({"stage": "bbox_safe_crop", "size": [300, 310], "interpolation": "nearest"})", cv::INTER_NEAREST},
                                      {R"({"stage": "bbox_safe_crop"})", -1}}) {
      const Pipeline p = testing::one_stage(stage);
      for (std::uint32_t copy = 0; copy < 3; ++copy) {
        const lab::Labelled r = lab::run_labelled(p, d, photo, copy);
        const auto c = safe_crop_window(r.plan.record, im.shape());
        const cv::Mat window = mat(d.image)(cv::Rect(c[0], c[1], c[2], c[3]));
        cv::Mat theirs;
        if (code < 0)
          window.copyTo(theirs);
        else
          cv::resize(window, theirs, cv::Size(r.image.width(), r.image.height()), 0, 0, code);
        const testing::Diff diff = compare(r.image, from_mat(theirs));
        EXPECT_EQ(diff.count, 0u) << photo << " " << stage << ": " << diff.str();
        values += r.image.shape().values();
        differing += diff.count;
      }
    }
  }
  std::printf("[ vs OpenCV ] bbox_safe_crop differing values: %zu of %zu\n", differing, values);
}

TEST(BBoxSafeCrop, EdgesAreUniformInTheRoomAroundTheUnionAsAlbumentationsDraws) {
  // 200 x 100, boxes whose union is (40, 20)-(120, 60): left = int(0.2 u1 200) uniform on 0..39,
  // top int(0.2 u2 100) on 0..19, right int((0.6 + 0.4 u3) 200) on 120..199, bottom on 60..99.
  const Shape s{200, 100, 3, DType::U8};
  const labels::ImageLabels l = boxes_only(200, 100, {{40, 30, 70, 60}, {90, 20, 120, 45}});
  const Pipeline p = testing::one_stage(R"({"stage": "bbox_safe_crop"})");
  std::vector<int> lefts, tops, rights, bottoms;
  for (int i = 0; i < 12000; ++i) {
    const auto c = safe_crop_window_of(p, s, "e" + std::to_string(i), &l);
    lefts.push_back(c[0]), tops.push_back(c[1]), rights.push_back(c[0] + c[2]), bottoms.push_back(c[1] + c[3]);
  }
  EXPECT_EQ(*std::max_element(lefts.begin(), lefts.end()), 39);
  EXPECT_EQ(*std::min_element(rights.begin(), rights.end()), 120);
  EXPECT_EQ(*std::max_element(rights.begin(), rights.end()), 199);
  // 99.9% quantiles of chi-square with 39, 19, 79, 39 degrees of freedom.
  EXPECT_LT(safe_crop_chi2(lefts, 0, 39), 72.1);
  EXPECT_LT(safe_crop_chi2(tops, 0, 19), 43.8);
  EXPECT_LT(safe_crop_chi2(rights, 120, 199), 124.8);
  EXPECT_LT(safe_crop_chi2(bottoms, 60, 99), 72.1);
}

TEST(BBoxSafeCrop, ErosionShrinksTheUnionOfSeveralBoxesButNotASingleOne) {
  const Shape s{200, 100, 1, DType::U8};
  const Pipeline p = testing::one_stage(R"({"stage": "bbox_safe_crop", "erosion_rate": 0.5})");
  // Union (40, 20)-(120, 60), eroded by 0.5 * 80 / 2 = 20 and 0.5 * 40 / 2 = 10: (60, 30)-(100, 50).
  const labels::ImageLabels two = boxes_only(200, 100, {{40, 30, 70, 60}, {90, 20, 120, 45}});
  const labels::ImageLabels one = boxes_only(200, 100, {{40, 20, 120, 60}});
  int max_left2 = 0, min_right2 = 1000, max_left1 = 0, min_right1 = 1000;
  for (int i = 0; i < 3000; ++i) {
    const auto a = safe_crop_window_of(p, s, "r" + std::to_string(i), &two);
    const auto b = safe_crop_window_of(p, s, "r" + std::to_string(i), &one);
    max_left2 = std::max(max_left2, a[0]), min_right2 = std::min(min_right2, a[0] + a[2]);
    max_left1 = std::max(max_left1, b[0]), min_right1 = std::min(min_right1, b[0] + b[2]);
    EXPECT_LE(a[1], 30);
    EXPECT_GE(a[1] + a[3], 50);
  }
  EXPECT_EQ(max_left2, 59);
  EXPECT_EQ(min_right2, 100);
  EXPECT_EQ(max_left1, 39);
  EXPECT_EQ(min_right1, 120);
}

TEST(BBoxSafeCrop, WithoutLabelsItCropsAsAlbumentationsDoesWithNoBoxes) {
  // Default: the whole image, bit for bit (with or without an empty label set).
  const Image im = testing::sample_as("astronaut.jpg", DType::U8, 3);
  const labels::ImageLabels none = boxes_only(im.width(), im.height(), {});
  const Pipeline whole = testing::one_stage(R"({"stage": "bbox_safe_crop"})");
  const auto cpu = make_cpu_backend(1);
  for (const labels::ImageLabels* l : {static_cast<const labels::ImageLabels*>(nullptr), &none}) {
    const Plan plan = whole.plan(1, "n.png", 0, im.shape(), DrawInputs{l, nullptr});
    EXPECT_EQ(compare(cpu->run(plan, im, 0), im).count, 0u);
  }
  // erosion_rate 0.5 on 200 x 100: height integer(50, 100), width int(h * 2), corner
  // int((H - h + 1) u), int((W - w + 1) v); the same draws with an empty label set.
  const Shape s{200, 100, 3, DType::U8};
  const Pipeline p = testing::one_stage(R"({"stage": "bbox_safe_crop", "erosion_rate": 0.5})");
  std::vector<int> heights, ys;
  for (int i = 0; i < 10000; ++i) {
    const auto c = safe_crop_window_of(p, s, "h" + std::to_string(i), nullptr);
    ASSERT_EQ(c[2], 2 * c[3]);
    ASSERT_LE(c[1] + c[3], 100);
    ASSERT_LE(c[0] + c[2], 200);
    heights.push_back(c[3]);
    if (c[3] == 60) ys.push_back(c[1]);
    if (i < 200) {
      EXPECT_EQ(safe_crop_window_of(p, s, "h" + std::to_string(i), &none), c);
    }
  }
  EXPECT_LT(safe_crop_chi2(heights, 50, 100), 86.7);  // 50 degrees of freedom, 99.9%
  EXPECT_LT(safe_crop_chi2(ys, 0, 40), 73.4);         // 40 degrees of freedom, 99.9%
  // A pipeline run without labels at all (resolve) draws the same.
  EXPECT_EQ(safe_crop_window(p.plan(5, "h7", 0, s).record, s), safe_crop_window_of(p, s, "h7", nullptr));
}

TEST(BBoxSafeCrop, ImportsBothAlbumentationsTransforms) {
  const auto import_one = [](const std::string& transform) {
    const std::string text = R"({"__version__": "x", "transform": {"__class_fullname__": "Compose", "p": 1.0, "transforms": [)" +
                             transform + "]}}";
    return import_albumentations(nlohmann::json::parse(text), "t.json").pipeline["stages"][0];
  };
  const auto a = import_one(R"({"__class_fullname__": "BBoxSafeRandomCrop", "erosion_rate": 0.2, "p": 1.0})");
  EXPECT_EQ(a["stage"], "bbox_safe_crop");
  EXPECT_EQ(a["erosion_rate"], 0.2);
  EXPECT_FALSE(a.contains("size"));
  const auto v1 = import_one(R"({"__class_fullname__": "RandomSizedBBoxSafeCrop", "height": 300, "width": 400, "erosion_rate": 0.0, "interpolation": 0, "always_apply": false, "p": 1.0})");
  EXPECT_EQ(v1["stage"], "bbox_safe_crop");
  EXPECT_EQ(v1["size"], nlohmann::json::parse("[400, 300]"));
  EXPECT_EQ(v1["interpolation"], "nearest");
  const auto v2 = import_one(R"({"__class_fullname__": "albumentations.augmentations.crops.transforms.RandomSizedBBoxSafeCrop", "height": 224, "width": 256, "erosion_rate": 0.1, "interpolation": 1, "mask_interpolation": 0, "p": 1.0})");
  EXPECT_EQ(v2["size"], nlohmann::json::parse("[256, 224]"));
  EXPECT_EQ(v2["interpolation"], "bilinear");
  EXPECT_EQ(v2["erosion_rate"], 0.1);
}

TEST(BBoxSafeCrop, ErrorsNameTheParameter) {
  testing::geometry::expect_errors_name_the_parameter({
      {R"({"stage": "bbox_safe_crop", "erosion_rate": 1.5})", "erosion_rate"},
      {R"({"stage": "bbox_safe_crop", "erosion_rate": -0.1})", "erosion_rate"},
      {R"({"stage": "bbox_safe_crop", "size": [0, 5]})", "size"},
  });
}

}  // namespace
}  // namespace aug::test_bbox_safe_crop
