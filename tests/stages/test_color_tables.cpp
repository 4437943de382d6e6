// grayscale, equalize, autocontrast, posterize, solarize and gamma: torchvision's formulas written out
// here value by value (binary32 where torchvision computes in float32, integers where it counts),
// compared with the CPU backend; the catalog suite compares the backends with each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using testing::run_both;
using testing::run_cpu;

template <class T>
T at(const Image& im, int x, int y, int c) {
  return reinterpret_cast<const T*>(im.row(y))[x * im.shape().channels + c];
}
template <class T>
void put(Image& im, int x, int y, int c, T v) {
  reinterpret_cast<T*>(im.row(y))[x * im.shape().channels + c] = v;
}

// ---------------------------------------------------------------------------------------------- grayscale

template <class T>
void expect_gray(const Image& in, const Image& out) {
  const Shape s = in.shape();
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      // torch: r.mul(0.2989).add_(g, alpha=0.587).add_(b, alpha=0.114), in float32, then .to(dtype).
      const float r = static_cast<float>(at<T>(in, x, y, 0)), g = static_cast<float>(at<T>(in, x, y, 1)),
                  b = static_cast<float>(at<T>(in, x, y, 2));
      const float pr = r * 0.2989f;
      const float pg = g * 0.587f;
      const float pb = b * 0.114f;
      const float l = (pr + pg) + pb;
      const T want = std::is_same_v<T, float> ? static_cast<T>(l) : static_cast<T>(std::trunc(l));
      for (int c = 0; c < 3; ++c) ASSERT_EQ(at<T>(out, x, y, c), want) << x << "," << y << "," << c;
      if (s.channels == 4) {
        ASSERT_EQ(at<T>(out, x, y, 3), at<T>(in, x, y, 3));
      }
    }
}

TEST(Grayscale, IsTorchvisionsLumaTruncatedInEveryChannel) {
  const std::string js = R"({"stage": "grayscale"})";
  for (int c : {3, 4}) {
    const Image u8 = testing::random_image({53, 17, c, DType::U8}, 1);
    expect_gray<std::uint8_t>(u8, run_cpu(js, u8));
    const Image u16 = testing::random_image({53, 17, c, DType::U16}, 2);
    expect_gray<std::uint16_t>(u16, run_cpu(js, u16));
    const Image f32 = testing::random_image({53, 17, c, DType::F32}, 3);
    expect_gray<float>(f32, run_cpu(js, f32));
  }
}

TEST(Grayscale, PrimariesAndGrayImages) {
  Image im({3, 1, 3, DType::U8});
  for (int x = 0; x < 3; ++x)
    for (int c = 0; c < 3; ++c) put<std::uint8_t>(im, x, 0, c, c == x ? 255 : 0);
  const Image out = run_cpu(R"({"stage": "grayscale"})", im);
  EXPECT_EQ(at<std::uint8_t>(out, 0, 0, 0), 76);   // 255 * 0.2989 = 76.22
  EXPECT_EQ(at<std::uint8_t>(out, 1, 0, 0), 149);  // 255 * 0.587 = 149.69
  EXPECT_EQ(at<std::uint8_t>(out, 2, 0, 0), 29);   // 255 * 0.114 = 29.07
  const Image gray = testing::random_image({31, 7, 1, DType::U8}, 4);
  EXPECT_EQ(testing::compare(run_cpu(R"({"stage": "grayscale"})", gray), gray).count, 0u);
  // White stays below 255: the weights sum to 0.9999.
  Image white({1, 1, 3, DType::U8});
  for (int c = 0; c < 3; ++c) put<std::uint8_t>(white, 0, 0, c, 255);
  EXPECT_EQ(at<std::uint8_t>(run_cpu(R"({"stage": "grayscale"})", white), 0, 0, 0), 254);
}

// ---------------------------------------------------------------------------------------------- equalize

