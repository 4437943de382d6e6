// gaussian_noise: torchvision's GaussianNoise written out here value by value (v + mean + sigma z in
// binary32 with z from the keyed stream, scaled to the type's range, rounded and clamped) against
// both backends on every type, the sample moments and quantiles of the noise against the normal
// CDF, clip and the identity; and the normal generator itself (its table against the inverse CDF,
// the moments and quantiles of every 24-bit draw).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/core/philox.hpp"
#include "lib/core/error.hpp"
#include "kernels/noise/normal.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "tests/stages/noise_support.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_gaussian_noise {
namespace {

using testing::compare;
using testing::one_stage;
using testing::random_image;
using testing::run_both;
using testing::noise::at;
using testing::noise::max_of;
using testing::noise::stream_of;

// The standard normal CDF, independent of the table's quantile function.
double phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// ---------------------------------------------------------------- the normal generator

TEST(GaussianNoise, NormalTableIsTheInverseCdf) {
  // Phi(z(m)) against the cell's own probability (m + 1/2) / 2^24 over a grid of m covering both
  // tails and the interpolated middle; the interpolation error stays below 0.016 in z (next to the
  // tails) and below 1e-5 for |z| < 2.
  const auto& t = normal_table();
  double worst_z = 0, worst_mid = 0;
  for (std::uint32_t m = 0; m < (1u << 24); m += 97) {
    const float z = k::standard_normal(m << 8, t.data());
    const double u = (m + 0.5) / 16777216.0;
    // The exact quantile by bisection on erfc.
    double lo = -9, hi = 9;
    for (int i = 0; i < 80; ++i) (phi(0.5 * (lo + hi)) < u ? lo : hi) = 0.5 * (lo + hi);
    const double exact = 0.5 * (lo + hi), err = std::fabs(z - exact);
    worst_z = std::max(worst_z, err);
    if (std::fabs(exact) < 2) worst_mid = std::max(worst_mid, err);
  }
  EXPECT_LT(worst_z, 0.016);
  EXPECT_LT(worst_mid, 1e-5);
  EXPECT_NEAR(k::standard_normal(0, t.data()), -5.42, 0.005);
  EXPECT_NEAR(k::standard_normal(0xFFFFFFFFu, t.data()), 5.42, 0.005);
}

TEST(GaussianNoise, NormalMomentsAndQuantilesOfEveryDraw) {
  // Every 24-bit draw once: the distribution the generator produces, exactly.
  const auto& t = normal_table();
  double sum = 0, sum2 = 0, sum4 = 0;
  std::vector<float> all(1u << 24);
  for (std::uint32_t m = 0; m < (1u << 24); ++m) {
    const double z = all[m] = k::standard_normal(m << 8, t.data());
    sum += z;
    sum2 += z * z;
    sum4 += z * z * z * z;
  }
  const double n = 16777216.0;
  EXPECT_NEAR(sum / n, 0.0, 1e-6);
  EXPECT_NEAR(sum2 / n, 1.0, 2e-4);
  EXPECT_NEAR(sum4 / n, 3.0, 5e-3);  // the kurtosis of a normal
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  for (double p : {0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999}) {
    const double z = all[static_cast<std::size_t>(p * n)];
    EXPECT_NEAR(phi(z), p, 3e-6) << p;  // 2.1e-6 at 0.001 and 0.999 (cells next to the tails)
  }
}

// ---------------------------------------------------------------- the stage

TEST(GaussianNoise, FollowsTheFormulaOnEveryType) {
  const auto& table = normal_table();
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int C : {1, 3, 4})
      for (bool per_channel : {true, false}) {
        const Image im = random_image({23, 17, C, t}, 5);
        const std::string stage =
            std::string(R"({"stage": "gaussian_noise", "sigma": 0.2, "mean": 0.03, "per_channel": )") +
            (per_channel ? "true" : "false") + "}";
        const testing::Both b = run_both(one_stage(stage), im, "noise.png");
        ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
        const k::KeyedStream s = stream_of("noise.png");
        const double max = max_of(t);
        for (int y = 0; y < 17; ++y)
          for (int x = 0; x < 23; ++x) {
            const auto r =
                k::philox4x32_10({{static_cast<std::uint32_t>(y * 23 + x), 1, s.stage, s.copy}}, s.key0, s.key1);
            for (int c = 0; c < C; ++c) {
              const double v = at(im, x, y, c), got = at(b.cpu, x, y, c);
              if (C == 4 && c == 3) {
                ASSERT_EQ(got, v);
                continue;
              }
              // torchvision: v + (mean + sigma z), in binary32 here as in the stage.
              const float z = k::standard_normal(r.v[per_channel ? c : 0], table.data());
              const float n = 0.03f + 0.2f * z;
              double want;
              if (t == DType::F32) want = std::clamp(static_cast<float>(v) + n, 0.f, 1.f);
              else
                want = std::clamp(std::nearbyint(static_cast<float>(v) + n * static_cast<float>(max)), 0.f,
                                  static_cast<float>(max));
              ASSERT_EQ(got, want) << dtype_name(t) << " " << x << "," << y << "," << c;
            }
          }
      }
}

