// snow: Albumentations' RandomSnow (bleach) written out with OpenCV (cv::cvtColor RGB2HLS on 8-bit
// values, the lightness scaled in float32 below the threshold, cv::cvtColor HLS2RGB) against both
// backends on the sample photographs and on every 8-bit colour, 0 differing values; the draw
// against the uniform distribution; 16-bit and float through 8 bits; the import (1.x and 2.x). The
// texture method (2.x) written out with OpenCV (the noise field through cv::GaussianBlur twice,
// cv::cvtColor RGB2HSV, cv::add, cv::addWeighted, numpy's cast, cv::cvtColor HSV2RGB) against both
// backends, 0 differing values; its noise and sparkles against Albumentations' distributions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/core/hls8.hpp"
#include "kernels/core/philox.hpp"
#include "kernels/noise/normal.hpp"
#include "lib/core/rng.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_snow {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::one_stage;
using testing::run_both;
using testing::noise::stream_of;

// fpixel.add_snow_bleach on an 8-bit RGB image, with OpenCV and float32 arithmetic.
cv::Mat snow_reference(const cv::Mat& img, double snow_point, double coefficient) {
  cv::Mat hls;
  cv::cvtColor(img, hls, cv::COLOR_RGB2HLS);
  const float t = static_cast<float>(snow_point * 255 / 2 + 255.0 / 3);
  for (int y = 0; y < hls.rows; ++y)
    for (int x = 0; x < hls.cols; ++x) {
      cv::Vec3b& p = hls.at<cv::Vec3b>(y, x);
      float l = p[1];
      if (l < t) l *= static_cast<float>(coefficient);
      p[1] = static_cast<unsigned char>(std::clamp(l, 0.f, 255.f));
    }
  cv::Mat out;
  cv::cvtColor(hls, out, cv::COLOR_HLS2RGB);
  return out;
}

TEST(Snow, EightBitPhotographsEqualTheOpenCVSteps) {
  struct Config {
    const char* json;
    double lo, hi, coefficient;
  };
  const Config configs[] = {{R"({"stage": "snow", "p": 1})", 0.1, 0.3, 2.5},
                            {R"({"stage": "snow", "p": 1, "snow_point": [0, 1], "brightness_coeff": 1.5})", 0, 1, 1.5},
                            {R"({"stage": "snow", "p": 1, "snow_point": 0.9, "brightness_coeff": 4})", 0.9, 0.9, 4}};
  for (const char* name : testing::sampled({"astronaut.jpg", "chelsea.png", "coffee.png", "rocket.jpg"}))
    for (const Config& config : configs) {
      SCOPED_TRACE(std::string(name) + " " + config.json);
      const Image in = testing::sample_as(name, DType::U8, 3);
      const testing::Both b = run_both(one_stage(config.json), in, name);
      Draws d(stream_of(name));
      const double sp = config.lo == config.hi ? config.lo : d.uniform(config.lo, config.hi);
      ASSERT_EQ(b.plan.record[0]["params"]["snow_point"].get<double>(), sp);
      const Image want = from_mat(snow_reference(mat(in), sp, config.coefficient));
      EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
      EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
      EXPECT_GT(compare(in, want).count, 1000u);
    }
}