// PIL's ImageOps.equalize as torchvision writes it, for one channel of `bins` values.
std::vector<std::int64_t> equalize_lut(const std::vector<std::int64_t>& hist) {
  const std::int64_t bins = static_cast<std::int64_t>(hist.size()), max = bins - 1;
  std::int64_t n = 0, last = 0;
  for (std::int64_t b = 0; b < bins; ++b) {
    n += hist[b];
    if (hist[b] > 0) last = b;
  }
  const std::int64_t step = (n - hist[last]) / max;
  std::vector<std::int64_t> lut(bins);
  if (step == 0) {
    for (std::int64_t b = 0; b < bins; ++b) lut[b] = b;
    return lut;
  }
  std::int64_t cum = 0;
  for (std::int64_t b = 0; b < bins; ++b) {
    lut[b] = std::min<std::int64_t>(max, (cum + step / 2) / step);
    cum += hist[b];
  }
  return lut;
}

template <class T>
void expect_equalized(const Image& in, const Image& out) {
  const Shape s = in.shape();
  const int cc = s.channels == 4 ? 3 : s.channels;
  const std::int64_t bins = std::is_same_v<T, std::uint16_t> ? 65536 : 256;
  auto bin = [](T v) -> std::int64_t {
    if constexpr (std::is_same_v<T, float>) return static_cast<std::int64_t>(std::clamp(v, 0.f, 1.f) * 255.999f);
    else return v;
  };
  for (int c = 0; c < s.channels; ++c) {
    std::vector<std::int64_t> hist(bins, 0);
    for (int y = 0; y < s.height; ++y)
      for (int x = 0; x < s.width; ++x) ++hist[bin(at<T>(in, x, y, c))];
    const std::vector<std::int64_t> lut = equalize_lut(hist);
    for (int y = 0; y < s.height; ++y)
      for (int x = 0; x < s.width; ++x) {
        const T v = at<T>(in, x, y, c);
        T want = v;
        if (c < cc) {
          if constexpr (std::is_same_v<T, float>) want = static_cast<float>(lut[bin(v)]) * static_cast<float>(1.0 / 255);
          else want = static_cast<T>(lut[v]);
        }
        ASSERT_EQ(at<T>(out, x, y, c), want) << x << "," << y << "," << c;
      }
  }
}

constexpr const char* kEqualize = R"({"stage": "equalize", "p": 1})";

TEST(Equalize, IsPilsSchemeOnEveryType) {
  for (int c : {1, 3, 4}) {
    const Image u8 = testing::random_image({61, 23, c, DType::U8}, 5);
    expect_equalized<std::uint8_t>(u8, run_cpu(kEqualize, u8));
    const Image u16 = testing::random_image({300, 230, c, DType::U16}, 6);  // enough pixels for a 16-bit step
    expect_equalized<std::uint16_t>(u16, run_cpu(kEqualize, u16));
    const Image f32 = testing::random_image({61, 23, c, DType::F32}, 7);
    expect_equalized<float>(f32, run_cpu(kEqualize, f32));
  }
  const Image photo = testing::sample("astronaut.jpg");
  expect_equalized<std::uint8_t>(photo, run_cpu(kEqualize, photo));
}

TEST(Equalize, SpreadsANarrowHistogramAndAgreesOnTheEmulatedDevice) {
  // Values 100..103, 64 of each: step = (256 - 64) // 255 = 0 -> unchanged; with 4096 of each the
  // channel spreads over the range.
  for (int count : {64, 4096}) {
    Image im({count, 4, 1, DType::U8});
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < count; ++x) put<std::uint8_t>(im, x, y, 0, static_cast<std::uint8_t>(100 + y));
    const auto both = run_both(testing::one_stage(kEqualize), im);
    EXPECT_EQ(testing::compare(both.cpu, both.emulated).count, 0u);
    if (count == 64) {
      EXPECT_EQ(testing::compare(both.cpu, im).count, 0u);
    } else {
      // step = 3 * 4096 // 255 = 48; lut[100] = 24 // 48 = 0, lut[101] = (4096 + 24) // 48 = 85, ...
      EXPECT_EQ(at<std::uint8_t>(both.cpu, 0, 0, 0), 0);
      EXPECT_EQ(at<std::uint8_t>(both.cpu, 0, 1, 0), 85);
      EXPECT_EQ(at<std::uint8_t>(both.cpu, 0, 2, 0), 171);
      EXPECT_EQ(at<std::uint8_t>(both.cpu, 0, 3, 0), 255);
    }
  }
}

