// snow: Albumentations' RandomSnow (bleach) written out with OpenCV (cv::cvtColor RGB2HLS on 8-bit
// values, the lightness scaled in float32 below the threshold, cv::cvtColor HLS2RGB) against both
// backends on the sample photographs and on every 8-bit colour, 0 differing values; the draw
// against the uniform distribution; 16-bit and float through 8 bits; the import (1.x and 2.x) and
// the refusal of the texture method.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/core/hls8.hpp"
#include "lib/core/rng.hpp"
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
  const std::string stage = R"({"stage": "snow", "p": 1, "snow_point": [0.3, 0.8]})";
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

TEST(Snow, ImportsRandomSnowOfBothVersionsAndRefusesTexture) {
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
  try {
    one_stage(R"({"stage": "snow", "method": "texture"})");
    ADD_FAILURE() << "method texture was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("method"), std::string::npos) << e.what();
  }
  EXPECT_ANY_THROW(import_one("2.0.8", R"({"__class_fullname__": "RandomSnow", "method": "texture"})"));
}

}  // namespace
}  // namespace aug::test_snow
