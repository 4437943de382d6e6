// shot_noise: Albumentations' ShotNoise written out here (lambda = (x^2.2 + s 1e-6) / s, a count
// drawn by inverse CDF from a Philox word, (k s)^(1/2.2) clipped and rounded) against both backends
// on 8 and 16 bits; the counts' mean, variance and distribution against Poisson(lambda) over a
// flat image (chi-square); the drawn scale; the import.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/core/philox.hpp"
#include "lib/core/rng.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_shot_noise {
namespace {

using testing::compare;
using testing::one_stage;
using testing::random_image;
using testing::run_both;
using testing::noise::at;
using testing::noise::max_of;
using testing::noise::stream_of;

// The count of a word for lambda: walk the CDF (in double, times 2^32) until it passes the word.
int reference_count(std::uint32_t word, double lambda, double s) {
  const int K = static_cast<int>(std::ceil(1 / s - 1e-12));
  double p = std::exp(-lambda), cdf = 0;
  for (int k = 0; k < K; ++k) {
    cdf += p;
    if (static_cast<double>(word) < std::min(std::nearbyint(cdf * 4294967296.0), 4294967295.0)) return k;
    p *= lambda / (k + 1);
  }
  return K;
}

double lambda_of(double v, double max, double s) { return (std::pow(v / max, 2.2) + s * 1e-6) / s; }

TEST(ShotNoise, FollowsTheReferenceOn8And16Bits) {
  for (DType t : {DType::U8, DType::U16})
    for (int C : {1, 3, 4})
      for (double s : {0.15, 0.037}) {
        const Image im = random_image({23, 19, C, t}, 12);
        const testing::Both b = run_both(
            one_stage(R"({"stage": "shot_noise", "p": 1, "scale_range": )" + std::to_string(s) + "}"), im, "shot.png");
        ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
        const double drawn = b.plan.record[0]["params"]["scale"];
        ASSERT_EQ(drawn, s);
        const k::KeyedStream st = stream_of("shot.png");
        const double max = max_of(t);
        for (int y = 0; y < 19; ++y)
          for (int x = 0; x < 23; ++x) {
            const auto r =
                k::philox4x32_10({{static_cast<std::uint32_t>(y * 23 + x), 1, st.stage, st.copy}}, st.key0, st.key1);
            for (int c = 0; c < C; ++c) {
              const double v = at(im, x, y, c);
              if (c == 3) {
                ASSERT_EQ(at(b.cpu, x, y, c), v);
                continue;
              }
              const int k = reference_count(r.v[c], lambda_of(v, max, s), s);
              const double want = std::nearbyint(std::pow(std::min(k * s, 1.0), 1 / 2.2) * max);
              ASSERT_EQ(at(b.cpu, x, y, c), want) << dtype_name(t) << " " << s << " " << x << "," << y << "," << c;
            }
          }
      }
}

TEST(ShotNoise, CountsArePoisson) {
  // Flat images of one value each: the counts read back from the levels have Poisson(lambda)'s mean
  // and variance, and their histogram passes a chi-square test against its probabilities.
  const double s = 0.1;
  const std::vector<double> level = [&] {
    std::vector<double> l;
    for (int k = 0; k <= 10; ++k) l.push_back(std::nearbyint(std::pow(std::min(k * s, 1.0), 1 / 2.2) * 255));
    return l;
  }();
  for (int v : {30, 128, 200}) {
    Image im({256, 256, 3, DType::U8});
    std::fill_n(im.data(), im.shape().values(), static_cast<std::uint8_t>(v));
    const Image out = testing::run_cpu(R"({"stage": "shot_noise", "p": 1, "scale_range": 0.1})", im);
    const double lambda = lambda_of(v, 255, s);
    std::vector<double> hist(11, 0);
    double sum = 0, sum2 = 0;
    const double N = static_cast<double>(im.shape().values());
    for (std::size_t i = 0; i < im.shape().values(); ++i) {
      const auto it = std::find(level.begin(), level.end(), static_cast<double>(out.data()[i]));
      ASSERT_NE(it, level.end()) << static_cast<int>(out.data()[i]);
      const int k = static_cast<int>(it - level.begin());
      hist[k] += 1;
      sum += k;
      sum2 += static_cast<double>(k) * k;
    }
    // Counts of 10 and more all read 10 (the maximum): compare the censored distribution.
    std::vector<double> pmf(11, 0);
    double p = std::exp(-lambda), below = 0;
    for (int k = 0; k < 10; ++k) {
      pmf[k] = p;
      below += p;
      p *= lambda / (k + 1);
    }
    pmf[10] = 1 - below;
    double mean = 0, second = 0;
    for (int k = 0; k <= 10; ++k) mean += k * pmf[k], second += k * k * pmf[k];
    const double var = second - mean * mean;
    EXPECT_NEAR(mean, lambda, v == 200 ? 0.2 : 1e-3);  // lambda 6.4 at 200: the censoring shows
    EXPECT_NEAR(sum / N, mean, 5 * std::sqrt(var / N)) << v;
    const double sample_var = sum2 / N - (sum / N) * (sum / N);
    EXPECT_NEAR(sample_var, var, 5 * var * std::sqrt(2.0 / N) + 0.01) << v;
    double chi2 = 0;
    int cells = 0;
    for (int k = 0; k <= 10; ++k) {
      const double e = N * pmf[k];
      if (e < 5) continue;
      chi2 += (hist[k] - e) * (hist[k] - e) / e;
      ++cells;
    }
    EXPECT_LT(chi2, cells + 5 * std::sqrt(2.0 * cells)) << v << " " << cells;
  }
}

TEST(ShotNoise, ScaleIsUniformDefaultsToHalfAndImports) {
  const Pipeline p = one_stage(R"({"stage": "shot_noise", "p": 1})");
  std::vector<double> drawn;
  for (int k = 0; k < 2000; ++k)
    drawn.push_back(p.plan(2, "s" + std::to_string(k), 0, {8, 8, 3, DType::U8}).record[0]["params"]["scale"]);
  std::sort(drawn.begin(), drawn.end());
  double worst = 0;
  for (std::size_t i = 0; i < drawn.size(); ++i)
    worst = std::max(worst, std::fabs((drawn[i] - 0.1) / 0.2 - (i + 0.5) / drawn.size()));
  EXPECT_LT(worst, 1.95 / std::sqrt(2000.0));
  const Pipeline half = one_stage(R"({"stage": "shot_noise"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i)
    applied += half.plan(11, std::to_string(i), 0, {32, 32, 3, DType::U8}).steps[0].op != nullptr;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
  EXPECT_ANY_THROW(one_stage(R"({"stage": "shot_noise", "scale_range": [0.001, 0.1]})"));
  const nlohmann::json saved = nlohmann::json::parse(
      R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [)"
      R"({"__class_fullname__": "ShotNoise", "scale_range": [0.05, 0.2], "p": 1}, {"__class_fullname__": "ShotNoise"}]}})");
  const Imported imp = import_albumentations(saved, "a.json");
  EXPECT_EQ(imp.pipeline["stages"][0]["stage"], "shot_noise");
  EXPECT_EQ(imp.pipeline["stages"][0]["scale_range"], nlohmann::ordered_json::array({0.05, 0.2}));
  EXPECT_EQ(imp.pipeline["stages"][1]["scale_range"], nlohmann::ordered_json::array({0.1, 0.3}));
  EXPECT_EQ(imp.pipeline["stages"][1]["p"], 0.5);
}

}  // namespace
}  // namespace aug::test_shot_noise
