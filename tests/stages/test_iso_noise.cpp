// iso_noise: the HLS conversions against cv::cvtColor (float on every 8-bit colour, the 8-bit
// conversion, and back from perturbed values); Albumentations 2.x's ISONoise written out here with
// cv::cvtColor for both conversions and the stage's draws, against both backends; the luminance
// counts (Poisson) and the hue noise (normal) over flat images; the import.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/core/philox.hpp"
#include "kernels/noise/iso_noise.hpp"
#include "kernels/noise/normal.hpp"
#include "lib/core/rng.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_iso_noise {
namespace {

using testing::compare;
using testing::one_stage;
using testing::random_image;
using testing::run_both;
using testing::noise::stream_of;

// Every 8-bit colour once, 4096 x 4096 (a width that keeps OpenCV on its vector path).
cv::Mat every_colour(bool as_float) {
  cv::Mat m(4096, 4096, as_float ? CV_32FC3 : CV_8UC3);
  for (int i = 0; i < (1 << 24); ++i) {
    const int v[3] = {(i >> 16) & 255, (i >> 8) & 255, i & 255};
    for (int c = 0; c < 3; ++c) {
      if (as_float) m.ptr<float>()[3 * i + c] = static_cast<float>(v[c] / 255.0);
      else m.ptr<std::uint8_t>()[3 * i + c] = static_cast<std::uint8_t>(v[c]);
    }
  }
  return m;
}

TEST(IsoNoise, HlsConversionsEqualCvtColor) {
  cv::setNumThreads(1);
  const cv::Mat f = every_colour(true);
  cv::Mat hls;
  cv::cvtColor(f, hls, cv::COLOR_RGB2HLS);
  std::size_t bad = 0;
  for (int i = 0; i < (1 << 24); ++i) {
    const float* p = f.ptr<float>() + 3 * i;
    const float* q = hls.ptr<float>() + 3 * i;
    float h, l, s;
    k::rgb_to_hls(p[0], p[1], p[2], h, l, s);
    bad += h != q[0] || l != q[1] || s != q[2];
  }
  EXPECT_EQ(bad, 0u) << "float RGB2HLS";
  // The 8-bit conversion: v * (1/255), the float conversion, then H / 2, L and S * 255, rounded.
  const cv::Mat b = every_colour(false);
  cv::Mat hls8;
  cv::cvtColor(b, hls8, cv::COLOR_RGB2HLS);
  bad = 0;
  for (int i = 0; i < (1 << 24); ++i) {
    const std::uint8_t* p = b.ptr<std::uint8_t>() + 3 * i;
    const std::uint8_t* q = hls8.ptr<std::uint8_t>() + 3 * i;
    float h, l, s;
    k::rgb_to_hls(p[0] * (1.f / 255.f), p[1] * (1.f / 255.f), p[2] * (1.f / 255.f), h, l, s);
    const auto r8 = [](float v) { return static_cast<int>(std::clamp(std::nearbyint(v), 0.f, 255.f)); };
    bad += r8(h * 0.5f) != q[0] || r8(l * 255.f) != q[1] || r8(s * 255.f) != q[2];
  }
  EXPECT_EQ(bad, 0u) << "8-bit RGB2HLS";
  // Back, from the exact values and from values moved as the stage moves them (hues below 0 and
  // above 360 included).
  std::uint32_t state = 12345;
  auto next = [&] { return (state = state * 1664525u + 1013904223u) >> 8; };
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1)
      for (int i = 0; i < (1 << 24); ++i) {
        float* q = hls.ptr<float>() + 3 * i;
        q[0] += (static_cast<float>(next()) / 16777216.0f - 0.5f) * 30.0f;
        q[1] = std::clamp(q[1] + static_cast<float>(next() % 4) * 0.3f * (1.0f - q[1]), 0.f, 1.f);
      }
    cv::Mat rgb;
    cv::cvtColor(hls, rgb, cv::COLOR_HLS2RGB);
    bad = 0;
    for (int i = 0; i < (1 << 24); ++i) {
      const float* q = hls.ptr<float>() + 3 * i;
      const float* o = rgb.ptr<float>() + 3 * i;
      float r, g, bb;
      k::hls_to_rgb(q[0], q[1], q[2], r, g, bb);
      bad += r != o[0] || g != o[1] || bb != o[2];
    }
    EXPECT_EQ(bad, 0u) << "float HLS2RGB, pass " << pass;
  }
}

