// gaussian_noise, random_erasing, coarse_dropout, channel_shuffle and rgb_shift against formulas and
// sampling algorithms written out here (torchvision's GaussianNoise and RandomErasing.get_params,
// Albumentations' CoarseDropout, ChannelShuffle and RGBShift), and the normal generator's
// distribution.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "kernels/core/philox.hpp"
#include "kernels/noise/normal.hpp"
#include "lib/core/rng.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using testing::compare;
using testing::random_image;
using testing::run_both;
using testing::one_stage;

double at(const Image& im, int x, int y, int c) {
  double v = 0;
  with_sample_type(im.shape().dtype, [&](auto tag) {
    using T = decltype(tag);
    v = static_cast<double>(reinterpret_cast<const T*>(im.row(y))[x * im.shape().channels + c]);
  });
  return v;
}

double max_of(DType t) { return t == DType::U8 ? 255.0 : (t == DType::U16 ? 65535.0 : 1.0); }

// The standard normal CDF, independent of the table's quantile function.
double phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// The stream of the first stage of a one-stage pipeline run by run_both (seed 11, copy 0).
k::KeyedStream stream_of(const std::string& key) { return keyed_stream(11, key, 0, 1); }

// ---------------------------------------------------------------- the normal generator

TEST(Normal, TableIsTheInverseCdf) {
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

TEST(Normal, MomentsAndQuantilesOfEveryDraw) {
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

// ---------------------------------------------------------------- gaussian_noise

TEST(GaussianNoise, FollowsTheFormulaOnEveryType) {
  const auto& table = normal_table();
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int C : {1, 3, 4})
      for (bool per_channel : {true, false}) {
        const Image im = random_image({23, 17, C, t}, 5);
        const std::string stage = std::string(R"({"stage": "gaussian_noise", "sigma": 0.2, "mean": 0.03, "per_channel": )") +
                                  (per_channel ? "true" : "false") + "}";
        const testing::Both b = run_both(one_stage(stage), im, "noise.png");
        ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
        const k::KeyedStream s = stream_of("noise.png");
        const double max = max_of(t);
        for (int y = 0; y < 17; ++y)
          for (int x = 0; x < 23; ++x) {
            const auto r = k::philox4x32_10({{static_cast<std::uint32_t>(y * 23 + x), 1, s.stage, s.copy}}, s.key0, s.key1);
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
              else want = std::clamp(std::nearbyint(static_cast<float>(v) + n * static_cast<float>(max)), 0.f, static_cast<float>(max));
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
  for (std::size_t i = 0; i < im.shape().values(); ++i) n.push_back(reinterpret_cast<const float*>(out.data())[i] - 0.5);
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
    const float a = reinterpret_cast<const float*>(clipped.data())[i], b = reinterpret_cast<const float*>(free.data())[i];
    lo = std::min(lo, a), hi = std::max(hi, a), flo = std::min(flo, b), fhi = std::max(fhi, b);
    ASSERT_EQ(a, std::clamp(b, 0.f, 1.f));
  }
  EXPECT_EQ(lo, 0.f);
  EXPECT_EQ(hi, 1.f);
  EXPECT_LT(flo, -1.f);
  EXPECT_GT(fhi, 2.f);
}

// ---------------------------------------------------------------- random_erasing

struct Box {
  int x, y, w, h;
  bool operator==(const Box&) const = default;
};

// torchvision's RandomErasing.get_params written out with the stage's draws; nothing when all ten
// tries fail.
std::optional<Box> erasing_reference(Draws& d, int H, int W, double s0, double s1, double r0, double r1) {
  const double area = static_cast<double>(H) * W;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double erase_area = area * d.uniform(s0, s1);
    const double aspect = std::exp(d.uniform(std::log(r0), std::log(r1)));
    // Python's round: half to even.
    auto py_round = [](double v) {
      const double f = std::floor(v), diff = v - f;
      if (diff > 0.5) return f + 1;
      if (diff < 0.5) return f;
      return std::fmod(f, 2.0) == 0 ? f : f + 1;
    };
    const int h = static_cast<int>(py_round(std::sqrt(erase_area * aspect)));
    const int w = static_cast<int>(py_round(std::sqrt(erase_area / aspect)));
    if (!(h < H && w < W)) continue;
    const int i = static_cast<int>(d.integer(0, H - h));  // randint(0, H - h + 1), exclusive
    const int j = static_cast<int>(d.integer(0, W - w));
    return Box{j, i, w, h};
  }
  return std::nullopt;
}

std::vector<Box> recorded_rects(const Plan& plan) {
  std::vector<Box> out;
  for (const auto& r : plan.record[0]["params"]["rects"]) out.push_back({r[0], r[1], r[2], r[3]});
  return out;
}

TEST(RandomErasing, RectanglesFollowTorchvisionsGetParams) {
  const Pipeline p = one_stage(R"({"stage": "random_erasing", "p": 1, "scale": [0.05, 0.6], "ratio": [0.2, 5]})");
  int erased = 0, none = 0;
  std::map<int, int> rows;
  for (int i = 0; i < 2000; ++i) {
    const int W = 20 + i % 37, H = 10 + i % 23;
    const std::string key = "e" + std::to_string(i);
    const Plan plan = p.plan(11, key, 0, {W, H, 3, DType::U8});
    Draws d(stream_of(key));
    const auto want = erasing_reference(d, H, W, 0.05, 0.6, 0.2, 5);
    const auto got = recorded_rects(plan);
    if (!want) {
      ASSERT_TRUE(got.empty()) << key;
      ++none;
      continue;
    }
    ASSERT_EQ(got.size(), 1u) << key;
    ASSERT_EQ(got[0], *want) << key;
    ASSERT_LE(got[0].y + got[0].h, H);
    ASSERT_LE(got[0].x + got[0].w, W);
    ++rows[got[0].y == 0];
    ++erased;
  }
  EXPECT_GT(erased, 1500);
  EXPECT_GT(none, 0);  // scale up to 0.6 with extreme ratios fails ten times now and then
}

TEST(RandomErasing, AreaAndAspectDistribution) {
  // On a large image every try fits: the area is uniform in scale, log aspect uniform in log ratio.
  const Pipeline p = one_stage(R"({"stage": "random_erasing", "p": 1, "scale": [0.02, 0.1], "ratio": [0.5, 2]})");
  double sum_area = 0, sum_log = 0;
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    const auto r = recorded_rects(p.plan(11, std::to_string(i), 0, {1000, 1000, 1, DType::U8}));
    ASSERT_EQ(r.size(), 1u);
    sum_area += r[0].w * static_cast<double>(r[0].h) / 1e6;
    sum_log += std::log(static_cast<double>(r[0].h) / r[0].w);
  }
  EXPECT_NEAR(sum_area / n, 0.06, 0.002);
  EXPECT_NEAR(sum_log / n, 0.0, 0.03);
}

