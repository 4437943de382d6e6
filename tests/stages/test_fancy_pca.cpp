// fancy_pca: Albumentations 2.x's definition evaluated in float64 here (OpenCV's eigen solver, the
// same eigenvector signs) against the stage on the sample photographs, RGB and gray: within 1 on
// 8-bit images, few values off; the Jacobi solver against cv::eigen; both backends; the draws of
// the alpha vector against the normal distribution; the import of FancyPCA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "kernels/color/fancy_pca.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_fancy_pca {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::one_stage;
using testing::run_both;

// Albumentations 2.x's fancy_pca in float64 (x = v / 255, mean, np.cov with ddof 1, eigh sorted
// decreasing, noise = E diag(a l) (x - mu), clip, rint to 8 bits); gray: a s (x - mu), s = np.std.
cv::Mat reference(const cv::Mat& im, const std::vector<double>& a) {
  const int n = im.rows * im.cols, cn = im.channels();
  cv::Mat x;
  im.reshape(1, n).convertTo(x, CV_64F, 1.0 / 255);
  cv::Mat mu;
  cv::reduce(x, mu, 0, cv::REDUCE_AVG);
  const cv::Mat c = x - cv::repeat(mu, n, 1);
  cv::Mat noise;
  if (cn == 1) {
    noise = a[0] * std::sqrt(c.dot(c) / n) * c;
  } else {
    const cv::Mat cov = c.t() * c / (n - 1);
    cv::Mat w, v;
    cv::eigen(cov, w, v);  // decreasing, eigenvectors as rows
    cv::Mat e = v.t();
    for (int j = 0; j < 3; ++j) {
      int big = 0;
      for (int k = 1; k < 3; ++k)
        if (std::abs(e.at<double>(k, j)) > std::abs(e.at<double>(big, j))) big = k;
      if (e.at<double>(big, j) < 0) e.col(j) *= -1;
    }
    cv::Mat d = cv::Mat::zeros(3, 3, CV_64F);
    for (int j = 0; j < 3; ++j) d.at<double>(j, j) = a[j] * w.at<double>(j);
    noise = (e * d * c.t()).t();
  }
  const cv::Mat y = x + noise;
  cv::Mat out(n, cn, CV_8U);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < cn; ++j)
      out.at<std::uint8_t>(i, j) =
          static_cast<std::uint8_t>(std::nearbyint(std::clamp(y.at<double>(i, j), 0.0, 1.0) * 255));
  return out.reshape(cn, im.rows);
}

TEST(FancyPca, WithinOneOfTheFloat64DefinitionOnPhotographs) {
  const Pipeline p = one_stage(R"({"stage": "fancy_pca", "p": 1, "alpha": 0.8})");
  std::size_t values = 0, off = 0;
  for (const char* name : {"astronaut.jpg", "chelsea.png", "coffee.png", "rocket.jpg"})
    for (int channels : {3, 1})
      for (int key = 0; key < 3; ++key) {
        const Image in = testing::sample_as(name, DType::U8, channels);
        const auto both = run_both(p, in, "k" + std::to_string(key) + ".png");
        EXPECT_EQ(compare(both.cpu, both.emulated).count, 0u) << name;
        const auto a = both.plan.steps.at(0).op->params().at("alpha_vector").get<std::vector<double>>();
        ASSERT_EQ(a.size(), static_cast<std::size_t>(channels));
        const Image want = from_mat(reference(mat(in), a));
        const auto d = compare(both.cpu, want, 1.0);
        EXPECT_EQ(d.count, 0u) << name << " " << channels << ": " << d.str();
        const auto exact = compare(both.cpu, want);
        off += exact.count;
        values += static_cast<std::size_t>(in.shape().width) * in.shape().height * channels;
        EXPECT_GT(compare(both.cpu, in).count, 0u) << name << ": alpha 0.8 changes the image";
      }
  EXPECT_LT(static_cast<double>(off) / values, 1e-4) << off << " of " << values;
}

