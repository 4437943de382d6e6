// multiplicative_noise: Albumentations' MultiplicativeNoise written out here (binary32 v m, clipped
// and truncated) with the stage's per-image draws and the per-pixel Philox multipliers against both
// backends on every type; the 8-bit result against cv::LUT over the sample photographs (as
// Albumentations applies its table); the uniformity of the multipliers; the import.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "kernels/core/philox.hpp"
#include "lib/core/rng.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_multiplicative_noise {
namespace {

using testing::compare;
using testing::one_stage;
using testing::random_image;
using testing::run_both;
using testing::noise::at;
using testing::noise::max_of;
using testing::noise::stream_of;

// numpy: (v.astype(float32) * m).clip(0, max).astype(dtype); float: clip(v * m, 0, 1).
double reference(double v, float m, DType t) {
  const float y = static_cast<float>(v) * m;
  if (t == DType::F32) return std::clamp(y, 0.f, 1.f);
  return std::trunc(std::clamp(y, 0.f, static_cast<float>(max_of(t))));
}

TEST(MultiplicativeNoise, FollowsTheReferenceOnEveryType) {
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int C : {1, 3, 4})
      for (bool per_channel : {false, true})
        for (bool elementwise : {false, true}) {
          const Image im = random_image({27, 15, C, t}, 4);
          const std::string stage = std::string(R"({"stage": "multiplicative_noise", "p": 1, "multiplier": [0.3, 1.8], )") +
                                    R"("per_channel": )" + (per_channel ? "true" : "false") + R"(, "elementwise": )" +
                                    (elementwise ? "true" : "false") + "}";
          const testing::Both b = run_both(one_stage(stage), im, "mul.png");
          ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u) << stage;
          const k::KeyedStream s = stream_of("mul.png");
          Draws d(s);
          float m[3] = {1, 1, 1};
          if (!elementwise) {
            for (int c = 0; c < (per_channel ? std::min(C, 3) : 1); ++c) m[c] = static_cast<float>(d.uniform(0.3, 1.8));
            if (!per_channel) m[1] = m[2] = m[0];
          }
          for (int y = 0; y < 15; ++y)
            for (int x = 0; x < 27; ++x) {
              const auto r =
                  k::philox4x32_10({{static_cast<std::uint32_t>(y * 27 + x), 1, s.stage, s.copy}}, s.key0, s.key1);
              for (int c = 0; c < C; ++c) {
                const double v = at(im, x, y, c);
                if (c == 3) {
                  ASSERT_EQ(at(b.cpu, x, y, c), v);
                  continue;
                }
                float mc = m[c];
                if (elementwise) {
                  const float u = static_cast<float>(r.v[per_channel ? c : 0] >> 8) / 16777216.0f;
                  mc = 0.3f + u * (1.8f - 0.3f);
                }
                ASSERT_EQ(at(b.cpu, x, y, c), reference(v, mc, t)) << stage << " " << x << "," << y << "," << c;
              }
            }
        }
}

TEST(MultiplicativeNoise, EightBitEqualsCvLutOnThePhotographs) {
  // Albumentations applies a uint8 table of (float32) v * m, clipped and truncated, with cv2.LUT.
  for (const char* name : {"astronaut.jpg", "chelsea.png", "coffee.png", "rocket.jpg", "camera.png"})
    for (int key = 0; key < 4; ++key) {
      const Image im = testing::sample(name);
      const std::string k = std::string(name) + std::to_string(key);
      const testing::Both b = run_both(
          one_stage(R"({"stage": "multiplicative_noise", "p": 1, "multiplier": [0.5, 1.6], "per_channel": true})"), im, k);
      const auto drawn = b.plan.record[0]["params"]["multiplier"].get<std::vector<double>>();
      const int C = im.shape().channels;
      cv::Mat lut(1, 256, CV_8UC(C));
      for (int v = 0; v < 256; ++v)
        for (int c = 0; c < C; ++c) {
          const float y = static_cast<float>(v) * static_cast<float>(c < 3 ? drawn[c] : 1.0);
          lut.ptr<std::uint8_t>()[v * C + c] = static_cast<std::uint8_t>(std::clamp(y, 0.f, 255.f));
        }
      cv::Mat want;
      cv::LUT(testing::mat(im), lut, want);
      EXPECT_EQ(compare(b.cpu, testing::from_mat(want)).count, 0u) << name;
      EXPECT_EQ(compare(b.emulated, testing::from_mat(want)).count, 0u) << name;
    }
}