TEST(RandomErasing, FillsTheRectangleAndLeavesTheRest) {
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int C : {1, 3, 4}) {
      const Image im = random_image({41, 39, C, t}, 3);
      const testing::Both b =
          run_both(one_stage(R"({"stage": "random_erasing", "p": 1, "scale": [0.2, 0.3], "value": [1, 0.5, 0.2]})"), im, "fill.png");
      ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
      const auto rects = recorded_rects(b.plan);
      ASSERT_EQ(rects.size(), 1u);
      const Box r = rects[0];
      const double fill[3] = {1, 0.5, 0.2};
      for (int y = 0; y < 39; ++y)
        for (int x = 0; x < 41; ++x)
          for (int c = 0; c < C; ++c) {
            const bool inside = x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h && !(C == 4 && c == 3);
            const double want = inside ? (t == DType::F32 ? static_cast<float>(fill[c]) : std::nearbyint(fill[c] * max_of(t)))
                                       : at(im, x, y, c);
            ASSERT_EQ(at(b.cpu, x, y, c), want) << x << "," << y << "," << c;
          }
    }
}

TEST(RandomErasing, RandomValueIsNormalNoiseInTheRectangle) {
  const auto& table = normal_table();
  const Image im = random_image({60, 50, 3, DType::U8}, 4);
  const testing::Both b =
      run_both(one_stage(R"({"stage": "random_erasing", "p": 1, "scale": [0.3, 0.3], "ratio": [1, 1], "random": true})"), im,
               "random.png");
  ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
  const Box r = recorded_rects(b.plan).at(0);
  EXPECT_EQ(b.plan.record[0]["params"]["value"], "random");
  const k::KeyedStream s = stream_of("random.png");
  for (int y = r.y; y < r.y + r.h; ++y)
    for (int x = r.x; x < r.x + r.w; ++x) {
      const auto bits = k::philox4x32_10({{static_cast<std::uint32_t>(y * 60 + x), 1, s.stage, s.copy}}, s.key0, s.key1);
      for (int c = 0; c < 3; ++c) {
        const float z = k::standard_normal(bits.v[c], table.data());
        ASSERT_EQ(at(b.cpu, x, y, c), std::clamp(std::nearbyint(z * 255.f), 0.f, 255.f));
      }
    }
}

