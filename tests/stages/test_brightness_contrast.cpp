// brightness_contrast: Albumentations 2.x's RandomBrightnessContrast written out here as numpy and
// albucore compute it (a float32 table over every value, the float64 sum for a mean-based beta, the
// safe range, truncation; float images in double), against the CPU path and the kernels run on the
// host: every 8- and 16-bit value, photographs by max and by the mean, float images with values out
// of range, alpha untouched; the draws against uniform distributions; the import of
// RandomBrightnessContrast and its 1.x halves RandomBrightness and RandomContrast.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_brightness_contrast {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

struct Case {
  double brightness, contrast;
  bool by_max, safe;
};

std::string stage_json(const Case& c) {
  return R"({"stage": "brightness_contrast", "p": 1, "brightness": )" + std::to_string(c.brightness) +
         R"(, "contrast": )" + std::to_string(c.contrast) + R"(, "brightness_by_max": )" + (c.by_max ? "true" : "false") +
         R"(, "ensure_safe_range": )" + (c.safe ? "true" : "false") + "}";
}

// alpha and beta as Albumentations' apply gets them: beta from max or from the mean (numpy's float64
// np.mean over the colour samples), then the safe range.
std::pair<double, double> alpha_beta(const Case& c, double max, double mean) {
  double alpha = 1 + c.contrast;
  double beta = c.by_max ? c.brightness * max : c.brightness * mean;
  if (c.safe) {
    if (alpha > 0) {
      beta = std::clamp(beta, 0.0, max);
      alpha = std::min(alpha, (max - beta) / max);
    } else {
      beta = std::min(beta, max);
      alpha = std::max(alpha, -beta / max);
    }
  }
  return {alpha, beta};
}

// albucore's multiply_add table for one value: np.arange(..., float32) * alpha stays float32 (alpha a
// Python float); + beta stays float32 for a Python float (by max) and becomes float64 for numpy's
// float64 (the mean); np.clip; astype truncates.
template <class T>
T numpy_value(T v, double alpha, double beta, bool beta_is_float64) {
  const double max = std::is_same_v<T, std::uint8_t> ? 255.0 : 65535.0;
  const float scaled = static_cast<float>(v) * static_cast<float>(alpha);
  const double t = beta_is_float64 ? static_cast<double>(scaled) + beta
                                   : static_cast<double>(scaled + static_cast<float>(beta));
  return static_cast<T>(std::trunc(std::clamp(t, 0.0, max)));
}

// The mean of the colour channels, in double.
double colour_mean(const Image& im) {
  const int cc = im.channels() == 4 ? 3 : im.channels();
  double sum = 0;
  std::size_t n = 0;
  with_sample_type(im.shape().dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int y = 0; y < im.height(); ++y) {
      const T* r = reinterpret_cast<const T*>(im.row(y));
      for (int x = 0; x < im.width(); ++x)
        for (int c = 0; c < cc; ++c, ++n) sum += static_cast<double>(r[x * im.channels() + c]);
    }
  });
  return sum / static_cast<double>(n);
}

// The reference of a whole 8- or 16-bit image: every colour sample through numpy_value, alpha kept.
template <class T>
Image reference(const Image& in, const Case& c) {
  const double max = std::is_same_v<T, std::uint8_t> ? 255.0 : 65535.0;
  const auto [alpha, beta] = alpha_beta(c, max, c.by_max ? 0.0 : colour_mean(in));
  Image out(in.shape());
  const int cc = in.channels() == 4 ? 3 : in.channels();
  for (int y = 0; y < in.height(); ++y) {
    const T* s = reinterpret_cast<const T*>(in.row(y));
    T* d = reinterpret_cast<T*>(out.row(y));
    for (int x = 0; x < in.width() * in.channels(); ++x)
      d[x] = x % in.channels() < cc ? numpy_value(s[x], alpha, beta, !c.by_max) : s[x];
  }
  return out;
}