TEST(GaussianNoise, SampleMeanStdAndQuantilesOnAFlatImage) {
  // A mid-grey float image, clip off: the output minus 0.5 is the noise itself.
  Image im({256, 128, 3, DType::F32});
  std::fill_n(reinterpret_cast<float*>(im.data()), im.shape().values(), 0.5f);
  const Image out = testing::run_cpu(R"({"stage": "gaussian_noise", "sigma": 0.1, "mean": 0.02, "clip": false})", im);
  std::vector<double> n;
  for (std::size_t i = 0; i < im.shape().values(); ++i)
    n.push_back(reinterpret_cast<const float*>(out.data())[i] - 0.5);
  double sum = 0, sum2 = 0;
  for (double v : n) sum += v;
  const double mean = sum / n.size();
  for (double v : n) sum2 += (v - mean) * (v - mean);
  const double sd = std::sqrt(sum2 / (n.size() - 1));
  const double N = static_cast<double>(n.size());
  EXPECT_NEAR(mean, 0.02, 4 * 0.1 / std::sqrt(N));
  EXPECT_NEAR(sd, 0.1, 4 * 0.1 / std::sqrt(2 * N));
  std::sort(n.begin(), n.end());
  for (double p : {0.01, 0.1, 0.5, 0.9, 0.99}) {
    const double q = n[static_cast<std::size_t>(p * N)];
    EXPECT_NEAR(phi((q - 0.02) / 0.1), p, 4 * std::sqrt(p * (1 - p) / N)) << p;
  }
  // per_channel: the three channels of a pixel are (nearly) uncorrelated; shared: equal.
  const Image shared = testing::run_cpu(R"({"stage": "gaussian_noise", "per_channel": false, "clip": false})", im);
  const float* p = reinterpret_cast<const float*>(shared.data());
  for (std::size_t i = 0; i < im.shape().values(); i += 3) ASSERT_TRUE(p[i] == p[i + 1] && p[i] == p[i + 2]);
  const float* q = reinterpret_cast<const float*>(out.data());
  double cov = 0;
  for (std::size_t i = 0; i < im.shape().values(); i += 3) cov += (q[i] - 0.52) * (q[i + 1] - 0.52);
  EXPECT_NEAR(cov / (N / 3) / 0.01, 0.0, 0.05);
}