// RandomSnow (2.x, method texture): generate_snow_textures with the stage's generator (normal values
// from sub-stream 1, uniforms from sub-stream 2), then fpixel.add_snow_texture on an 8-bit RGB image.
cv::Mat texture_reference(const cv::Mat& img, const k::KeyedStream& stream, double sp, double coefficient) {
  const int H = img.rows, W = img.cols;
  cv::Mat texture(H, W, CV_64F), sparkle(H, W, CV_8U);
  const std::vector<float>& table = normal_table();
  for (int i = 0; i < H * W; ++i) {
    const auto block = static_cast<std::uint32_t>(i / 4);
    texture.at<double>(i / W, i % W) =
        0.5 + 0.3 * static_cast<double>(k::standard_normal(stream.block(block, 1).v[i % 4], table.data()));
    sparkle.at<std::uint8_t>(i / W, i % W) = k::uniform01f(stream.block(block, 2).v[i % 4]) > 0.99;
  }
  cv::GaussianBlur(texture, texture, {0, 0}, 1, 1);  // when drawn
  cv::Mat hsv;
  cv::cvtColor(img, hsv, cv::COLOR_RGB2HSV);
  hsv.convertTo(hsv, CV_32FC3);
  const auto brighten = static_cast<float>(1 + coefficient * sp);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) hsv.at<cv::Vec3f>(y, x)[2] = std::clamp(hsv.at<cv::Vec3f>(y, x)[2] * brighten, 0.f, 255.f);
  cv::GaussianBlur(texture, texture, {0, 0}, 1, 1);  // when applied
  cv::Mat layer(H, W, CV_32FC3);
  for (int y = 0; y < H; ++y) {
    const double depth = H > 1 ? (y == H - 1 ? 0.2 : y * ((0.2 - 1.0) / (H - 1)) + 1.0) : 1.0;
    for (int x = 0; x < W; ++x) {
      const auto v = static_cast<float>(texture.at<double>(y, x) * depth * 255 * sp);
      layer.at<cv::Vec3f>(y, x) = cv::Vec3f(v, v, v);
    }
  }
  cv::Mat snowy;
  cv::add(hsv, layer, snowy);
  const cv::Mat tint(H, W, CV_32FC3, cv::Scalar(0.6f, 0.75f, 1.f));
  cv::addWeighted(snowy, 0.85, tint, 0.15 * sp, 0, snowy);
  cv::Mat bytes(H, W, CV_8UC3);  // numpy's astype(uint8): truncated, wrapped
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int ch = 0; ch < 3; ++ch)
        bytes.at<cv::Vec3b>(y, x)[ch] = static_cast<std::uint8_t>(static_cast<int>(snowy.at<cv::Vec3f>(y, x)[ch]) & 255);
  cv::Mat out;
  cv::cvtColor(bytes, out, cv::COLOR_HSV2RGB);
  out.setTo(cv::Scalar::all(255), sparkle);
  return out;
}

TEST(Snow, TexturePhotographsEqualTheOpenCVSteps) {
  struct Config {
    const char* json;
    double lo, hi, coefficient;
  };
  const Config configs[] = {
      {R"({"stage": "snow", "p": 1, "method": "texture"})", 0.1, 0.3, 2.5},
      {R"({"stage": "snow", "p": 1, "method": "texture", "snow_point": [0.5, 1], "brightness_coeff": 0.5})", 0.5, 1, 0.5},
      {R"({"stage": "snow", "p": 1, "method": "texture", "snow_point": 0.95, "brightness_coeff": 4})", 0.95, 0.95, 4}};
  for (const char* name : testing::sampled({"astronaut.jpg", "chelsea.png", "coffee.png", "rocket.jpg"}))
    for (const Config& config : configs) {
      SCOPED_TRACE(std::string(name) + " " + config.json);
      const Image in = testing::sample_as(name, DType::U8, 3);
      const testing::Both b = run_both(one_stage(config.json), in, name);
      Draws d(stream_of(name));
      const double sp = config.lo == config.hi ? config.lo : d.uniform(config.lo, config.hi);
      ASSERT_EQ(b.plan.record[0]["params"]["snow_point"].get<double>(), sp);
      const Image want = from_mat(texture_reference(mat(in), stream_of(name), sp, config.coefficient));
      EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
      EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
      EXPECT_GT(compare(in, want).count, 1000u);
    }
}

// On a black image (H = S = V = 0) every component becomes trunc(0.85 * layer + tint): the output's
// largest channel follows the noise layer, whose mean is 0.5 * 255 * sp * depth(y) and whose spread
// is 0.3 * 255 * sp * depth(y) times the norm of the twice-applied sigma-1 kernel; about 1% of the
// pixels are sparkles (white).
TEST(Snow, TextureDrawsFollowAlbumentationsDefinition) {
  const int W = 160, H = 120;
  const Pipeline p = one_stage(R"({"stage": "snow", "p": 1, "method": "texture", "snow_point": [0.6, 0.9]})");
  Image black(Shape{W, H, 3, DType::U8});
  std::fill(black.data(), black.data() + black.shape().bytes(), std::uint8_t{0});
  // The 2-D kernel's squared norm: the 1-D sigma-1 kernel (9 taps) convolved with itself, squared sums.
  const cv::Mat g = cv::getGaussianKernel(9, 1, CV_64F);
  std::vector<double> gg(17, 0.0);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) gg[static_cast<std::size_t>(i + j)] += g.at<double>(i) * g.at<double>(j);
  double norm1 = 0;
  for (double v : gg) norm1 += v * v;
  const double spread = 0.3 * std::sqrt(norm1 * norm1);
  double sparkles = 0, pixels = 0, z_sum = 0, z2_sum = 0, count = 0;
  for (int i = 0; i < 40; ++i) {
    const testing::Both b = run_both(p, black, std::to_string(i) + ".png");
    EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
    const Plan& plan = b.plan;
    const Image& out = b.cpu;
    const double sp = plan.record[0]["params"]["snow_point"].get<double>();
    const auto recorded = plan.record[0]["params"]["sparkles"].get<double>();
    const auto v = out.view<std::uint8_t>();
    double white = 0;
    for (int y = 0; y < H; ++y) {
      const double depth = y * ((0.2 - 1.0) / (H - 1)) + 1.0;
      for (int x = 0; x < W; ++x) {
        const std::uint8_t* q = v.row(y) + 3 * x;
        if (q[0] == 255 && q[1] == 255 && q[2] == 255) {
          ++white;
          continue;
        }
        if (y < 8 || y >= H - 8 || x < 8 || x >= W - 8) continue;  // away from the blur's borders
        // V = trunc(0.85 * layer + tint) (+ up to 1 from HSV2RGB's rounding): the layer's normal value.
        const double value = std::max({q[0], q[1], q[2]}) + 0.5;
        const double field = value / 0.85 / (255 * sp * depth);
        const double z = (field - 0.5) / spread;
        z_sum += z;
        z2_sum += z * z;
        ++count;
      }
    }
    EXPECT_EQ(white, recorded) << "every sparkle is white, and nothing else is at these settings";
    sparkles += recorded;
    pixels += W * H;
  }
  const double rate = sparkles / pixels;
  EXPECT_NEAR(rate, 0.01, 4 * std::sqrt(0.01 * 0.99 / pixels));
  const double mean = z_sum / count, sd = std::sqrt(z2_sum / count - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.25);  // the 8-bit quantisation of a spread of a few values
  EXPECT_NEAR(sd, 1.0, 0.25);
}