TEST(RandomErasing, DefaultProbabilityIsTorchvisionsHalf) {
  const Pipeline p = one_stage(R"({"stage": "random_erasing"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i) applied += p.plan(11, std::to_string(i), 0, {32, 32, 3, DType::U8}).steps[0].op != nullptr;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
}

// ---------------------------------------------------------------- coarse_dropout

// Albumentations' CoarseDropout (v1.4 sampling) written out with the stage's draws.
std::vector<Box> dropout_reference(Draws& d, int H, int W, int n0, int n1, std::array<double, 2> hh, bool hpix,
                                   std::array<double, 2> ww, bool wpix) {
  std::vector<Box> out;
  const auto n = d.integer(n0, n1);
  for (int k = 0; k < n; ++k) {
    const int h = hpix ? static_cast<int>(std::min<std::int64_t>(d.integer(static_cast<int>(hh[0]), static_cast<int>(hh[1])), H))
                       : static_cast<int>(H * d.uniform(hh[0], hh[1]));
    const int w = wpix ? static_cast<int>(std::min<std::int64_t>(d.integer(static_cast<int>(ww[0]), static_cast<int>(ww[1])), W))
                       : static_cast<int>(W * d.uniform(ww[0], ww[1]));
    const int y = static_cast<int>(d.integer(0, H - h)), x = static_cast<int>(d.integer(0, W - w));
    out.push_back({x, y, w, h});
  }
  return out;
}

TEST(CoarseDropout, HolesFollowAlbumentationsSampling) {
  const Pipeline frac = one_stage(R"({"stage": "coarse_dropout", "p": 1})");
  const Pipeline pix = one_stage(R"({"stage": "coarse_dropout", "p": 1, "num_holes": [2, 9], "hole_height": [3, 12], "hole_width": 0.25})");
  std::map<int, int> counts;
  for (int i = 0; i < 1000; ++i) {
    const int W = 30 + i % 41, H = 8 + i % 29;
    const std::string key = "d" + std::to_string(i);
    {
      Draws d(stream_of(key));
      const auto got = recorded_rects(frac.plan(11, key, 0, {W, H, 3, DType::U8}));
      ASSERT_EQ(got, dropout_reference(d, H, W, 1, 2, {0.1, 0.2}, false, {0.1, 0.2}, false)) << key;
    }
    Draws d(stream_of(key));
    const auto got = recorded_rects(pix.plan(11, key, 0, {W, H, 3, DType::U8}));
    ASSERT_EQ(got, dropout_reference(d, H, W, 2, 9, {3, 12}, true, {0.25, 0.25}, false)) << key;
    ++counts[static_cast<int>(got.size())];
    for (const Box& b : got) ASSERT_TRUE(b.x >= 0 && b.y >= 0 && b.x + b.w <= W && b.y + b.h <= H);
  }
  for (int n = 2; n <= 9; ++n) EXPECT_NEAR(counts[n] / 1000.0, 1 / 8.0, 0.04) << n;
}

TEST(CoarseDropout, FillsEveryHole) {
  for (DType t : {DType::U8, DType::U16, DType::F32}) {
    const Image im = random_image({57, 43, 4, t}, 6);
    const testing::Both b = run_both(
        one_stage(R"({"stage": "coarse_dropout", "p": 1, "num_holes": [5, 5], "hole_height": [4, 10], "hole_width": [0.1, 0.3], "fill": [0.25, 1]})"),
        im, "holes.png");
    ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
    const auto holes = recorded_rects(b.plan);
    ASSERT_EQ(holes.size(), 5u);
    const double fill[3] = {0.25, 1, 1};  // the last value repeats
    for (int y = 0; y < 43; ++y)
      for (int x = 0; x < 57; ++x) {
        bool inside = false;
        for (const Box& h : holes) inside |= x >= h.x && x < h.x + h.w && y >= h.y && y < h.y + h.h;
        for (int c = 0; c < 4; ++c) {
          const double want = inside && c < 3 ? (t == DType::F32 ? fill[c] : std::nearbyint(fill[c] * max_of(t))) : at(im, x, y, c);
          ASSERT_EQ(at(b.cpu, x, y, c), want);
        }
      }
  }
}

TEST(CoarseDropout, RejectsMixedUnitsAndDefaultsToHalf) {
  EXPECT_ANY_THROW(one_stage(R"({"stage": "coarse_dropout", "hole_height": [0.5, 3]})"));
  EXPECT_ANY_THROW(one_stage(R"({"stage": "coarse_dropout", "hole_width": [1.5, 3]})"));
  const Pipeline p = one_stage(R"({"stage": "coarse_dropout"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i) applied += p.plan(11, std::to_string(i), 0, {32, 32, 3, DType::U8}).steps[0].op != nullptr;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
}

// ---------------------------------------------------------------- channel_shuffle

TEST(ChannelShuffle, PermutesColourChannelsUniformly) {
  const Pipeline p = one_stage(R"({"stage": "channel_shuffle", "p": 1})");
  std::map<std::vector<int>, int> seen;
  const int n = 6000;
  for (int i = 0; i < n; ++i) {
    const auto order = p.plan(11, std::to_string(i), 0, {4, 4, 4, DType::U8}).record[0]["params"]["order"].get<std::vector<int>>();
    ASSERT_EQ(order.size(), 3u);
    ASSERT_EQ(std::set<int>(order.begin(), order.end()).size(), 3u);
    ++seen[order];
  }
  ASSERT_EQ(seen.size(), 6u);
  for (const auto& [order, count] : seen) EXPECT_NEAR(count / static_cast<double>(n), 1 / 6.0, 0.025);
}

TEST(ChannelShuffle, MovesChannelsByTheRecordedOrderAndKeepsAlpha) {
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int C : {1, 3, 4})
      for (const char* key : {"a.png", "b.png", "c.png", "d.png"}) {
        const Image im = random_image({19, 13, C, t}, 2);
        const testing::Both b = run_both(one_stage(R"({"stage": "channel_shuffle", "p": 1})"), im, key);
        ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
        const auto order = b.plan.record[0]["params"]["order"].get<std::vector<int>>();
        ASSERT_EQ(order.size(), static_cast<std::size_t>(C == 4 ? 3 : C));
        for (int y = 0; y < 13; ++y)
          for (int x = 0; x < 19; ++x)
            for (int c = 0; c < C; ++c)
              ASSERT_EQ(at(b.cpu, x, y, c), at(im, x, y, c < static_cast<int>(order.size()) ? order[c] : c));
      }
}

// ---------------------------------------------------------------- rgb_shift

TEST(RgbShift, AddsTheDrawnShiftsSaturating) {
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int C : {1, 3, 4}) {
      const Image im = random_image({29, 21, C, t}, 12);
      const testing::Both b = run_both(
          one_stage(R"({"stage": "rgb_shift", "p": 1, "r_shift": [0.1, 0.3], "g_shift": 0.2, "b_shift": [-0.5, -0.4]})"), im, "s.png");
      ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
      const auto& rec = b.plan.record[0]["params"];
      const double s[3] = {rec["r_shift"], rec["g_shift"], rec["b_shift"]};
      ASSERT_TRUE(s[0] >= 0.1 && s[0] < 0.3 && s[1] >= -0.2 && s[1] < 0.2 && s[2] >= -0.5 && s[2] < -0.4);
      const double gray = 0.299 * s[0] + 0.587 * s[1] + 0.114 * s[2];
      for (int y = 0; y < 21; ++y)
        for (int x = 0; x < 29; ++x)
          for (int c = 0; c < C; ++c) {
            const double v = at(im, x, y, c);
            double want = v;
            if (c < 3) {
              const double shift = C == 1 ? gray : s[c];
              if (t == DType::F32) want = std::clamp(static_cast<float>(v) + static_cast<float>(shift), 0.f, 1.f);
              else want = std::clamp(std::nearbyint(v + shift * max_of(t)), 0.0, max_of(t));
            }
            ASSERT_EQ(at(b.cpu, x, y, c), want) << dtype_name(t) << C << " " << x << "," << y << "," << c;
          }
    }
}

