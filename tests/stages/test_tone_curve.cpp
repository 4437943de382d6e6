// tone_curve: Albumentations' RandomToneCurve table written out as numpy evaluates it (float64,
// linspace, rint) against every 8-bit value, 16-bit images on 65536 levels, float images through
// the 8-bit table; both backends; the draws of the control points against the clipped normal
// distributions (Kolmogorov-Smirnov), per channel or not; the import of RandomToneCurve.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/color_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_tone_curve {
namespace {

using testing::color::at;
using testing::color::put;
using testing::compare;
using testing::one_stage;
using testing::run_both;

// Albumentations 2.x: t = np.linspace(0, 1, n); lut = clip(rint((3 * (1 - t)**2 * t * lo +
// 3 * (1 - t) * t**2 * hi + t**3) * max), 0, max), every operation in float64 left to right.
std::vector<std::int64_t> reference_lut(double lo, double hi, int levels) {
  std::vector<std::int64_t> lut(levels);
  const double step = 1.0 / (levels - 1);
  for (int i = 0; i < levels; ++i) {
    const double t = i == levels - 1 ? 1.0 : i * step;
    const double omt = 1 - t;
    const double b = 3 * (omt * omt) * t * lo + 3 * omt * (t * t) * hi + std::pow(t, 3);
    lut[i] = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::nearbyint(b * (levels - 1))), 0, levels - 1);
  }
  return lut;
}

// An image holding every value of the type in each channel (16 bits: a 256 x 256 image).
template <class T>
Image every_value(int channels) {
  const int n = std::is_same_v<T, std::uint16_t> ? 65536 : 256;
  const DType t = std::is_same_v<T, std::uint16_t> ? DType::U16 : DType::U8;
  Image im({256, n / 256, channels, t});
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < channels; ++c) put<T>(im, i % 256, i / 256, c, static_cast<T>((i + 97 * c) % n));
  return im;
}

std::vector<double> as_vector(const nlohmann::json& j) {
  if (j.is_array()) return j.get<std::vector<double>>();
  return {j.get<double>()};
}

template <class T>
void expect_tables(const std::string& stage, int channels) {
  const Image in = every_value<T>(channels);
  const auto both = run_both(one_stage(stage), in, "tables.png");
  EXPECT_EQ(compare(both.cpu, both.emulated).count, 0u);
  const nlohmann::json m = both.plan.steps.at(0).op->params();
  const std::vector<double> lo = as_vector(m.at("low_y")), hi = as_vector(m.at("high_y"));
  const int levels = std::is_same_v<T, std::uint16_t> ? 65536 : 256;
  const int cc = channels == 4 ? 3 : channels;
  std::size_t bad = 0;
  for (int c = 0; c < channels; ++c) {
    const std::size_t k = lo.size() == 1 ? 0 : static_cast<std::size_t>(c);
    const std::vector<std::int64_t> lut = c < cc ? reference_lut(lo.at(k), hi.at(k), levels) : std::vector<std::int64_t>{};
    for (int y = 0; y < in.shape().height; ++y)
      for (int x = 0; x < in.shape().width; ++x) {
        const T v = at<T>(in, x, y, c);
        const std::int64_t want = c < cc ? lut[v] : v;  // alpha copied
        bad += at<T>(both.cpu, x, y, c) != want;
      }
  }
  EXPECT_EQ(bad, 0u) << stage << " " << channels << " channels";
}

TEST(ToneCurve, EveryEightAndSixteenBitValueIsAlbumentationsTable) {
  for (const char* stage : {R"({"stage": "tone_curve", "p": 1})", R"({"stage": "tone_curve", "p": 1, "scale": 0.3})",
                            R"({"stage": "tone_curve", "p": 1, "scale": 0.4, "per_channel": true})"})
    for (int c : {1, 3, 4}) {
      expect_tables<std::uint8_t>(stage, c);
      expect_tables<std::uint16_t>(stage, c);
    }
  // A photograph: the same 8-bit table on both backends.
  const Image photo = testing::sample("astronaut.jpg");
  const auto b = run_both(one_stage(R"({"stage": "tone_curve", "p": 1, "per_channel": true})"), photo);
  EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
}