// Albumentations 2.x's iso_noise with cv::cvtColor and the stage's draws, on an 8-bit RGB image
// whose width is a multiple of 8.
Image reference(const Image& im, const std::string& key, double shift, double intensity) {
  const int W = im.shape().width, H = im.shape().height, C = im.shape().channels;
  cv::Mat f(H, W, CV_32FC3), hls, rgb;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 3; ++c) f.at<cv::Vec3f>(y, x)[c] = static_cast<float>(im.row(y)[x * C + c] / 255.0);
  cv::cvtColor(f, hls, cv::COLOR_RGB2HLS);
  // sigma of L: sums over (max, min) pairs in order (the stage's order of summation).
  std::vector<double> count(65536, 0);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const std::uint8_t* p = im.row(y) + x * C;
      count[std::max({p[0], p[1], p[2]}) * 256 + std::min({p[0], p[1], p[2]})] += 1;
    }
  double sum = 0, sq = 0;
  for (int hi = 0; hi < 256; ++hi)
    for (int lo = 0; lo <= hi; ++lo) {
      if (count[hi * 256 + lo] == 0) continue;
      const double L = static_cast<float>((static_cast<float>(hi / 255.0) + static_cast<float>(lo / 255.0)) * 0.5f);
      sum += count[hi * 256 + lo] * L;
      sq += count[hi * 256 + lo] * (L * L);
    }
  const double N = static_cast<double>(W) * H, mean = sum / N;
  const double lambda = std::sqrt(std::max(sq / N - mean * mean, 0.0)) * intensity;
  std::vector<double> T;
  {
    double series = 1, term = 1;
    for (int j = 1; j <= 30; ++j) series += (term = term * lambda / j);
    double p = 1 / series, cdf = 0;
    for (int j = 0; j < 32; ++j) {
      cdf += p;
      T.push_back(std::min(std::nearbyint(cdf * 4294967296.0), 4294967295.0));
      p = p * lambda / (j + 1);
    }
  }
  const k::KeyedStream s = stream_of(key);
  const auto& table = normal_table();
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const auto r = k::philox4x32_10({{static_cast<std::uint32_t>(y * W + x), 1, s.stage, s.copy}}, s.key0, s.key1);
      int count_k = 0;
      while (count_k < 32 && r.v[0] >= T[count_k]) ++count_k;
      cv::Vec3f& q = hls.at<cv::Vec3f>(y, x);
      q[0] = q[0] + static_cast<float>(shift * intensity) * k::standard_normal(r.v[1], table.data());
      q[1] = std::clamp(q[1] + static_cast<float>(count_k) * static_cast<float>(intensity) * (1.0f - q[1]), 0.f, 1.f);
    }
  cv::cvtColor(hls, rgb, cv::COLOR_HLS2RGB);
  Image out(im.shape());
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      for (int c = 0; c < 3; ++c)
        out.row(y)[x * C + c] =
            static_cast<std::uint8_t>(std::nearbyint(std::clamp(rgb.at<cv::Vec3f>(y, x)[c], 0.f, 1.f) * 255.f));
      if (C == 4) out.row(y)[x * C + 3] = im.row(y)[x * C + 3];
    }
  return out;
}

TEST(IsoNoise, FollowsAlbumentationsWithCvtColor) {
  for (int C : {3, 4})
    for (const auto& [shift, intensity] : {std::pair{0.03, 0.3}, std::pair{1.0, 2.0}, std::pair{0.5, 0.9}}) {
      const std::string stage = R"({"stage": "iso_noise", "p": 1, "color_shift": )" + std::to_string(shift) +
                                R"(, "intensity": )" + std::to_string(intensity) + "}";
      for (const Image& im : {random_image({64, 40, C, DType::U8}, 21), testing::sample_as("astronaut.jpg", DType::U8, C)}) {
        const testing::Both b = run_both(one_stage(stage), im, "iso.png");
        ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u) << stage;
        const auto d = compare(b.cpu, reference(im, "iso.png", shift, intensity));
        EXPECT_EQ(d.count, 0u) << stage << " " << C << ": " << d.str();
      }
    }
}

