// gaussian_illumination: Kornia's RandomGaussianIllumination formula re-derived here in double (docs/stages/color.md):
// the even-size shift, odd sizes, the sign, integer rounding with alpha kept, the sampled parameters and the
// default probability.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "tests/stages/stage_runner.hpp"
#include "tests/stages/unit_range_support.hpp"

namespace aug::test_gaussian_illumination {
namespace {

using testing::unit_range::constant;
using testing::unit_range::fval;

// The pattern in double: profiles over pixel indices (+0.5 on even sizes), each divided by its
// sum, outer product, min-max normalised with 1e-6.
std::vector<double> pattern(int w, int h, double cx, double cy, double sx, double sy) {
  auto prof = [](int n, double c, double s) {
    std::vector<double> g(static_cast<std::size_t>(n));
    double sum = 0;
    for (int i = 0; i < n; ++i) {
      const double d = i - c + (n % 2 == 0 ? 0.5 : 0);
      sum += g[i] = std::exp(-d * d / (2 * s * s));
    }
    for (auto& v : g) v /= sum;
    return g;
  };
  const auto gx = prof(w, cx, sx), gy = prof(h, cy, sy);
  std::vector<double> G;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) G.push_back(gy[y] * gx[x]);
  const auto [mn, mx] = std::minmax_element(G.begin(), G.end());
  const double lo = *mn, hi = *mx;
  for (auto& v : G) v = (v - lo) / (hi - lo + 1e-6);
  return G;
}

TEST(GaussianIllumination, FollowsTheFormulaWithEvenSizeShift) {
  // 6x4: centre_x = RNE(6 * 0.5) = 3, sigma_x = 6 * 0.5 = 3; centre_y = RNE(4 * 0.5) = 2, sigma_y = 2.
  const Image in = constant({6, 4, 3, DType::F32}, 0.25);
  const Image out = testing::run_cpu(
      R"({"stage": "gaussian_illumination", "gain": 0.5, "center": 0.5, "sigma": 0.5, "sign": 1, "p": 1})", in);
  const auto N = pattern(6, 4, 3, 2, 3, 2);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 6; ++x)
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(fval(out, x, y, c), 0.25 + 0.5 * N[y * 6 + x], 2e-6) << x << "," << y;
  // Even sizes put the peak between pixels c - 1 and c.
  EXPECT_EQ(fval(out, 2, 1, 0), fval(out, 3, 1, 0));
  EXPECT_EQ(fval(out, 2, 1, 0), fval(out, 2, 2, 0));
  // The 1e-6 at the pattern's absolute scale keeps its maximum below 1.
  const double peak = *std::max_element(N.begin(), N.end());
  EXPECT_LT(peak, 1.0);
  EXPECT_GT(peak, 0.9999);
}

TEST(GaussianIllumination, OddSizesPeakOnTheCentreAndSignDarkens) {
  const Image in = constant({5, 5, 1, DType::F32}, 0.5);
  const Image out = testing::run_cpu(
      R"({"stage": "gaussian_illumination", "gain": 0.6, "center": 0.4, "sigma": 0.3, "sign": -1, "p": 1})", in);
  // centre RNE(5 * 0.4) = RNE(2.0) = 2; darkest there, clamped at 0: 0.5 - 0.6 * N
  const auto N = pattern(5, 5, 2, 2, 1.5, 1.5);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 5; ++x) EXPECT_NEAR(fval(out, x, y, 0), std::max(0.0, 0.5 - 0.6 * N[y * 5 + x]), 2e-6);
  EXPECT_EQ(fval(out, 2, 2, 0), 0.f);
}

TEST(GaussianIllumination, IntegerImagesRoundHalfToEvenAndKeepAlpha) {
  Image in = constant({4, 4, 4, DType::U8}, 100);
  for (int i = 3; i < 64; i += 4) in.data()[i] = 77;
  const Image out = testing::run_cpu(
      R"({"stage": "gaussian_illumination", "gain": 0.3, "center": 0.5, "sigma": 0.4, "sign": 1, "p": 1})", in);
  const auto N = pattern(4, 4, 2, 2, 1.6, 1.6);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) {
      const double expected = std::nearbyint(std::min(1.0, 100 / 255.0 + 0.3 * N[y * 4 + x]) * 255);
      EXPECT_NEAR(out.row(y)[x * 4], expected, 1) << x << "," << y;  // binary32 vs double at .5 ties only
      EXPECT_EQ(out.row(y)[x * 4 + 3], 77);
    }
}

TEST(GaussianIllumination, SamplesCentresAsPixelIndicesAndRejectsZeroSigma) {
  const Pipeline p = testing::one_stage(R"({"stage": "gaussian_illumination", "p": 1})");
  for (int i = 0; i < 50; ++i) {
    const auto params = p.plan(1, std::to_string(i), 0, {200, 100, 3, DType::U8}).record[0]["params"];
    const double cx = params["center"][0], sx = params["sigma"][0], sy = params["sigma"][1];
    EXPECT_EQ(cx, std::floor(cx));
    EXPECT_GE(cx, 20);
    EXPECT_LE(cx, 180);
    EXPECT_GE(sx, 40);  // 200 * [0.2, 1.0]
    EXPECT_LE(sx, 200);
    EXPECT_GE(sy, 20);
    EXPECT_LE(sy, 100);
    EXPECT_GE(params["gain"].get<double>(), 0.01);
    EXPECT_LE(params["gain"].get<double>(), 0.15);
  }
  EXPECT_THROW(testing::one_stage(R"({"stage": "gaussian_illumination", "sigma": 0})"), PipelineError);
  EXPECT_THROW(testing::one_stage(R"({"stage": "gaussian_illumination", "sigma": [0, 0.5]})"), PipelineError);
}

TEST(GaussianIllumination, DefaultProbabilityIsKorniasHalf) {
  const Pipeline p = testing::one_stage(R"({"stage": "gaussian_illumination"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i)
    applied += p.plan(3, std::to_string(i), 0, {8, 8, 3, DType::U8}).steps[0].op != nullptr;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.04);
}

}  // namespace
}  // namespace aug::test_gaussian_illumination
