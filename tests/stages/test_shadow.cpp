// shadow: Albumentations 2.x's RandomShadow written out with OpenCV (cv::fillPoly per polygon, the
// covered values multiplied in double and truncated) against both backends on the sample
// photographs; the recorded polygons and intensities against the draws written out from
// Albumentations' definition, and their distribution; 16-bit and float images against the formula;
// the import of RandomShadow (1.x and 2.x).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/core/rng.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_shadow {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::one_stage;
using testing::run_both;
using testing::noise::stream_of;

struct DrawnShadow {
  std::vector<cv::Point> vertices;
  double intensity = 0;
};

std::vector<DrawnShadow> recorded(const Plan& plan) {
  std::vector<DrawnShadow> out;
  for (const auto& s : plan.record[0]["params"]["shadows"]) {
    DrawnShadow d;
    for (const auto& v : s["vertices"]) d.vertices.emplace_back(v[0].get<int>(), v[1].get<int>());
    d.intensity = s["intensity"].get<double>();
    out.push_back(d);
  }
  return out;
}

// Albumentations 2.x's draw with the stage's generator: n, then per polygon its x then its y
// (numpy's integers: exclusive high), then one intensity per polygon.
std::vector<DrawnShadow> draw_reference(Draws& d, int W, int H, std::array<double, 4> roi, std::int64_t n0,
                                        std::int64_t n1, int dim, double i0, double i1) {
  const auto x0 = static_cast<std::int64_t>(roi[0] * W), y0 = static_cast<std::int64_t>(roi[1] * H);
  const auto x1 = static_cast<std::int64_t>(roi[2] * W), y1 = static_cast<std::int64_t>(roi[3] * H);
  std::vector<DrawnShadow> out(static_cast<std::size_t>(d.integer(n0, n1)));
  for (DrawnShadow& s : out) {
    std::vector<int> xs, ys;
    for (int i = 0; i < dim; ++i) xs.push_back(static_cast<int>(d.integer(x0, x1 - 1)));
    for (int i = 0; i < dim; ++i) ys.push_back(static_cast<int>(d.integer(y0, y1 - 1)));
    for (int i = 0; i < dim; ++i) s.vertices.emplace_back(xs[i], ys[i]);
  }
  for (DrawnShadow& s : out) s.intensity = i0 == i1 ? i0 : d.uniform(i0, i1);
  return out;
}

// Albumentations 2.x's add_shadow on 8-bit images, step by step with OpenCV and plain loops.
cv::Mat shadow_reference(const cv::Mat& src, const std::vector<DrawnShadow>& shadows) {
  cv::Mat img = src.clone();
  for (const DrawnShadow& s : shadows) {
    cv::Mat mask = cv::Mat::zeros(img.rows, img.cols, CV_8U);
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{s.vertices}, cv::Scalar(255));
    const double darkness = 1 - s.intensity;
    for (int y = 0; y < img.rows; ++y)
      for (int x = 0; x < img.cols; ++x) {
        if (mask.at<std::uint8_t>(y, x) != 255) continue;
        std::uint8_t* p = img.ptr<std::uint8_t>(y) + x * img.channels();
        for (int c = 0; c < img.channels(); ++c)
          p[c] = static_cast<std::uint8_t>(std::clamp(p[c] * darkness, 0.0, 255.0));
      }
  }
  return img;
}

TEST(Shadow, EightBitPhotographsEqualTheOpenCVSteps) {
  const char* configs[] = {
      R"({"stage": "shadow", "p": 1})",
      R"({"stage": "shadow", "p": 1, "num_shadows": [3, 8], "shadow_roi": [0, 0, 1, 1], "shadow_dimension": 9, )"
      R"("shadow_intensity": [0.1, 0.95]})",
      R"({"stage": "shadow", "p": 1, "num_shadows": 16, "shadow_roi": [0.2, 0.1, 0.7, 0.9], "shadow_dimension": 3, )"
      R"("shadow_intensity": [0.3, 1]})"};
  std::size_t shaded = 0;
  for (const char* name : {"astronaut.jpg", "chelsea.png", "coffee.png", "rocket.jpg", "camera.png"})
    for (int channels : {1, 3})
      for (const char* config : configs)
        for (int copy = 0; copy < 3; ++copy) {
          SCOPED_TRACE(std::string(name) + " " + std::to_string(channels) + " " + config + " " + std::to_string(copy));
          const Image in = testing::sample_as(name, DType::U8, channels);
          const testing::Both b = run_both(one_stage(config), in, name, static_cast<std::uint32_t>(copy));
          const auto shadows = recorded(b.plan);
          ASSERT_FALSE(shadows.empty());
          const Image want = from_mat(shadow_reference(mat(in), shadows));
          EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
          EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
          shaded += compare(in, want).count;
        }
  EXPECT_GT(shaded, 100000u);  // the shadows darkened something
}