const std::vector<Case> kCases = {
    {0.1, 0.3, true, false},   {-0.35, -0.25, true, false}, {0.2, 1.7, true, false},  {0.3, -0.2, false, false},
    {-0.6, 0.5, false, false}, {0.9, 0.8, true, true},       {-0.4, -1.6, true, true}, {0.45, 0.4, false, true},
    {-0.7, -1.3, false, true}, {0, 0, true, false}};

void expect_both_equal(const Image& in, const Image& want, const Case& c, const std::string& what) {
  const testing::Both b = run_both(one_stage(stage_json(c)), in);
  EXPECT_EQ(compare(b.cpu, want).count, 0u) << what << " " << stage_json(c) << ": " << compare(b.cpu, want).str();
  EXPECT_EQ(compare(b.emulated, want).count, 0u) << what << " " << stage_json(c) << " (kernels)";
}

TEST(BrightnessContrast, EveryEightAndSixteenBitValueIsAlbumentationsTable) {
  Image u8({256, 2, 3, DType::U8}), u16({65536, 1, 1, DType::U16});
  for (int v = 0; v < 256; ++v)
    for (int c = 0; c < 3; ++c) {
      u8.row(0)[v * 3 + c] = static_cast<std::uint8_t>(v);
      u8.row(1)[v * 3 + c] = static_cast<std::uint8_t>((v * 7 + c * 50) % 256);
    }
  for (int v = 0; v < 65536; ++v) reinterpret_cast<std::uint16_t*>(u16.row(0))[v] = static_cast<std::uint16_t>(v);
  for (const Case& c : kCases) {
    expect_both_equal(u8, reference<std::uint8_t>(u8, c), c, "u8 ramp");
    expect_both_equal(u16, reference<std::uint16_t>(u16, c), c, "u16 ramp");
  }
}

TEST(BrightnessContrast, KnownValues) {
  // alpha 1.2, beta 0.1 * 255 = 25.5 in float32: 100 * 1.2 + 25.5 = 145.5 -> 145; 200 -> 265.5 -> 255.
  Image im({3, 1, 1, DType::U8});
  im.row(0)[0] = 100, im.row(0)[1] = 200, im.row(0)[2] = 0;
  const Image out = run_both(one_stage(stage_json({0.1, 0.2, true, false})), im).cpu;
  EXPECT_EQ(out.row(0)[0], 145);
  EXPECT_EQ(out.row(0)[1], 255);
  EXPECT_EQ(out.row(0)[2], 25);
  // By the mean (100): beta = 0.5 * 100 = 50 -> 100 * 1.2 + 50 = 170; 0 -> 50.
  Image flat({2, 1, 1, DType::U8});
  flat.row(0)[0] = 0, flat.row(0)[1] = 200;
  const Image by_mean = run_both(one_stage(stage_json({0.5, 0.2, false, false})), flat).cpu;
  EXPECT_EQ(by_mean.row(0)[0], 50);
  EXPECT_EQ(by_mean.row(0)[1], 255);
}

TEST(BrightnessContrast, PhotographsByMaxAndByTheMeanKeepAlpha) {
  for (const char* name : {"astronaut.jpg", "coffee_rgba.png", "camera.png"}) {
    const Image in = testing::sample(name);
    for (const Case& c : {Case{0.2, 0.3, true, false}, Case{-0.3, 0.25, false, false}, Case{0.5, 0.6, false, true}}) {
      expect_both_equal(in, reference<std::uint8_t>(in, c), c, name);
      const Image in16 = testing::sample_as(name, DType::U16, in.channels());
      expect_both_equal(in16, reference<std::uint16_t>(in16, c), c, std::string(name) + " u16");
    }
  }
}

TEST(BrightnessContrast, FloatImagesInDoubleClippedToTheUnitRange) {
  Image in({64, 3, 4, DType::F32});
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 64 * 4; ++x)
      reinterpret_cast<float*>(in.row(y))[x] = static_cast<float>(-0.3 + 1.6 * ((x * 37 + y * 11) % 101) / 100.0);
  for (const Case& c : kCases) {
    const auto [alpha, beta] = alpha_beta(c, 1.0, c.by_max ? 0.0 : colour_mean(in));
    Image want(in.shape());
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 64 * 4; ++x) {
        const float v = reinterpret_cast<const float*>(in.row(y))[x];
        const double t = static_cast<double>(v) * static_cast<double>(static_cast<float>(alpha)) +
                         static_cast<double>(static_cast<float>(beta));
        reinterpret_cast<float*>(want.row(y))[x] = x % 4 == 3 ? v : static_cast<float>(std::clamp(t, 0.0, 1.0));
      }
    expect_both_equal(in, want, c, "f32");
  }
}

