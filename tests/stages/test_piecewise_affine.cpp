// piecewise_affine: the output equals cv::remap with maps rebuilt from the recorded grid and jitter
// by a plain per-pixel transcription of Albumentations 2.x's create_piecewise_affine_maps, the
// jitter is normal with Albumentations' deviation, the counts are drawn uniformly, and errors name
// the parameter. Parity, bounds and the catalog cases come from the declaration (test_catalog.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_piecewise_affine {
namespace {

using nlohmann::json;
using testing::from_mat;
using testing::mat;
using testing::geometry::cv_border;
using testing::geometry::cv_interp;
using testing::geometry::plan_params;
using testing::geometry::run_stage;

// np.sum of a float32 array: numpy's pairwise summation.
float np_sum(const float* a, std::size_t n) {
  if (n < 8) {
    float s = 0.f;
    for (std::size_t i = 0; i < n; ++i) s += a[i];
    return s;
  }
  if (n <= 128) {
    float r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    float s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) s += a[i];
    return s;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return np_sum(a, n2) + np_sum(a + n2, n - n2);
}

// create_piecewise_affine_maps, pixel by pixel as the Python reads.
void reference_maps(int w, int h, int rows, int cols, const std::vector<float>& jitter, cv::Mat& mx, cv::Mat& my) {
  std::vector<float> y(static_cast<std::size_t>(rows)), x(static_cast<std::size_t>(cols));
  for (int r = 0; r < rows; ++r) y[r] = static_cast<float>(r == rows - 1 ? h - 1.0 : r * ((h - 1.0) / (rows - 1)));
  for (int c = 0; c < cols; ++c) x[c] = static_cast<float>(c == cols - 1 ? w - 1.0 : c * ((w - 1.0) / (cols - 1)));
  const std::size_t n = static_cast<std::size_t>(rows * cols);
  std::vector<float> src_x(n), src_y(n), dst_x(n), dst_y(n);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const std::size_t k = static_cast<std::size_t>(r * cols + c);
      src_x[k] = x[c];
      src_y[k] = y[r];
      dst_y[k] = std::min(std::max(y[r] + jitter[2 * k], 0.f), static_cast<float>(h - 1));
      dst_x[k] = std::min(std::max(x[c] + jitter[2 * k + 1], 0.f), static_cast<float>(w - 1));
    }
  mx.create(h, w, CV_32F);
  my.create(h, w, CV_32F);
  std::vector<float> wt(n), t(n);
  for (int i = 0; i < h; ++i)
    for (int j = 0; j < w; ++j) {
      for (std::size_t k = 0; k < n; ++k) {
        const float dx = static_cast<float>(j) - src_x[k], dy = static_cast<float>(i) - src_y[k];
        const float dist = dx * dx + dy * dy;
        wt[k] = 1.f / (dist + 1e-8f);
      }
      const float s = np_sum(wt.data(), n);
      for (float& v : wt) v /= s;
      for (std::size_t k = 0; k < n; ++k) t[k] = wt[k] * dst_x[k];
      mx.at<float>(i, j) = std::min(std::max(np_sum(t.data(), n), 0.f), static_cast<float>(w - 1));
      for (std::size_t k = 0; k < n; ++k) t[k] = wt[k] * dst_y[k];
      my.at<float>(i, j) = std::min(std::max(np_sum(t.data(), n), 0.f), static_cast<float>(h - 1));
    }
}

Image reference(const Image& in, const json& m) {
  cv::Mat mx, my;
  reference_maps(in.shape().width, in.shape().height, m.at("rows").get<int>(), m.at("cols").get<int>(),
                 m.at("jitter").get<std::vector<float>>(), mx, my);
  return testing::geometry::remap_from_manifest(in, m, mx, my);
}

TEST(PiecewiseAffine, EqualsRemapWithAlbumentationsMapsOnPhotographs) {
  const auto photos = testing::sampled({"astronaut.jpg", "camera.png", "coffee_rgba.png", "chelsea.png"}, 2);
  std::size_t values = 0, diff = 0;
  for (const char* body : {R"("scale": [0.03, 0.05])", R"("scale": [0.05, 0.1], "nb_rows": [2, 5], "nb_cols": [3, 6])",
                           R"("scale": 6, "absolute_scale": true, "nb_rows": 9, "nb_cols": 12)"})
    for (const char* interp : {"nearest", "bilinear", "bicubic"})
      for (const char* border : {"constant", "replicate", "reflect101"}) {
        const Pipeline p = testing::one_stage(std::string(R"({"stage": "piecewise_affine", "p": 1, )") + body +
                                              R"(, "interpolation": ")" + interp + R"(", "border": ")" + border +
                                              R"(", "fill": [17, 200, 3, 99]})");
        std::uint32_t copy = 0;
        for (const char* photo : photos) {
          const Image in = testing::sample(photo);
          const auto r = run_stage(p, in, photo, copy++);
          const Image ref = reference(in, r.params);
          const testing::Diff d = testing::compare(r.out, ref);
          EXPECT_EQ(d.count, 0u) << body << " " << interp << " " << border << " " << photo << ": " << d.str();
          values += ref.shape().values();
          diff += d.count;
        }
      }
  std::printf("[ vs OpenCV ] piecewise_affine: cv::remap with Albumentations' maps, differing values: %zu of %zu\n",
              diff, values);
}