TEST(Shadow, DrawsFollowAlbumentationsDefinition) {
  const Pipeline def = one_stage(R"({"stage": "shadow", "p": 1})");
  const Pipeline wide = one_stage(R"({"stage": "shadow", "p": 1, "num_shadows": [2, 5], "shadow_roi": [0.1, 0.2, 0.6, 1], )"
                                  R"("shadow_dimension": 4, "shadow_intensity": [0.2, 0.8]})");
  std::map<std::int64_t, int> counts;
  std::vector<double> xs, intensities;
  int x_lo = 1 << 30, x_hi = -1;
  for (int i = 0; i < 1500; ++i) {
    const int W = 40 + i % 53, H = 20 + i % 37;
    const std::string key = "s" + std::to_string(i);
    {
      Draws d(stream_of(key));
      const auto got = recorded(def.plan(11, key, 0, {W, H, 3, DType::U8}));
      const auto want = draw_reference(d, W, H, {0, 0.5, 1, 1}, 1, 2, 5, 0.5, 0.5);
      ASSERT_EQ(got.size(), want.size()) << key;
      for (std::size_t k = 0; k < got.size(); ++k) {
        ASSERT_EQ(got[k].vertices, want[k].vertices) << key;
        ASSERT_EQ(got[k].intensity, 0.5);
      }
    }
    Draws d(stream_of(key));
    const auto got = recorded(wide.plan(11, key, 0, {W, H, 3, DType::U8}));
    const auto want = draw_reference(d, W, H, {0.1, 0.2, 0.6, 1}, 2, 5, 4, 0.2, 0.8);
    ASSERT_EQ(got.size(), want.size()) << key;
    ++counts[static_cast<std::int64_t>(got.size())];
    const int x0 = static_cast<int>(0.1 * W), x1 = static_cast<int>(0.6 * W);
    for (std::size_t k = 0; k < got.size(); ++k) {
      ASSERT_EQ(got[k].vertices, want[k].vertices) << key;
      ASSERT_EQ(got[k].intensity, want[k].intensity) << key;
      intensities.push_back(got[k].intensity);
      for (const cv::Point& p : got[k].vertices) {
        ASSERT_TRUE(p.x >= x0 && p.x < x1 && p.y >= static_cast<int>(0.2 * H) && p.y < H) << key;
        x_lo = std::min(x_lo, p.x - x0);
        x_hi = std::max(x_hi, p.x - x1);
        if (W == 92) xs.push_back((p.x - x0 + 0.5) / (x1 - x0));  // one width: 9..54, 46 columns
      }
    }
  }
  EXPECT_EQ(x_lo, 0);   // the region's first column is drawn
  EXPECT_EQ(x_hi, -1);  // its last is x1 - 1 (exclusive high)
  for (int n = 2; n <= 5; ++n) EXPECT_NEAR(counts[n] / 1500.0, 0.25, 0.04) << n;
  EXPECT_LT(testing::ks_uniform(intensities, 0.2, 0.8), 1.36 / std::sqrt(static_cast<double>(intensities.size())));
  EXPECT_LT(testing::ks_uniform(xs, 0, 1), 1.36 / std::sqrt(static_cast<double>(xs.size())) + 0.5 / 46);
}