TEST(Snow, EveryColourEqualsTheOpenCVSteps) {
  // All 2^24 colours in rows of 4096 pixels: every pixel on OpenCV's vector path.
  const int W = 4096, H = 4096;
  cv::Mat img(H, W, CV_8UC3);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const long i = static_cast<long>(y) * W + x;
      img.at<cv::Vec3b>(y, x) = cv::Vec3b(i & 255, (i >> 8) & 255, static_cast<unsigned char>(i >> 16));
    }
  const Image out = testing::run_cpu(R"({"stage": "snow", "p": 1, "snow_point": 0.5, "brightness_coeff": 1.7})",
                                     from_mat(img), "all.png");
  const Image want = from_mat(snow_reference(img, 0.5, 1.7));
  EXPECT_EQ(compare(out, want).count, 0u) << compare(out, want).str();
}

TEST(Snow, BothHlsPathsEqualCvtColorOnEveryColour) {
  // kernels/core/hls8.hpp against cv::cvtColor on all 2^24 inputs: rows of 4096 (OpenCV's vector
  // path) and of 7 (its scalar path), RGB to HLS, and HLS (H <= 180) back to RGB.
  for (int W : {4096, 7}) {
    const int H = ((1 << 24) + W - 1) / W;
    cv::Mat img(H, W, CV_8UC3), hls, rgb;
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        const long i = (static_cast<long>(y) * W + x) % (1L << 24);
        img.at<cv::Vec3b>(y, x) = cv::Vec3b(i & 255, (i >> 8) & 255, static_cast<unsigned char>(i >> 16));
      }
    cv::cvtColor(img, hls, cv::COLOR_RGB2HLS);
    cv::cvtColor(img, rgb, cv::COLOR_HLS2RGB);
    long forward = 0, back = 0;
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        const cv::Vec3b p = img.at<cv::Vec3b>(y, x), q = hls.at<cv::Vec3b>(y, x), r = rgb.at<cv::Vec3b>(y, x);
        int a, b, c;
        k::hls8_from_rgb(p[0], p[1], p[2], x < k::hls8_vector_end(W), a, b, c);
        forward += a != q[0] || b != q[1] || c != q[2];
        if (p[0] > 180) continue;
        k::rgb_from_hls8(p[0], p[1], p[2], a, b, c);
        back += a != r[0] || b != r[1] || c != r[2];
      }
    EXPECT_EQ(forward, 0) << W << " wide";
    EXPECT_EQ(back, 0) << W << " wide";
  }
}

TEST(Snow, OddWidthsTakeOpenCVsScalarPathOnTheLastColumns) {
  cv::RNG rng(4);
  for (int i = 0; i < 30; ++i) {
    const int w = rng.uniform(1, 40), h = rng.uniform(1, 20);
    cv::Mat src(h, w, CV_8UC3);
    rng.fill(src, cv::RNG::UNIFORM, 0, 256);
    const std::string key = "s" + std::to_string(i) + ".png";
    const testing::Both b = run_both(one_stage(R"({"stage": "snow", "p": 1, "snow_point": [0, 1]})"), from_mat(src), key);
    Draws d(stream_of(key));
    const double sp = d.uniform(0, 1);
    const Image want = from_mat(snow_reference(src, sp, 2.5));
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
    EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
  }
}

