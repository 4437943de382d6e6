// random_erasing: torchvision's RandomErasing.get_params written out here with the stage's draws
// (the recorded rectangle, or none when all ten tries fail), the area and aspect distribution, the
// fill (a constant per channel, or normal noise from the keyed stream) against both backends, the
// default probability, and the CPU path's constant fills against the kernels run on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "kernels/core/philox.hpp"
#include "kernels/noise/normal.hpp"
#include "lib/core/rng.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_random_erasing {
namespace {

using testing::compare;
using testing::expect_parity;
using testing::one_stage;
using testing::random_image;
using testing::run_both;
using testing::noise::at;
using testing::noise::Box;
using testing::noise::max_of;
using testing::noise::recorded_rects;
using testing::noise::stream_of;

// Python's round: half to even.
double py_round(double v) {
  const double f = std::floor(v), diff = v - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return std::fmod(f, 2.0) == 0 ? f : f + 1;
}

// torchvision's RandomErasing.get_params written out with the stage's draws; nothing when all ten
// tries fail.
std::optional<Box> erasing_reference(Draws& d, int H, int W, double s0, double s1, double r0, double r1) {
  const double area = static_cast<double>(H) * W;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double erase_area = area * d.uniform(s0, s1);
    const double aspect = std::exp(d.uniform(std::log(r0), std::log(r1)));
    const int h = static_cast<int>(py_round(std::sqrt(erase_area * aspect)));
    const int w = static_cast<int>(py_round(std::sqrt(erase_area / aspect)));
    if (!(h < H && w < W)) continue;
    const int i = static_cast<int>(d.integer(0, H - h));  // randint(0, H - h + 1), exclusive
    const int j = static_cast<int>(d.integer(0, W - w));
    return Box{j, i, w, h};
  }
  return std::nullopt;
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
          run_both(one_stage(R"({"stage": "random_erasing", "p": 1, "scale": [0.2, 0.3], "value": [1, 0.5, 0.2]})"), im,
                   "fill.png");
      ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
      const auto rects = recorded_rects(b.plan);
      ASSERT_EQ(rects.size(), 1u);
      const Box r = rects[0];
      const double fill[3] = {1, 0.5, 0.2};
      for (int y = 0; y < 39; ++y)
        for (int x = 0; x < 41; ++x)
          for (int c = 0; c < C; ++c) {
            const bool inside = x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h && !(C == 4 && c == 3);
            const double want =
                inside ? (t == DType::F32 ? static_cast<float>(fill[c]) : std::nearbyint(fill[c] * max_of(t)))
                       : at(im, x, y, c);
            ASSERT_EQ(at(b.cpu, x, y, c), want) << x << "," << y << "," << c;
          }
    }
}

TEST(RandomErasing, RandomValueIsNormalNoiseInTheRectangle) {
  const auto& table = normal_table();
  const Image im = random_image({60, 50, 3, DType::U8}, 4);
  const testing::Both b = run_both(
      one_stage(R"({"stage": "random_erasing", "p": 1, "scale": [0.3, 0.3], "ratio": [1, 1], "random": true})"), im,
      "random.png");
  ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
  const Box r = recorded_rects(b.plan).at(0);
  EXPECT_EQ(b.plan.record[0]["params"]["value"], "random");
  const k::KeyedStream s = stream_of("random.png");
  for (int y = r.y; y < r.y + r.h; ++y)
    for (int x = r.x; x < r.x + r.w; ++x) {
      const auto bits =
          k::philox4x32_10({{static_cast<std::uint32_t>(y * 60 + x), 1, s.stage, s.copy}}, s.key0, s.key1);
      for (int c = 0; c < 3; ++c) {
        const float z = k::standard_normal(bits.v[c], table.data());
        ASSERT_EQ(at(b.cpu, x, y, c), std::clamp(std::nearbyint(z * 255.f), 0.f, 255.f));
      }
    }
}