TEST(Shadow, SixteenBitAndFloatFollowTheFormula) {
  for (DType t : {DType::U16, DType::F32}) {
    const Image in = testing::random_image({61, 47, 4, t}, 9);
    const testing::Both b =
        run_both(one_stage(R"({"stage": "shadow", "p": 1, "num_shadows": [4, 6], "shadow_roi": [0, 0, 1, 1], )"
                           R"("shadow_intensity": [0.1, 0.9]})"),
                 in);
    ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
    const auto shadows = recorded(b.plan);
    std::vector<cv::Mat> masks;
    for (const DrawnShadow& s : shadows) {
      masks.push_back(cv::Mat::zeros(47, 61, CV_8U));
      cv::fillPoly(masks.back(), std::vector<std::vector<cv::Point>>{s.vertices}, cv::Scalar(255));
    }
    const cv::Mat src = mat(in), got = mat(b.cpu);
    std::size_t changed = 0;
    for (int y = 0; y < 47; ++y)
      for (int x = 0; x < 61; ++x)
        for (int c = 0; c < 4; ++c) {
          double v = t == DType::U16 ? src.at<cv::Vec<std::uint16_t, 4>>(y, x)[c] : src.at<cv::Vec4f>(y, x)[c];
          if (c < 3)
            for (std::size_t k = 0; k < shadows.size(); ++k) {
              if (!masks[k].at<std::uint8_t>(y, x)) continue;
              v = v * (1 - shadows[k].intensity);
              v = t == DType::U16 ? std::trunc(std::clamp(v, 0.0, 65535.0))
                                  : std::clamp(static_cast<double>(static_cast<float>(v)), 0.0, 1.0);
            }
          const double g = t == DType::U16 ? got.at<cv::Vec<std::uint16_t, 4>>(y, x)[c] : got.at<cv::Vec4f>(y, x)[c];
          ASSERT_EQ(g, v) << x << "," << y << "," << c;
          changed += g != (t == DType::U16 ? src.at<cv::Vec<std::uint16_t, 4>>(y, x)[c] : src.at<cv::Vec4f>(y, x)[c]);
        }
    EXPECT_GT(changed, 500u);
  }
}

TEST(Shadow, ImportsRandomShadowOfBothVersions) {
  auto import_one = [](const std::string& version, const std::string& transform) {
    const nlohmann::json saved = nlohmann::json::parse(R"({"__version__": ")" + version +
                                                       R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" +
                                                       transform + "]}}");
    return import_albumentations(saved, "a.json");
  };
  const Imported two = import_one("2.0.8", R"({"__class_fullname__": "RandomShadow", "shadow_roi": [0, 0.25, 1, 1], )"
                                           R"("num_shadows_limit": [2, 4], "shadow_dimension": 6, )"
                                           R"("shadow_intensity_range": [0.3, 0.6], "p": 0.7})");
  const auto& s = two.pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "shadow");
  EXPECT_EQ(s["num_shadows"], nlohmann::ordered_json::array({2, 4}));
  EXPECT_EQ(s["shadow_roi"], nlohmann::ordered_json::array({0, 0.25, 1, 1}));
  EXPECT_EQ(s["shadow_dimension"], 6);
  EXPECT_EQ(s["shadow_intensity"], nlohmann::ordered_json::array({0.3, 0.6}));
  EXPECT_EQ(s["p"], 0.7);
  EXPECT_TRUE(two.notes.empty());
  const Imported one = import_one("1.3.1", R"({"__class_fullname__": "RandomShadow", "shadow_roi": [0, 0.5, 1, 1], )"
                                           R"("num_shadows_lower": 1, "num_shadows_upper": 3, "shadow_dimension": 5, "p": 1})");
  const auto& o = one.pipeline["stages"][0];
  EXPECT_EQ(o["num_shadows"], nlohmann::ordered_json::array({1, 3}));
  EXPECT_FALSE(o.contains("shadow_intensity"));
  ASSERT_EQ(one.notes.size(), 1u);
  EXPECT_NE(one.notes[0].find("HLS"), std::string::npos) << one.notes[0];
  const Pipeline p = Pipeline::parse(two.pipeline.dump(), "shadow");
  EXPECT_NO_THROW(p.plan(3, "a.png", 0, Shape{64, 48, 3, DType::U8}));
}

TEST(Shadow, RejectsABackwardRegionAndDefaultsToHalf) {
  EXPECT_ANY_THROW(one_stage(R"({"stage": "shadow", "shadow_roi": [0.6, 0, 0.5, 1]})"));
  EXPECT_ANY_THROW(one_stage(R"({"stage": "shadow", "shadow_roi": [0, 0, 1]})"));
  EXPECT_ANY_THROW(one_stage(R"({"stage": "shadow", "shadow_roi": [0, 0, 1.01, 1]})"));
  EXPECT_ANY_THROW(one_stage(R"({"stage": "shadow", "shadow_roi": [-0.1, 0, 1, 1]})"));
  EXPECT_ANY_THROW(one_stage(R"({"stage": "shadow", "num_shadows": [1, 17]})"));
  const Pipeline p = one_stage(R"({"stage": "shadow"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i)
    applied += p.plan(11, std::to_string(i), 0, {32, 32, 3, DType::U8}).steps[0].op != nullptr;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
}

}  // namespace
}  // namespace aug::test_shadow