// ---------------------------------------------------------------------------------------------- autocontrast

template <class T>
void expect_autocontrast(const Image& in, const Image& out) {
  const Shape s = in.shape();
  const int cc = s.channels == 4 ? 3 : s.channels;
  const double bound_d = std::is_same_v<T, float> ? 1.0 : (std::is_same_v<T, std::uint8_t> ? 255.0 : 65535.0);
  const float bound = static_cast<float>(bound_d);
  for (int c = 0; c < s.channels; ++c) {
    float lo = static_cast<float>(at<T>(in, 0, 0, c)), hi = lo;
    for (int y = 0; y < s.height; ++y)
      for (int x = 0; x < s.width; ++x) {
        lo = std::min(lo, static_cast<float>(at<T>(in, x, y, c)));
        hi = std::max(hi, static_cast<float>(at<T>(in, x, y, c)));
      }
    // torchvision v2: inv_scale = (max - min) * (1.0 / bound); where max == min: min = 0, inv_scale = 1.
    float m = lo, inv_scale = (hi - lo) * static_cast<float>(1.0 / bound_d);
    if (hi == lo) m = 0.f, inv_scale = 1.f;
    for (int y = 0; y < s.height; ++y)
      for (int x = 0; x < s.width; ++x) {
        const T v = at<T>(in, x, y, c);
        T want = v;
        if (c < cc) {
          const float r = std::clamp((static_cast<float>(v) - m) / inv_scale, 0.f, bound);
          want = std::is_same_v<T, float> ? static_cast<T>(r) : static_cast<T>(std::trunc(r));
        }
        ASSERT_EQ(at<T>(out, x, y, c), want) << x << "," << y << "," << c;
      }
  }
}

constexpr const char* kAutocontrast = R"({"stage": "autocontrast", "p": 1})";

TEST(Autocontrast, IsTorchvisionsStretchOnEveryType) {
  for (int c : {1, 3, 4}) {
    for (DType t : {DType::U8, DType::U16, DType::F32}) {
      // A narrower range than the random images' full one, so that the stretch does something.
      Image im = testing::random_image({45, 19, c, t}, 8);
      for (int y = 0; y < 19; ++y)
        for (int x = 0; x < 45 * c; ++x) {
          if (t == DType::U8) reinterpret_cast<std::uint8_t*>(im.row(y))[x] = 40 + reinterpret_cast<std::uint8_t*>(im.row(y))[x] / 3;
          if (t == DType::U16) reinterpret_cast<std::uint16_t*>(im.row(y))[x] = 9000 + reinterpret_cast<std::uint16_t*>(im.row(y))[x] / 5;
          if (t == DType::F32) reinterpret_cast<float*>(im.row(y))[x] = 0.2f + reinterpret_cast<float*>(im.row(y))[x] * 0.37f;
        }
      const Image out = run_cpu(kAutocontrast, im);
      if (t == DType::U8) expect_autocontrast<std::uint8_t>(im, out);
      if (t == DType::U16) expect_autocontrast<std::uint16_t>(im, out);
      if (t == DType::F32) expect_autocontrast<float>(im, out);
    }
  }
}

TEST(Autocontrast, ConstantAndFullRangeChannelsAreUnchanged) {
  Image im({64, 4, 3, DType::U8});
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 64; ++x) {
      put<std::uint8_t>(im, x, y, 0, 77);                                        // constant
      put<std::uint8_t>(im, x, y, 1, static_cast<std::uint8_t>((x * 4 + y) & 255));  // 0..255
      put<std::uint8_t>(im, x, y, 2, static_cast<std::uint8_t>(50 + x));           // 50..113
    }
  const auto both = run_both(testing::one_stage(kAutocontrast), im);
  EXPECT_EQ(testing::compare(both.cpu, both.emulated).count, 0u);
  for (int x = 0; x < 64; ++x) {
    EXPECT_EQ(at<std::uint8_t>(both.cpu, x, 0, 0), 77);
    EXPECT_EQ(at<std::uint8_t>(both.cpu, x, 1, 1), at<std::uint8_t>(im, x, 1, 1));
  }
  EXPECT_EQ(at<std::uint8_t>(both.cpu, 0, 0, 2), 0);
  // torchvision's quirk, kept: s = 63 * (float)(1/255) rounds up, so 63 / s = 254.99998 truncates to 254.
  EXPECT_EQ(at<std::uint8_t>(both.cpu, 63, 0, 2), 254);
  EXPECT_EQ(at<std::uint8_t>(both.cpu, 62, 0, 2), 250);  // 62 / s = 250.95
  expect_autocontrast<std::uint8_t>(im, both.cpu);
}