TEST(GaussianNoise, ZeroSigmaAndMeanIsTheIdentityAndClipClamps) {
  for (DType t : {DType::U8, DType::U16, DType::F32}) {
    const Image im = random_image({31, 7, 4, t}, 8);
    EXPECT_EQ(compare(testing::run_cpu(R"({"stage": "gaussian_noise", "sigma": 0, "mean": 0})", im), im).count, 0u);
  }
  const Image f = random_image({64, 64, 1, DType::F32}, 9);
  const Image clipped = testing::run_cpu(R"({"stage": "gaussian_noise", "sigma": 2})", f);
  const Image free = testing::run_cpu(R"({"stage": "gaussian_noise", "sigma": 2, "clip": false})", f);
  float lo = 1, hi = 0, flo = 1, fhi = 0;
  for (std::size_t i = 0; i < f.shape().values(); ++i) {
    const float a = reinterpret_cast<const float*>(clipped.data())[i],
                b = reinterpret_cast<const float*>(free.data())[i];
    lo = std::min(lo, a), hi = std::max(hi, a), flo = std::min(flo, b), fhi = std::max(fhi, b);
    ASSERT_EQ(a, std::clamp(b, 0.f, 1.f));
  }
  EXPECT_EQ(lo, 0.f);
  EXPECT_EQ(hi, 1.f);
  EXPECT_LT(flo, -1.f);
  EXPECT_GT(fhi, 2.f);
}

// imgaug's AdditiveGaussianNoise, as Albumentations 1.x wrapped it: sigma uniform in `scale`
// (pixels), a noise value shared by the channels unless per_channel.
// variance (Albumentations 1.x's var_limit): the variance is uniform, not sigma. Over var in
// [a, b] uniform, E[sigma] = (2/3)(b^1.5 - a^1.5) / (b - a); sigma uniform over [sqrt a, sqrt b]
// would give (sqrt a + sqrt b) / 2, which the test tells apart.
TEST(GaussianNoise, VarianceIsDrawnUniformly) {
  const Pipeline p = testing::one_stage(R"({"stage": "gaussian_noise", "variance": [0.0001, 0.01]})");
  double sum = 0, below = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const Plan plan = p.plan(3, std::to_string(i), 0, {4, 4, 3, DType::U8});
    const double sigma = plan.record[0]["params"]["sigma"].get<double>();
    sum += sigma;
    below += sigma * sigma < 0.00505;  // the variance's midpoint
  }
  const double a = 0.0001, b = 0.01;
  EXPECT_NEAR(sum / n, 2.0 / 3 * (std::pow(b, 1.5) - std::pow(a, 1.5)) / (b - a), 0.0005);
  EXPECT_GT(std::abs(sum / n - (std::sqrt(a) + std::sqrt(b)) / 2), 0.005);
  EXPECT_NEAR(below / n, 0.5, 0.015);
  EXPECT_THROW(testing::one_stage(R"({"stage": "gaussian_noise", "variance": 0.01, "sigma": 0.1})"), PipelineError);
}

TEST(GaussianNoise, ImportsImgaugsAdditiveGaussianNoise) {
  auto import_one = [](const std::string& transform) {
    const nlohmann::json saved = nlohmann::json::parse(
        R"({"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "transforms": [)" + transform + "]}}");
    return import_albumentations(saved, "a.json");
  };
  const auto d = import_one(R"({"__class_fullname__": "IAAAdditiveGaussianNoise"})").pipeline["stages"][0];
  EXPECT_EQ(d["stage"], "gaussian_noise");
  EXPECT_EQ(d["sigma"], nlohmann::ordered_json::array({0.01, 0.05}));
  EXPECT_EQ(d["mean"], 0);
  EXPECT_EQ(d["per_channel"], false);
  const auto s = import_one(R"({"__class_fullname__": "IAAAdditiveGaussianNoise", "loc": 5.1, "scale": 25.5, )"
                            R"("per_channel": true, "p": 1})")
                     .pipeline["stages"][0];
  EXPECT_DOUBLE_EQ(s["sigma"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(s["mean"].get<double>(), 0.02);
  EXPECT_EQ(s["per_channel"], true);
  EXPECT_FALSE(s.contains("p"));  // 1, gaussian_noise's own default
}

}  // namespace
}  // namespace aug::test_gaussian_noise