TEST(IsoNoise, LuminanceCountsArePoissonAndHueNoiseIsNormal) {
  // Half black, half white (sigma(L) = 0.5), intensity 0.3, no hue noise: a black pixel becomes the
  // grey of l = min(0.3 k, 1) with k ~ Poisson(0.15); white stays white.
  Image im({256, 256, 3, DType::U8});
  for (int y = 0; y < 256; ++y)
    for (int x = 0; x < 256; ++x)
      for (int c = 0; c < 3; ++c) im.row(y)[3 * x + c] = x < 128 ? 0 : 255;
  const Image out = testing::run_cpu(R"({"stage": "iso_noise", "p": 1, "color_shift": 0, "intensity": 0.3})", im);
  const double lambda = 0.5 * 0.3;
  std::vector<double> hist(5, 0);  // k = 0..3, then 4 and more (white)
  double N = 0;
  for (int y = 0; y < 256; ++y)
    for (int x = 0; x < 256; ++x) {
      const std::uint8_t* p = out.row(y) + 3 * x;
      ASSERT_TRUE(p[0] == p[1] && p[1] == p[2]);
      if (x >= 128) {
        ASSERT_EQ(p[0], 255);
        continue;
      }
      int k = 0;
      while (k < 4 && std::nearbyint(std::min(0.3f * static_cast<float>(k), 1.f) * 255.f) != p[0]) ++k;
      if (k == 4) {
        ASSERT_EQ(p[0], 255);
      }
      hist[k] += 1;
      N += 1;
    }
  double chi2 = 0, mean = 0, p = std::exp(-lambda);
  for (int k = 0; k < 4; ++k) {
    const double e = N * p;
    mean += k * hist[k] / N;
    if (e >= 5) chi2 += (hist[k] - e) * (hist[k] - e) / e;
    p *= lambda / (k + 1);
  }
  EXPECT_LT(chi2, 13.8);  // at most 2 cells with enough counts (p = 0.001)
  EXPECT_NEAR(mean, lambda, 5 * std::sqrt(lambda / N));
  // Pure red, hue noise of 2 degrees: a shift d > 0 shows as green = d / 60 * 255; OpenCV's vector
  // HLS2RGB does not wrap a hue below 0, which stays red. So the green is the positive part of
  // N(0, 2^2) in units of 60/255 degrees: E[(d+)^2] = 2, P(green >= 1) = P(d >= 30/255).
  Image red({256, 128, 3, DType::U8});
  for (int i = 0; i < 256 * 128; ++i) red.data()[3 * i] = 255, red.data()[3 * i + 1] = 0, red.data()[3 * i + 2] = 0;
  const Image moved = testing::run_cpu(R"({"stage": "iso_noise", "p": 1, "color_shift": 1, "intensity": 2})", red);
  double s2 = 0, green = 0;
  const double M = 256 * 128;
  for (int i = 0; i < 256 * 128; ++i) {
    const std::uint8_t* q = moved.data() + 3 * i;
    ASSERT_EQ(q[0], 255);
    ASSERT_EQ(q[2], 0);
    const double d = q[1] / 255.0 * 60.0;
    s2 += d * d;
    green += q[1] >= 1;
  }
  EXPECT_NEAR(s2 / M, 2.0, 0.15);
  const double want = 0.5 * std::erfc(30.0 / 255.0 / 2.0 / std::sqrt(2.0));
  EXPECT_NEAR(green / M, want, 5 * std::sqrt(want * (1 - want) / M));
}

TEST(IsoNoise, DefaultsToHalfAndImports) {
  const Pipeline p = one_stage(R"({"stage": "iso_noise"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i) applied += p.plan(11, std::to_string(i), 0, {32, 32, 3, DType::U8}).steps[0].op != nullptr;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
  const nlohmann::json saved = nlohmann::json::parse(
      R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [)"
      R"({"__class_fullname__": "ISONoise", "color_shift": [0.02, 0.04], "intensity": [0.2, 0.3], "p": 1},)"
      R"({"__class_fullname__": "ISONoise"}]}})");
  const Imported imp = import_albumentations(saved, "a.json");
  EXPECT_EQ(imp.pipeline["stages"][0]["stage"], "iso_noise");
  EXPECT_EQ(imp.pipeline["stages"][0]["color_shift"], nlohmann::ordered_json::array({0.02, 0.04}));
  EXPECT_EQ(imp.pipeline["stages"][0]["intensity"], nlohmann::ordered_json::array({0.2, 0.3}));
  EXPECT_EQ(imp.pipeline["stages"][1]["intensity"], nlohmann::ordered_json::array({0.1, 0.5}));
  EXPECT_EQ(imp.pipeline["stages"][1]["p"], 0.5);
}

}  // namespace
}  // namespace aug::test_iso_noise