// ---------------------------------------------------------------------------------------------- posterize

Image ramp_u8() {
  Image im({256, 1, 1, DType::U8});
  for (int v = 0; v < 256; ++v) im.row(0)[v] = static_cast<std::uint8_t>(v);
  return im;
}

TEST(Posterize, KeepsTheTopBitsOfEveryValue) {
  const Image ramp = ramp_u8();
  for (int bits = 1; bits <= 8; ++bits) {
    const Image out = run_cpu(R"({"stage": "posterize", "p": 1, "bits": )" + std::to_string(bits) + "}", ramp);
    const int drop = 8 - bits;
    for (int v = 0; v < 256; ++v) ASSERT_EQ(out.row(0)[v], (v >> drop) << drop) << bits << " bits, v = " << v;
  }
  const Image u16 = testing::random_image({37, 5, 4, DType::U16}, 9);
  const Image o16 = run_cpu(R"({"stage": "posterize", "p": 1, "bits": 3})", u16);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 37; ++x)
      for (int c = 0; c < 4; ++c) {
        const int v = at<std::uint16_t>(u16, x, y, c);
        ASSERT_EQ(at<std::uint16_t>(o16, x, y, c), c < 3 ? (v & 0xE000) : v);
      }
  const Image f32 = testing::random_image({37, 5, 3, DType::F32}, 10);
  const Image of = run_cpu(R"({"stage": "posterize", "p": 1, "bits": 2})", f32);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 37 * 3; ++x) {
      const float v = reinterpret_cast<const float*>(f32.row(y))[x];
      ASSERT_EQ(reinterpret_cast<const float*>(of.row(y))[x], std::clamp(std::floor(v * 4.f), 0.f, 3.f) / 4.f);
    }
}

TEST(Posterize, DrawsEveryBitCountOfTheRange) {
  const Pipeline p = testing::one_stage(R"({"stage": "posterize", "p": 1, "bits": [2, 7]})");
  std::map<int, int> seen;
  for (int i = 0; i < 1200; ++i)
    ++seen[p.plan(3, "img" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8}).steps.at(0).op->params()["bits"].get<int>()];
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_EQ(seen.begin()->first, 2);
  EXPECT_EQ(seen.rbegin()->first, 7);
  for (const auto& [bits, n] : seen) EXPECT_NEAR(n, 200, 60) << bits;
}

// ---------------------------------------------------------------------------------------------- solarize

TEST(Solarize, ThresholdIsAFractionOfTheRange) {
  const Image ramp = ramp_u8();
  // torchvision's RandomSolarize(threshold=128) on uint8.
  const Image out = run_cpu(R"({"stage": "solarize", "p": 1, "threshold": )" + nlohmann::json(128.0 / 255.0).dump() + "}", ramp);
  for (int v = 0; v < 256; ++v) ASSERT_EQ(out.row(0)[v], v >= 128 ? 255 - v : v) << v;
  const Image all = run_cpu(R"({"stage": "solarize", "p": 1, "threshold": 0})", ramp);
  for (int v = 0; v < 256; ++v) ASSERT_EQ(all.row(0)[v], 255 - v);
  const Image none = run_cpu(R"({"stage": "solarize", "p": 1, "threshold": 1.01})", ramp);
  EXPECT_EQ(testing::compare(none, ramp).count, 0u);
  const Image top = run_cpu(R"({"stage": "solarize", "p": 1, "threshold": 1})", ramp);
  for (int v = 0; v < 256; ++v) ASSERT_EQ(top.row(0)[v], v == 255 ? 0 : v);

  const Image f32 = testing::random_image({29, 7, 4, DType::F32}, 11);
  const Image of = run_cpu(R"({"stage": "solarize", "p": 1, "threshold": 0.3})", f32);
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 29; ++x)
      for (int c = 0; c < 4; ++c) {
        const float v = at<float>(f32, x, y, c);
        ASSERT_EQ(at<float>(of, x, y, c), c < 3 && v >= 0.3f ? 1.f - v : v);
      }
}