TEST(Snow, SnowPointIsUniformAndDefaultsToHalf) {
  const Pipeline p = one_stage(R"({"stage": "snow", "snow_point": [0.2, 0.7]})");
  std::vector<double> v;
  int applied = 0;
  for (int i = 0; i < 3000; ++i) {
    const Plan plan = p.plan(11, std::to_string(i), 0, {40, 30, 3, DType::U8});
    if (plan.steps[0].op == nullptr) continue;
    ++applied;
    v.push_back(plan.record[0]["params"]["snow_point"].get<double>());
  }
  EXPECT_NEAR(applied / 3000.0, 0.5, 0.04);
  EXPECT_LT(testing::ks_uniform(v, 0.2, 0.7), 1.36 / std::sqrt(static_cast<double>(v.size())));
}

TEST(Snow, SixteenBitAndFloatGoThroughEightBits) {
  const Image u8 = testing::sample_as("astronaut.jpg", DType::U8, 3);
  for (const std::string stage : {R"({"stage": "snow", "p": 1, "snow_point": [0.3, 0.8]})",
                                  R"({"stage": "snow", "p": 1, "snow_point": [0.3, 0.8], "method": "texture"})"}) {
    SCOPED_TRACE(stage);
    const Image want8 = testing::run_cpu(stage, u8, "a.png");
    cv::Mat m16, mf;
    mat(u8).convertTo(m16, CV_16UC3, 257);
    mat(u8).convertTo(mf, CV_32FC3, 1 / 255.0);
    for (const cv::Mat& m : {m16, mf}) {
      const testing::Both b = run_both(one_stage(stage), from_mat(m), "a.png");
      EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
      cv::Mat back;
      mat(b.cpu).convertTo(back, CV_8UC3, m.depth() == CV_16U ? 1 / 257.0 : 255.0);
      EXPECT_EQ(compare(from_mat(back), want8).count, 0u) << compare(from_mat(back), want8).str();
    }
  }
}

TEST(Snow, ImportsRandomSnowOfBothVersionsWithEitherMethod) {
  auto import_one = [](const std::string& version, const std::string& transform) {
    const nlohmann::json saved = nlohmann::json::parse(R"({"__version__": ")" + version +
                                                       R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" +
                                                       transform + "]}}");
    return import_albumentations(saved, "a.json");
  };
  const Imported two = import_one("2.0.8", R"({"__class_fullname__": "RandomSnow", "snow_point_range": [0.2, 0.4], )"
                                           R"("brightness_coeff": 2, "method": "bleach", "p": 1})");
  const auto& s = two.pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "snow");
  EXPECT_EQ(s["snow_point"], nlohmann::ordered_json::array({0.2, 0.4}));
  EXPECT_EQ(s["brightness_coeff"], 2);
  EXPECT_TRUE(two.notes.empty());
  const Imported one = import_one("1.3.1", R"({"__class_fullname__": "RandomSnow", "snow_point_lower": 0.15, )"
                                           R"("snow_point_upper": 0.35, "brightness_coeff": 3})");
  const auto& o = one.pipeline["stages"][0];
  EXPECT_EQ(o["snow_point"], nlohmann::ordered_json::array({0.15, 0.35}));
  EXPECT_EQ(o["brightness_coeff"], 3);
  EXPECT_EQ(o["p"], 0.5);
  for (const Imported* i : {&one, &two}) {
    const Pipeline p = Pipeline::parse(i->pipeline.dump(), "snow");
    EXPECT_NO_THROW(p.plan(3, "a.png", 0, Shape{64, 48, 3, DType::U8}));
  }
  const Imported texture = import_one("2.0.8", R"({"__class_fullname__": "RandomSnow", "method": "texture", "p": 1})");
  EXPECT_EQ(texture.pipeline["stages"][0]["method"], "texture");
  const Plan plan = Pipeline::parse(texture.pipeline.dump(), "snow").plan(3, "a.png", 0, Shape{64, 48, 3, DType::U8});
  EXPECT_EQ(plan.record[0]["params"]["method"], "texture");
  EXPECT_ANY_THROW(import_one("2.0.8", R"({"__class_fullname__": "RandomSnow", "method": "powder"})"));
  EXPECT_ANY_THROW(one_stage(R"({"stage": "snow", "method": "powder"})"));
}

}  // namespace
}  // namespace aug::test_snow