TEST(RgbShift, ANumberIsASymmetricRangeAndTheDefaultIsTwentyLevels) {
  const Pipeline p = one_stage(R"({"stage": "rgb_shift", "p": 1})");
  double lo = 1, hi = -1;
  for (int i = 0; i < 2000; ++i) {
    const nlohmann::json rec = p.plan(11, std::to_string(i), 0, {4, 4, 3, DType::U8}).record[0]["params"];
    for (const char* k : {"r_shift", "g_shift", "b_shift"}) {
      const double s = rec[k];
      lo = std::min(lo, s), hi = std::max(hi, s);
      ASSERT_LE(std::fabs(s), 20.0 / 255);
    }
  }
  EXPECT_LT(lo, -0.075);
  EXPECT_GT(hi, 0.075);
  // Twenty 8-bit levels exactly: 100 + 20 = 120.
  Image im({1, 1, 3, DType::U8});
  std::fill_n(im.data(), 3, static_cast<std::uint8_t>(100));
  const Image out = testing::run_cpu(R"({"stage": "rgb_shift", "p": 1, "r_shift": [0.0784313725490196, 0.0784313725490196], "g_shift": 0, "b_shift": [-0.0784313725490196, -0.0784313725490196]})", im);
  EXPECT_EQ(out.row(0)[0], 120);
  EXPECT_EQ(out.row(0)[1], 100);
  EXPECT_EQ(out.row(0)[2], 80);
}

}  // namespace
}  // namespace aug