TEST(RandomErasing, DefaultProbabilityIsTorchvisionsHalf) {
  const Pipeline p = one_stage(R"({"stage": "random_erasing"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i)
    applied += p.plan(11, std::to_string(i), 0, {32, 32, 3, DType::U8}).steps[0].op != nullptr;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
}

TEST(RandomErasing, ConstantFillsEqualTheKernels) {
  expect_parity(R"({"stage": "random_erasing", "p": 1})", {DType::U8, DType::U16, DType::F32}, {1, 3, 4}, 4);
  expect_parity(R"({"stage": "random_erasing", "p": 1, "value": [0.2, 0.5, 0.9]})", {DType::U8, DType::U16, DType::F32},
                {1, 3, 4}, 4);
}

// Albumentations' Erasing.get_params_dependent_on_data written out with the stage's draws: ratio is
// width / height, one draw within the areas and ratios that fit, no retries.
std::optional<Box> albumentations_reference(Draws& d, int H, int W, double s0, double s1, double r0, double r1) {
  // Python's order of operations: r * height * height is (r * height) * height.
  const double h_ = H, w_ = W, total = h_ * w_, hh = h_ * h_, ww = w_ * w_;
  const double min_area = total * s0;
  double max_valid = total * s1;
  max_valid = std::min(max_valid, std::min(r0 * h_ * h_, r1 * h_ * h_));
  max_valid = std::min(max_valid, std::min(ww / r0, ww / r1));
  if (max_valid < min_area) return std::nullopt;
  const double area = d.uniform(min_area, max_valid);
  const double max_r = std::min(r1, ww / area), min_r = std::max(r0, area / hh);
  if (min_r > max_r) return std::nullopt;
  const double r = d.uniform(min_r, max_r);
  const int h = static_cast<int>(py_round(std::sqrt(area / r))), w = static_cast<int>(py_round(std::sqrt(area * r)));
  const int top = static_cast<int>(d.integer(0, H - h)), left = static_cast<int>(d.integer(0, W - w));
  return Box{left, top, w, h};
}

TEST(RandomErasing, AlbumentationsSamplingFollowsErasing) {
  const Pipeline p = one_stage(
      R"({"stage": "random_erasing", "sampling": "albumentations", "p": 1, "scale": [0.05, 0.9], "ratio": [0.2, 5]})");
  int erased = 0, none = 0;
  for (int i = 0; i < 2000; ++i) {
    const int W = 3 + i % 41, H = 2 + i % 29;
    const std::string key = "a" + std::to_string(i);
    const Plan plan = p.plan(11, key, 0, {W, H, 3, DType::U8});
    Draws d(stream_of(key));
    const auto want = albumentations_reference(d, H, W, 0.05, 0.9, 0.2, 5);
    const auto got = recorded_rects(plan);
    if (!want) {
      ASSERT_TRUE(got.empty()) << key;
      ++none;
      continue;
    }
    ASSERT_EQ(got.size(), 1u) << key;
    ASSERT_EQ(got[0], *want) << key;
    ASSERT_LE(got[0].y + got[0].h, H) << key;
    ASSERT_LE(got[0].x + got[0].w, W) << key;
    ++erased;
  }
  EXPECT_GT(erased, 1500);
  EXPECT_GT(none, 0);  // thin images with a large minimum area fit nothing
}

TEST(RandomErasing, AlbumentationsSamplingDistribution) {
  // A square image where every area of the range fits every ratio: the area is uniform in scale and
  // the ratio (width / height, not its logarithm) uniform in ratio.
  const Pipeline p = one_stage(
      R"({"stage": "random_erasing", "sampling": "albumentations", "p": 1, "scale": [0.02, 0.1], "ratio": [0.5, 2]})");
  double sum_area = 0, sum_ratio = 0;
  int wide = 0;
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    const auto r = recorded_rects(p.plan(11, std::to_string(i), 0, {1000, 1000, 1, DType::U8}));
    ASSERT_EQ(r.size(), 1u);
    sum_area += r[0].w * static_cast<double>(r[0].h) / 1e6;
    sum_ratio += static_cast<double>(r[0].w) / r[0].h;
    wide += r[0].w > r[0].h;
  }
  EXPECT_NEAR(sum_area / n, 0.06, 0.002);
  EXPECT_NEAR(sum_ratio / n, 1.25, 0.02);        // uniform on [0.5, 2]; log-uniform would give 1.08
  EXPECT_NEAR(wide / static_cast<double>(n), 2.0 / 3, 0.03);  // P(ratio > 1) = 1 / 1.5
}

TEST(RandomErasing, AlbumentationsSamplingFillsAsTheOther) {
  const Image im = random_image({57, 50, 3, DType::U8}, 5);
  const testing::Both b = run_both(
      one_stage(R"({"stage": "random_erasing", "sampling": "albumentations", "p": 1, "scale": [0.2, 0.3], "value": 0.5})"),
      im, "alb.png");
  ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
  const auto rects = recorded_rects(b.plan);
  ASSERT_EQ(rects.size(), 1u);
  std::size_t filled = 0;
  for (int y = 0; y < 50; ++y)
    for (int x = 0; x < 57; ++x) {
      const bool inside = x >= rects[0].x && x < rects[0].x + rects[0].w && y >= rects[0].y && y < rects[0].y + rects[0].h;
      for (int c = 0; c < 3; ++c) ASSERT_EQ(at(b.cpu, x, y, c), inside ? 128.0 : at(im, x, y, c));
      filled += inside;
    }
  EXPECT_GT(filled, 0.2 * 57 * 50 - 57);
}

}  // namespace
}  // namespace aug::test_random_erasing
