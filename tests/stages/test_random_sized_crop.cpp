// random_sized_crop: the window follows Albumentations' RandomSizedCrop (height drawn from
// min_max_height, width int(height * w2h_ratio), corner int((H - h + 1) * u)) and the output is the
// window resized by cv::resize on the corpus photographs; the draws are uniform (chi-square tests that
// can fail); a window larger than the image is clipped to it; the importer reads 1.x and 2.x.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_random_sized_crop {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;

// {x, y, w, h} of the resolved window (the whole image when the manifest records no crop).
std::array<int, 4> sized_crop_window(const Pipeline& p, const Shape& s, const std::string& key) {
  const nlohmann::json m = p.plan(5, key, 0, s).record[0]["params"];
  if (!m.contains("crop")) return {0, 0, s.width, s.height};
  return m.at("crop").get<std::array<int, 4>>();
}

// Pearson's chi-square of integer draws against the uniform distribution on [lo, hi].
double sized_crop_chi2(const std::vector<int>& v, int lo, int hi) {
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

TEST(RandomSizedCrop, OutputIsTheWindowResizedByOpenCVOnThePhotographs) {
  // 0 differing 8-bit values: bilinear is cv::resize(INTER_LINEAR_EXACT), nearest cv::resize(INTER_NEAREST).
  std::size_t values = 0, differing = 0;
  for (const char* photo : {"astronaut.jpg", "camera.png", "coffee_rgba.png", "chelsea.png"}) {
    const Image im = testing::sample(photo);
    for (const auto& [interp, code] : {std::pair{"bilinear", cv::INTER_LINEAR_EXACT}, {"nearest", cv::INTER_NEAREST}}) {
      const Pipeline p = testing::one_stage(
          std::string(R"({"stage": "random_sized_crop", "min_max_height": [50, 250], "size": [120, 90], "w2h_ratio": 1.3, "interpolation": ")") +
          interp + "\"}");
      for (int i = 0; i < 6; ++i) {
        const testing::Both b = testing::run_both(p, im, std::string(photo) + std::to_string(i));
        EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << photo << " cpu vs cuda-emulated";
        const auto c = b.plan.record[0]["params"]["crop"].get<std::array<int, 4>>();
        const int x = c[0], y = c[1], w = c[2], h = c[3];
        EXPECT_GE(h, 50);
        EXPECT_LE(h, 250);
        EXPECT_EQ(w, static_cast<int>(h * 1.3));
        EXPECT_GE(x, 0);
        EXPECT_GE(y, 0);
        EXPECT_LE(x + w, im.width());
        EXPECT_LE(y + h, im.height());
        cv::Mat theirs;
        cv::resize(mat(im)(cv::Rect(x, y, w, h)), theirs, cv::Size(120, 90), 0, 0, code);
        const testing::Diff d = compare(b.cpu, from_mat(theirs));
        EXPECT_EQ(d.count, 0u) << photo << " " << interp << ": " << d.str();
        values += b.cpu.shape().values();
        differing += d.count;
      }
    }
  }
  std::printf("[ vs OpenCV ] random_sized_crop differing values: %zu of %zu\n", differing, values);
}

TEST(RandomSizedCrop, HeightsAndCornersAreUniformAsAlbumentationsDraws) {
  // Heights: integer(10, 19), each of the 10 equally likely (chi-square, 9 degrees of freedom: 27.9
  // is its 99.9% quantile).
  const Shape shape{200, 100, 3, DType::U8};
  const Pipeline p = testing::one_stage(R"({"stage": "random_sized_crop", "min_max_height": [10, 19], "size": [8, 8], "w2h_ratio": 2.5})");
  std::vector<int> heights;
  for (int i = 0; i < 4000; ++i) {
    const auto c = sized_crop_window(p, shape, "h" + std::to_string(i));
    heights.push_back(c[3]);
    ASSERT_EQ(c[2], static_cast<int>(c[3] * 2.5));
  }
  EXPECT_LT(sized_crop_chi2(heights, 10, 19), 27.9);
  // Corners of a 40-high, 30-wide window: y = int(61 u) is uniform on 0..60, x = int(171 v) on 0..170
  // (chi-square with 60 and 170 degrees of freedom; 99.6 and 230 are their 99.9% quantiles).
  const Pipeline q = testing::one_stage(R"({"stage": "random_sized_crop", "min_max_height": 40, "size": [8, 8], "w2h_ratio": 0.75})");
  std::vector<int> ys, xs;
  for (int i = 0; i < 20000; ++i) {
    const auto c = sized_crop_window(q, shape, "c" + std::to_string(i));
    ASSERT_EQ(c[2], 30);
    ASSERT_EQ(c[3], 40);
    xs.push_back(c[0]);
    ys.push_back(c[1]);
  }
  EXPECT_EQ(*std::max_element(ys.begin(), ys.end()), 60);
  EXPECT_EQ(*std::max_element(xs.begin(), xs.end()), 170);
  EXPECT_LT(sized_crop_chi2(ys, 0, 60), 99.6);
  EXPECT_LT(sized_crop_chi2(xs, 0, 170), 230);
}

TEST(RandomSizedCrop, AWindowLargerThanTheImageIsClippedToIt) {
  // Albumentations 2.x clips the crop to the image: height min(h, H), width min(int(h * r), W).
  const Pipeline p = testing::one_stage(R"({"stage": "random_sized_crop", "min_max_height": [150, 160], "size": [20, 20], "w2h_ratio": 0.5})");
  const auto c = sized_crop_window(p, Shape{60, 100, 1, DType::U8}, "big");
  EXPECT_EQ(c[3], 100);
  EXPECT_GE(c[2], 60);  // int(150 * 0.5) = 75 > 60: the full width
  EXPECT_EQ(c[2], 60);
  EXPECT_EQ(c[0], 0);
  EXPECT_EQ(c[1], 0);
}

TEST(RandomSizedCrop, ImportsAlbumentations1xAnd2x) {
  const auto import_one = [](const std::string& transform) {
    const std::string text = R"({"__version__": "x", "transform": {"__class_fullname__": "Compose", "p": 1.0, "transforms": [)" +
                             transform + "]}}";
    return import_albumentations(nlohmann::json::parse(text), "t.json").pipeline["stages"][0];
  };
  const auto v1 = import_one(R"({"__class_fullname__": "RandomSizedCrop", "min_max_height": [500, 720], "height": 1080, "width": 1920, "w2h_ratio": 1.0, "interpolation": 0, "p": 0.5})");
  EXPECT_EQ(v1["stage"], "random_sized_crop");
  EXPECT_EQ(v1["min_max_height"], nlohmann::json::parse("[500, 720]"));
  EXPECT_EQ(v1["size"], nlohmann::json::parse("[1920, 1080]"));
  EXPECT_EQ(v1["interpolation"], "nearest");
  const auto v2 = import_one(R"({"__class_fullname__": "RandomSizedCrop", "min_max_height": [50, 101], "size": [224, 200], "w2h_ratio": 0.5})");
  EXPECT_EQ(v2["size"], nlohmann::json::parse("[200, 224]"));
  EXPECT_EQ(v2["w2h_ratio"], 0.5);
  EXPECT_EQ(v2["interpolation"], "bilinear");
}

TEST(RandomSizedCrop, ErrorsNameTheParameter) {
  testing::geometry::expect_errors_name_the_parameter({
      {R"({"stage": "random_sized_crop", "size": [5, 5]})", "min_max_height"},
      {R"({"stage": "random_sized_crop", "min_max_height": [9, 3], "size": [5, 5]})", "min_max_height"},
      {R"({"stage": "random_sized_crop", "min_max_height": [3, 9]})", "size"},
      {R"({"stage": "random_sized_crop", "min_max_height": [3, 9], "size": [5, 5], "w2h_ratio": 0})", "w2h_ratio"},
  });
}

}  // namespace
}  // namespace aug::test_random_sized_crop