TEST(MultiplicativeNoise, MultipliersAreUniform) {
  // A flat float image of 0.25 with multipliers in [0.5, 1.5]: out / 0.25 is the multiplier (no
  // clamp). Per pixel: Kolmogorov-Smirnov against U(0.5, 1.5), channels equal without per_channel
  // and uncorrelated with it; per image: the recorded multipliers over many seeds.
  Image im({128, 128, 3, DType::F32});
  std::fill_n(reinterpret_cast<float*>(im.data()), im.shape().values(), 0.25f);
  auto ks = [](std::vector<double> v, double lo, double hi) {
    std::sort(v.begin(), v.end());
    double worst = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double F = (v[i] - lo) / (hi - lo);
      worst = std::max({worst, std::fabs(F - static_cast<double>(i) / v.size()),
                        std::fabs(F - static_cast<double>(i + 1) / v.size())});
    }
    return worst;
  };
  for (bool per_channel : {false, true}) {
    const Image out = testing::run_cpu(
        std::string(R"({"stage": "multiplicative_noise", "p": 1, "multiplier": [0.5, 1.5], "elementwise": true, )") +
            R"("per_channel": )" + (per_channel ? "true" : "false") + "}",
        im);
    const float* o = reinterpret_cast<const float*>(out.data());
    std::vector<double> m;
    double cov = 0;
    for (std::size_t i = 0; i < im.shape().values(); i += 3) {
      if (!per_channel) {
        ASSERT_TRUE(o[i] == o[i + 1] && o[i] == o[i + 2]);
      }
      cov += (o[i] / 0.25 - 1) * (o[i + 1] / 0.25 - 1);
      for (int c = 0; c < 3; ++c) m.push_back(o[i + c] / 0.25);
    }
    const double n = static_cast<double>(m.size());
    EXPECT_LT(ks(m, 0.5, 1.5), 1.95 / std::sqrt(per_channel ? n : n / 3)) << per_channel;  // 0.1% level
    if (per_channel) {
      EXPECT_NEAR(cov / (n / 3) / (1.0 / 12), 0.0, 0.05);
    }
  }
  const Pipeline p = one_stage(R"({"stage": "multiplicative_noise", "p": 1, "multiplier": [0.8, 1.3]})");
  std::vector<double> drawn;
  for (int k = 0; k < 2000; ++k)
    drawn.push_back(p.plan(2, "m" + std::to_string(k), 0, {8, 8, 3, DType::U8}).record[0]["params"]["multiplier"][0]);
  EXPECT_LT(ks(drawn, 0.8, 1.3), 1.95 / std::sqrt(2000.0));
}

TEST(MultiplicativeNoise, DefaultsToHalfAndImports) {
  const Pipeline p = one_stage(R"({"stage": "multiplicative_noise"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i) applied += p.plan(11, std::to_string(i), 0, {32, 32, 3, DType::U8}).steps[0].op != nullptr;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
  const nlohmann::json saved = nlohmann::json::parse(
      R"({"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "transforms": [)"
      R"({"__class_fullname__": "MultiplicativeNoise", "multiplier": [0.7, 1.2], "per_channel": true, "elementwise": true},)"
      R"({"__class_fullname__": "MultiplicativeNoise", "multiplier": 1.5},)"
      R"({"__class_fullname__": "MultiplicativeNoise"}]}})");
  const Imported imp = import_albumentations(saved, "a.json");
  const auto& a = imp.pipeline["stages"][0];
  EXPECT_EQ(a["stage"], "multiplicative_noise");
  EXPECT_EQ(a["multiplier"], nlohmann::ordered_json::array({0.7, 1.2}));
  EXPECT_EQ(a["per_channel"], true);
  EXPECT_EQ(a["elementwise"], true);
  EXPECT_EQ(imp.pipeline["stages"][1]["multiplier"], nlohmann::ordered_json::array({1.5, 1.5}));
  EXPECT_EQ(imp.pipeline["stages"][2]["multiplier"], nlohmann::ordered_json::array({0.9, 1.1}));
  EXPECT_EQ(imp.pipeline["stages"][2]["p"], 0.5);
}

}  // namespace
}  // namespace aug::test_multiplicative_noise