TEST(PiecewiseAffine, ManyControlPointsUseTheSplitPairwiseSum) {
  // 12 x 12 = 144 points: numpy's pairwise sum splits above 128 terms.
  const Pipeline p = testing::one_stage(
      R"({"stage": "piecewise_affine", "p": 1, "scale": 0.08, "nb_rows": 12, "nb_cols": 12, "border": "reflect"})");
  const Image in = testing::sample("camera.png");
  const auto r = run_stage(p, in, "camera.png");
  EXPECT_EQ(testing::compare(r.out, reference(in, r.params)).count, 0u);
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

TEST(PiecewiseAffine, JitterIsNormalWithAlbumentationsDeviation) {
  const Shape s{300, 120, 3, DType::U8};
  for (const bool absolute : {false, true}) {
    const Pipeline p = testing::one_stage(std::string(R"({"stage": "piecewise_affine", "p": 1, "scale": [0.02, 0.09], "absolute_scale": )") +
                                          (absolute ? "true" : "false") + "}");
    std::vector<double> z, scales;
    for (int i = 0; i < 300; ++i) {
      const json m = plan_params(p, s, "j" + std::to_string(i));
      const double sc = m.at("scale").get<double>();
      scales.push_back(sc);
      const double sigma = absolute ? sc / 3 : sc * 120 / 3;
      ASSERT_EQ(m.at("jitter").size(), 2u * 16u);
      for (const auto& v : m.at("jitter")) z.push_back(v.get<double>() / sigma);
    }
    // Kolmogorov-Smirnov against N(0, 1) at the 0.1% level.
    std::sort(z.begin(), z.end());
    const double n = static_cast<double>(z.size());
    double d = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
      const double f = normal_cdf(z[i]);
      d = std::max({d, f - i / n, (i + 1) / n - f});
    }
    EXPECT_LT(d, 1.95 / std::sqrt(n)) << absolute;
    EXPECT_LT(testing::ks_uniform(scales, 0.02, 0.09), 1.95 / std::sqrt(300.0));
  }
}

TEST(PiecewiseAffine, CountsAreDrawnUniformlyWithBothEnds) {
  const Pipeline p = testing::one_stage(R"({"stage": "piecewise_affine", "p": 1, "nb_rows": [2, 4], "nb_cols": [3, 5]})");
  std::map<int, int> rows, cols;
  const int n = 900;
  for (int i = 0; i < n; ++i) {
    const json m = plan_params(p, Shape{64, 48, 1, DType::U8}, "c" + std::to_string(i));
    ++rows[m.at("rows").get<int>()];
    ++cols[m.at("cols").get<int>()];
    EXPECT_EQ(m.at("jitter").size(), 2u * m.at("rows").get<std::size_t>() * m.at("cols").get<std::size_t>());
  }
  ASSERT_EQ(rows.size(), 3u);
  ASSERT_EQ(cols.size(), 3u);
  // Each of 3 values: 300 expected, binomial sd ~14; 5 sd.
  for (int v = 2; v <= 4; ++v) EXPECT_NEAR(rows[v], n / 3, 71) << v;
  for (int v = 3; v <= 5; ++v) EXPECT_NEAR(cols[v], n / 3, 71) << v;
}

TEST(PiecewiseAffine, ErrorsNameTheParameter) {
  testing::geometry::expect_errors_name_the_parameter(
      {{R"({"stage": "piecewise_affine", "p": 1, "nb_rows": 1})", "nb_rows"},
       {R"({"stage": "piecewise_affine", "p": 1, "nb_cols": [1, 3]})", "nb_cols"},
       {R"({"stage": "piecewise_affine", "p": 1, "scale": 0})", "scale"},
       {R"({"stage": "piecewise_affine", "p": 1, "interpolation": "area"})", "interpolation"}});
}

}  // namespace
}  // namespace aug::test_piecewise_affine