TEST(ToneCurve, FloatImagesReadTheEightBitTable) {
  const Image in = testing::random_image({61, 23, 4, DType::F32}, 3);
  const auto both = run_both(one_stage(R"({"stage": "tone_curve", "p": 1, "per_channel": true, "scale": 0.3})"), in);
  EXPECT_EQ(compare(both.cpu, both.emulated).count, 0u);
  const nlohmann::json m = both.plan.steps.at(0).op->params();
  const std::vector<double> lo = as_vector(m.at("low_y")), hi = as_vector(m.at("high_y"));
  std::size_t bad = 0;
  for (int c = 0; c < 4; ++c) {
    const std::vector<std::int64_t> lut = c < 3 ? reference_lut(lo.at(c), hi.at(c), 256) : std::vector<std::int64_t>{};
    for (int y = 0; y < 23; ++y)
      for (int x = 0; x < 61; ++x) {
        const float v = at<float>(in, x, y, c);
        float want = v;
        if (c < 3) {
          const float q = std::clamp(std::nearbyint(v * 255.f), 0.f, 255.f);
          want = static_cast<float>(lut[static_cast<int>(q)]) / 255.f;
        }
        bad += at<float>(both.cpu, x, y, c) != want;
      }
  }
  EXPECT_EQ(bad, 0u);
}

// The largest distance between the sample's distribution and clip(N(mean, sd), 0, 1)'s.
double ks_clipped_normal(std::vector<double> v, double mean, double sd) {
  auto cdf = [&](double x) { return 0.5 * std::erfc(-(x - mean) / (sd * std::sqrt(2.0))); };
  std::map<double, int> counts;
  for (double x : v) ++counts[x];
  const double n = static_cast<double>(v.size());
  double d = 0, seen = 0;
  for (const auto& [x, k] : counts) {
    const double below = seen / n, upto = (seen + k) / n;
    const double f_upto = x >= 1 ? 1.0 : cdf(x), f_below = x <= 0 ? 0.0 : cdf(x);
    d = std::max({d, std::abs(upto - f_upto), std::abs(below - f_below)});
    seen += k;
  }
  return d;
}

TEST(ToneCurve, ControlPointsAreClippedNormalDraws) {
  const int n = 4000;
  const double critical = 1.95 / std::sqrt(double(n));  // Kolmogorov-Smirnov at the 0.001 level
  for (double scale : {0.1, 0.25}) {
    const Pipeline p = one_stage(R"({"stage": "tone_curve", "p": 1, "scale": )" + std::to_string(scale) + "}");
    std::vector<double> lo, hi;
    for (int i = 0; i < n; ++i) {
      const nlohmann::json m = p.plan(9, "img" + std::to_string(i), 0, {8, 8, 3, DType::U8}).steps.at(0).op->params();
      lo.push_back(m.at("low_y").get<double>());
      hi.push_back(m.at("high_y").get<double>());
    }
    EXPECT_LT(ks_clipped_normal(lo, 0.25, scale), critical) << scale;
    EXPECT_LT(ks_clipped_normal(hi, 0.75, scale), critical) << scale;
  }
  // per_channel: one draw per colour channel, each with the same distribution.
  const Pipeline pc = one_stage(R"({"stage": "tone_curve", "p": 1, "per_channel": true})");
  std::vector<std::vector<double>> lo(3), hi(3);
  for (int i = 0; i < n; ++i) {
    const nlohmann::json m = pc.plan(9, "img" + std::to_string(i), 0, {8, 8, 4, DType::U8}).steps.at(0).op->params();
    ASSERT_EQ(m.at("low_y").size(), 3u);
    for (int c = 0; c < 3; ++c) {
      lo[c].push_back(m.at("low_y")[c].get<double>());
      hi[c].push_back(m.at("high_y")[c].get<double>());
    }
  }
  for (int c = 0; c < 3; ++c) {
    EXPECT_LT(ks_clipped_normal(lo[c], 0.25, 0.1), critical) << c;
    EXPECT_LT(ks_clipped_normal(hi[c], 0.75, 0.1), critical) << c;
  }
  EXPECT_NE(lo[0], lo[1]);
  int applied = 0;
  const Pipeline def = one_stage(R"({"stage": "tone_curve"})");
  for (int i = 0; i < 2000; ++i) applied += def.plan(3, std::to_string(i), 0, {8, 8, 3, DType::U8}).steps.at(0).op ? 1 : 0;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
}

TEST(ToneCurve, ImportsRandomToneCurve) {
  auto import_one = [](const std::string& transform) {
    const nlohmann::json saved = nlohmann::json::parse(
        R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [)" + transform + "]}}");
    return import_albumentations(saved, "a.json").pipeline["stages"][0];
  };
  const auto def = import_one(R"({"__class_fullname__": "RandomToneCurve"})");
  EXPECT_EQ(def["stage"], "tone_curve");
  EXPECT_EQ(def["scale"], 0.1);
  EXPECT_EQ(def["per_channel"], false);
  EXPECT_EQ(def["p"], 0.5);
  const auto pc = import_one(R"({"__class_fullname__": "RandomToneCurve", "scale": 0.2, "per_channel": true, "p": 1})");
  EXPECT_EQ(pc["scale"], 0.2);
  EXPECT_EQ(pc["per_channel"], true);
  EXPECT_EQ(pc["p"], 1.0);
}

}  // namespace
}  // namespace aug::test_tone_curve