TEST(Solarize, DrawsThresholdsUniformlyInTheRange) {
  const Pipeline p = testing::one_stage(R"({"stage": "solarize", "p": 1, "threshold": [0.2, 0.9]})");
  double lo = 1, hi = 0, sum = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    const double t = p.plan(3, "img" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8}).steps.at(0).op->params()["threshold"];
    lo = std::min(lo, t), hi = std::max(hi, t), sum += t;
  }
  EXPECT_GE(lo, 0.2);
  EXPECT_LT(hi, 0.9);
  EXPECT_LT(lo, 0.21);
  EXPECT_GT(hi, 0.89);
  EXPECT_NEAR(sum / n, 0.55, 0.015);
}

// ---------------------------------------------------------------------------------------------- gamma

// torchvision's adjust_gamma of one integer value, in float32.
std::int64_t gamma_value(std::int64_t v, double max, float gamma, float gain) {
  const float x = static_cast<float>(v) * static_cast<float>(1.0 / max);
  float y = gamma == 2.f ? x * x : (gamma == 0.5f ? std::sqrt(x) : std::pow(x, gamma));
  if (gain != 1.f) y = std::clamp(y * gain, 0.f, 1.f);
  if (max == 255.0) return static_cast<std::int64_t>(y * 255.999f);
  return std::llrint(static_cast<double>(y) * max);  // 16 bits: to nearest
}

TEST(Gamma, IsAdjustGammaOnEveryValue) {
  const Image ramp = ramp_u8();
  for (const auto& [gamma, gain] : std::vector<std::pair<double, double>>{{0.5, 1}, {2.2, 1}, {0.8, 1.3}, {2, 0.7}, {1, 1}}) {
    const Image out = run_cpu(R"({"stage": "gamma", "gamma": )" + std::to_string(gamma) + R"(, "gain": )" +
                                  std::to_string(gain) + "}",
                              ramp);
    for (int v = 0; v < 256; ++v)
      ASSERT_EQ(out.row(0)[v], gamma_value(v, 255, static_cast<float>(gamma), static_cast<float>(gain)))
          << gamma << " " << gain << " v = " << v;
  }
  EXPECT_EQ(testing::compare(run_cpu(R"({"stage": "gamma"})", ramp), ramp).count, 0u);
  Image ramp16({65536, 1, 1, DType::U16});
  for (int v = 0; v < 65536; ++v) put<std::uint16_t>(ramp16, v, 0, 0, static_cast<std::uint16_t>(v));
  EXPECT_EQ(testing::compare(run_cpu(R"({"stage": "gamma"})", ramp16), ramp16).count, 0u);
  const Image u16 = testing::random_image({41, 9, 3, DType::U16}, 12);
  const Image o16 = run_cpu(R"({"stage": "gamma", "gamma": 0.45})", u16);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 41 * 3; ++x)
      ASSERT_EQ(reinterpret_cast<const std::uint16_t*>(o16.row(y))[x],
                gamma_value(reinterpret_cast<const std::uint16_t*>(u16.row(y))[x], 65535, 0.45f, 1.f));
}

TEST(Gamma, KnownValues) {
  // (128 / 255)^0.5 * 255.999 = 181.37; (128 / 255)^2 * 255.999 = 64.50; 255 stays 255.
  const Image ramp = ramp_u8();
  EXPECT_EQ(run_cpu(R"({"stage": "gamma", "gamma": 0.5})", ramp).row(0)[128], 181);
  EXPECT_EQ(run_cpu(R"({"stage": "gamma", "gamma": 2})", ramp).row(0)[128], 64);
  EXPECT_EQ(run_cpu(R"({"stage": "gamma", "gamma": 2})", ramp).row(0)[255], 255);
  EXPECT_EQ(run_cpu(R"({"stage": "gamma", "gamma": 1, "gain": 2})", ramp).row(0)[200], 255);
}

}  // namespace
}  // namespace aug
