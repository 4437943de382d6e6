// elastic_transform: the output equals cv::remap with maps rebuilt by a plain transcription of
// Albumentations 2.x's ElasticTransform field (noise, max normalisation, one stacked
// cv::GaussianBlur, times alpha) from the stage's keyed noise; the noise is standard normal or
// U(-1, 1); the displacement's variance is the blurred noise's; errors name the parameter. Parity,
// bounds and the catalog cases come from the declaration (test_catalog.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/core/philox.hpp"
#include "kernels/noise/normal.hpp"
#include "lib/core/rng.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_elastic_transform {
namespace {

using nlohmann::json;
using testing::from_mat;
using testing::mat;
using testing::geometry::cv_border;
using testing::geometry::cv_interp;
using testing::geometry::run_stage;

// The stage's noise: block i = y W + x of sub-stream 1 of its keyed stream (seed 5 as run_stage
// plans; position 1, after the root sequence), word 0 for x, word 1 for y.
cv::Mat noise_fields(const std::string& key, std::uint32_t copy, int w, int h, bool gaussian, bool same) {
  const k::KeyedStream s = keyed_stream(5, key, copy, 1);
  const int fields = same ? 1 : 2;
  cv::Mat n(fields * h, w, CV_32F);
  for (int f = 0; f < fields; ++f)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const k::Philox4x32 b = s.block(static_cast<std::uint32_t>(y * w + x), 1);
        n.at<float>(f * h + y, x) = gaussian ? k::standard_normal(b.v[f], normal_table().data())
                                             : 2.f * k::uniform01f(b.v[f]) - 1.f;
      }
  return n;
}

// Albumentations' generate_displacement_fields + the identity grid, as its Python reads.
Image reference(const Image& in, const json& m, const std::string& key, std::uint32_t copy) {
  const int w = in.shape().width, h = in.shape().height;
  const bool gaussian = m.at("noise_distribution") == "gaussian", same = m.at("same_dxdy").get<bool>();
  cv::Mat noise = noise_fields(key, copy, w, h, gaussian, same);
  if (gaussian) {
    float peak = 0.f;
    for (int y = 0; y < noise.rows; ++y)
      for (int x = 0; x < w; ++x) peak = std::max(peak, std::abs(noise.at<float>(y, x)));
    if (peak > 1e-6f)
      for (int y = 0; y < noise.rows; ++y)
        for (int x = 0; x < w; ++x) noise.at<float>(y, x) /= peak;
  }
  const int ks = m.at("approximate").get<bool>() ? 17 : 0;
  const double sigma = m.at("sigma").get<double>();
  cv::Mat blurred;
  cv::GaussianBlur(noise, blurred, cv::Size(ks, ks), sigma, sigma, cv::BORDER_REPLICATE);
  const float alpha = static_cast<float>(m.at("alpha").get<double>());
  cv::Mat mx(h, w, CV_32F), my(h, w, CV_32F);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float dx = blurred.at<float>(y, x) * alpha;
      const float dy = blurred.at<float>(same ? y : h + y, x) * alpha;
      mx.at<float>(y, x) = static_cast<float>(x) + dx;
      my.at<float>(y, x) = static_cast<float>(y) + dy;
    }
  return testing::geometry::remap_from_manifest(in, m, mx, my);
}

TEST(ElasticTransform, EqualsRemapWithAlbumentationsFieldOnPhotographs) {
  const auto photos = testing::sampled({"astronaut.jpg", "camera.png", "coffee_rgba.png", "chelsea.png"}, 2);
  std::size_t values = 0, diff = 0;
  for (const char* body : {R"("alpha": 1, "sigma": 50)", R"("alpha": 120, "sigma": 6)",
                           R"("alpha": 40, "sigma": 4, "approximate": true, "same_dxdy": true)",
                           R"("alpha": 60, "sigma": 5, "noise_distribution": "uniform")"})
    for (const char* interp : {"nearest", "bilinear", "bicubic"})
      for (const char* border : {"constant", "reflect101", "wrap"}) {
        const Pipeline p = testing::one_stage(std::string(R"({"stage": "elastic_transform", "p": 1, )") + body +
                                              R"(, "interpolation": ")" + interp + R"(", "border": ")" + border +
                                              R"(", "fill": [17, 200, 3, 99]})");
        std::uint32_t copy = 0;
        for (const char* photo : photos) {
          const Image in = testing::sample(photo);
          const auto r = run_stage(p, in, photo, copy);
          const Image ref = reference(in, r.params, photo, copy);
          ++copy;
          const testing::Diff d = testing::compare(r.out, ref);
          EXPECT_EQ(d.count, 0u) << body << " " << interp << " " << border << " " << photo << ": " << d.str();
          values += ref.shape().values();
          diff += d.count;
        }
      }
  std::printf("[ vs OpenCV ] elastic_transform: cv::remap with Albumentations' field, differing values: %zu of %zu\n",
              diff, values);
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