TEST(FancyPca, JacobiEqualsOpenCVsEigenSolver) {
  cv::RNG rng(5);
  for (int i = 0; i < 200; ++i) {
    cv::Mat b(3, 3, CV_64F);
    rng.fill(b, cv::RNG::NORMAL, 0, 1);
    const cv::Mat s = b * b.t();
    double a[9], w[3], v[9];
    for (int k = 0; k < 9; ++k) a[k] = s.at<double>(k / 3, k % 3);
    k::jacobi3(a, w, v);
    cv::Mat ew, ev;
    cv::eigen(s, ew, ev);
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(w[j], ew.at<double>(j), 1e-12 * (1 + std::abs(ew.at<double>(0))));
      // Same direction: |e_j . v_j| = 1.
      double dot = 0;
      for (int k = 0; k < 3; ++k) dot += ev.at<double>(j, k) * v[k * 3 + j];
      EXPECT_NEAR(std::abs(dot), 1.0, 1e-9);
    }
  }
}

TEST(FancyPca, SixteenBitAndFloatImagesAgreeOnBothBackendsAndAlphaIsKept) {
  for (DType t : {DType::U16, DType::F32}) {
    const Image in = testing::sample_as("coffee_rgba.png", t, 4);
    const auto both = run_both(one_stage(R"({"stage": "fancy_pca", "p": 1, "alpha": 0.5})"), in);
    EXPECT_EQ(compare(both.cpu, both.emulated).count, 0u);
    EXPECT_GT(compare(both.cpu, in).count, 0u);
    const cv::Mat o = mat(both.cpu), i = mat(in);
    std::vector<cv::Mat> po, pi;
    cv::split(o, po);
    cv::split(i, pi);
    EXPECT_EQ(cv::norm(po[3], pi[3], cv::NORM_INF), 0.0);
  }
}

TEST(FancyPca, AlphaVectorIsNormalAndPIsAHalfByDefault) {
  const int n = 3000;
  const Pipeline p = one_stage(R"({"stage": "fancy_pca", "p": 1, "alpha": 0.2})");
  std::vector<double> draws;
  for (int i = 0; i < n; ++i) {
    const auto a = p.plan(4, "img" + std::to_string(i), 0, {8, 8, 3, DType::U8})
                       .steps.at(0).op->params().at("alpha_vector").get<std::vector<double>>();
    ASSERT_EQ(a.size(), 3u);
    draws.insert(draws.end(), a.begin(), a.end());
  }
  std::sort(draws.begin(), draws.end());
  double d = 0;
  const double m = static_cast<double>(draws.size());
  for (std::size_t i = 0; i < draws.size(); ++i) {
    const double f = 0.5 * std::erfc(-draws[i] / (0.2 * std::sqrt(2.0)));
    d = std::max({d, std::abs((i + 1) / m - f), std::abs(i / m - f)});
  }
  EXPECT_LT(d, 1.95 / std::sqrt(m));  // Kolmogorov-Smirnov at the 0.001 level
  int applied = 0;
  const Pipeline def = one_stage(R"({"stage": "fancy_pca"})");
  for (int i = 0; i < 2000; ++i) applied += def.plan(3, std::to_string(i), 0, {8, 8, 3, DType::U8}).steps.at(0).op ? 1 : 0;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
}

TEST(FancyPca, ImportsFancyPCA) {
  const nlohmann::json saved = nlohmann::json::parse(
      R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [)"
      R"({"__class_fullname__": "FancyPCA", "alpha": 0.3, "p": 0.7}]}})");
  const auto s = import_albumentations(saved, "a.json").pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "fancy_pca");
  EXPECT_EQ(s["alpha"], 0.3);
  EXPECT_EQ(s["p"], 0.7);
}

}  // namespace
}  // namespace aug::test_fancy_pca