TEST(BrightnessContrast, DrawsAreUniformInTheirRangesAndRecorded) {
  const Pipeline p =
      one_stage(R"({"stage": "brightness_contrast", "p": 1, "brightness": [-0.3, 0.1], "contrast": [0.2, 0.6]})");
  const int n = 4000, bins = 10;
  std::vector<int> alpha_bins(bins), brightness_bins(bins);
  for (int i = 0; i < n; ++i) {
    const Plan plan = p.plan(3, "img" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8});
    const nlohmann::json m = plan.steps.at(0).op->params();
    const double alpha = m.at("alpha").get<double>(), brightness = m.at("brightness").get<double>();
    ASSERT_GE(alpha, 1.2);
    ASSERT_LE(alpha, 1.6);
    ASSERT_GE(brightness, -0.3);
    ASSERT_LE(brightness, 0.1);
    ++alpha_bins[std::min(bins - 1, static_cast<int>((alpha - 1.2) / 0.4 * bins))];
    ++brightness_bins[std::min(bins - 1, static_cast<int>((brightness + 0.3) / 0.4 * bins))];
  }
  // Chi-square with 9 degrees of freedom: 27.9 is its 0.999 quantile.
  for (const auto* h : {&alpha_bins, &brightness_bins}) {
    double chi2 = 0;
    for (int b : *h) chi2 += (b - n / double(bins)) * (b - n / double(bins)) / (n / double(bins));
    EXPECT_LT(chi2, 27.9);
  }
  // The default p is Albumentations' 0.5.
  int applied = 0;
  const Pipeline def = one_stage(R"({"stage": "brightness_contrast"})");
  for (int i = 0; i < 2000; ++i) applied += def.plan(3, std::to_string(i), 0, {8, 8, 3, DType::U8}).steps.at(0).op ? 1 : 0;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
}

TEST(BrightnessContrast, ImportsRandomBrightnessContrastAndItsHalves) {
  auto import_one = [](const std::string& transform) {
    const nlohmann::json saved = nlohmann::json::parse(
        R"({"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "transforms": [)" + transform + "]}}");
    return import_albumentations(saved, "a.json").pipeline["stages"][0];
  };
  const auto both = import_one(
      R"({"__class_fullname__": "RandomBrightnessContrast", "p": 0.5, "brightness_limit": 0.3, )"
      R"("contrast_limit": [-0.1, 0.4], "brightness_by_max": false})");
  EXPECT_EQ(both["stage"], "brightness_contrast");
  EXPECT_EQ(both["brightness"], nlohmann::ordered_json::array({-0.3, 0.3}));
  EXPECT_EQ(both["contrast"], nlohmann::ordered_json::array({-0.1, 0.4}));
  EXPECT_EQ(both["brightness_by_max"], false);
  EXPECT_EQ(both["p"], 0.5);
  const auto brightness = import_one(R"({"__class_fullname__": "RandomBrightness", "p": 1.0, "limit": 0.25})");
  EXPECT_EQ(brightness["brightness"], nlohmann::ordered_json::array({-0.25, 0.25}));
  EXPECT_EQ(brightness["contrast"], 0.0);
  const auto contrast = import_one(R"({"__class_fullname__": "RandomContrast", "limit": [-0.5, 0.1]})");
  EXPECT_EQ(contrast["contrast"], nlohmann::ordered_json::array({-0.5, 0.1}));
  EXPECT_EQ(contrast["brightness"], 0.0);
  EXPECT_EQ(contrast["p"], 0.5);  // Albumentations' default
}

}  // namespace
}  // namespace aug::test_brightness_contrast