TEST(ElasticTransform, NoiseIsStandardNormalOrUniform) {
  const cv::Mat g = noise_fields("n.png", 3, 160, 90, true, false);
  std::vector<double> z(g.begin<float>(), g.end<float>());
  std::sort(z.begin(), z.end());
  const double n = static_cast<double>(z.size());
  double d = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    const double f = normal_cdf(z[i]);
    d = std::max({d, f - i / n, (i + 1) / n - f});
  }
  EXPECT_LT(d, 1.95 / std::sqrt(n));
  const cv::Mat u = noise_fields("n.png", 3, 160, 90, false, false);
  EXPECT_LT(testing::ks_uniform(std::vector<double>(u.begin<float>(), u.end<float>()), -1, 1), 1.95 / std::sqrt(n));
}

// The displacement read back from a ramp image: out(x, y) = map (bilinear samples of a linear ramp).
std::vector<double> displacements(const std::string& body, int copies, bool y_axis) {
  const int w = 200, h = 150, margin = 12;
  Image ramp(Shape{w, h, 3, DType::F32});
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float* px = ramp.view<float>().row(y) + 3 * x;
      px[0] = static_cast<float>(x);
      px[1] = static_cast<float>(y);
      px[2] = 0.f;
    }
  const Pipeline p = testing::one_stage(R"({"stage": "elastic_transform", "p": 1, "border": "replicate", )" + body + "}");
  std::vector<double> d;
  for (int c = 0; c < copies; ++c) {
    const auto r = run_stage(p, ramp, "ramp.tif", static_cast<std::uint32_t>(c));
    for (int y = margin; y < h - margin; ++y)
      for (int x = margin; x < w - margin; ++x) {
        const float* px = r.out.view<float>().row(y) + 3 * x;
        d.push_back(y_axis ? px[1] - y : px[0] - x);
      }
  }
  return d;
}

TEST(ElasticTransform, DisplacementVarianceIsTheBlurredNoises) {
  // U(-1, 1) noise (variance 1/3) blurred by g: variance alpha^2 / 3 * sum(g2d^2), g2d = g g^T.
  const double alpha = 10, sigma = 2;
  const cv::Mat g = cv::getGaussianKernel(17, sigma, CV_64F);
  double s1 = 0;
  for (int i = 0; i < 17; ++i) s1 += g.at<double>(i) * g.at<double>(i);
  const double expected = alpha * alpha / 3 * s1 * s1;
  for (const bool y_axis : {false, true}) {
    const std::vector<double> d = displacements(R"("alpha": 10, "sigma": 2, "noise_distribution": "uniform")", 8, y_axis);
    double mean = 0, var = 0;
    for (double v : d) mean += v;
    mean /= static_cast<double>(d.size());
    for (double v : d) var += (v - mean) * (v - mean);
    var /= static_cast<double>(d.size());
    EXPECT_NEAR(mean, 0, 0.05) << y_axis;
    EXPECT_NEAR(var / expected, 1, 0.12) << y_axis << " var " << var << " expected " << expected;
  }
  // Gaussian noise divided by its largest magnitude: every displacement within alpha.
  const std::vector<double> d = displacements(R"("alpha": 10, "sigma": 2)", 2, false);
  double peak = 0;
  for (double v : d) peak = std::max(peak, std::abs(v));
  EXPECT_LE(peak, alpha + 1.0 / 32);
  EXPECT_GT(peak, 0.3);
}

TEST(ElasticTransform, ErrorsNameTheParameter) {
  testing::geometry::expect_errors_name_the_parameter(
      {{R"({"stage": "elastic_transform", "p": 1, "sigma": 0})", "sigma"},
       {R"({"stage": "elastic_transform", "p": 1, "alpha": -1})", "alpha"},
       {R"({"stage": "elastic_transform", "p": 1, "noise_distribution": "laplace"})", "noise_distribution"},
       {R"({"stage": "elastic_transform", "p": 1, "interpolation": "area"})", "interpolation"}});
}

}  // namespace
}  // namespace aug::test_elastic_transform
