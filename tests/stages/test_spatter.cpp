// spatter: Albumentations 2.x's Spatter written out with OpenCV (its draws with the stage's generator,
// the liquid layer through cv::GaussianBlur, cv::Canny, cv::distanceTransform, cv::equalizeHist and
// cv::filter2D, or the blurred mud mask, then the float32 apply) against both backends on the sample
// photographs and on 40 random images of many sizes and fields (rain: the stage computes Canny and
// the distance transform itself), 0 differing values; the draws (the mode, the intensity, the cut of the normal field)
// against Albumentations' definition; 16-bit and float images; the import of Spatter (1.x and 2.x).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "kernels/noise/normal.hpp"
#include "lib/core/rng.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_spatter {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::one_stage;
using testing::run_both;
using testing::noise::stream_of;

struct Config {
  double mean = 0.65, std = 0.3, sigma = 2, threshold = 0.68, intensity = 0.6;
  bool mud = false;
  std::array<double, 3> color{238, 238, 175};
};

// Spatter.get_params_dependent_on_data (2.x) with the stage's generator and a float32 field, then
// fpixel.spatter_rain / spatter_mud on an 8-bit RGB image.
cv::Mat spatter_reference(const cv::Mat& img, const k::KeyedStream& stream, const Config& c) {
  const int H = img.rows, W = img.cols;
  cv::Mat liquid(H, W, CV_32F);
  const std::vector<float>& table = normal_table();
  for (int i = 0; i < H * W; ++i) {
    const float z = k::standard_normal(stream.block(static_cast<std::uint32_t>(i / 4), 1).v[i % 4], table.data());
    liquid.at<float>(i / W, i % W) = static_cast<float>(c.mean + c.std * z);
  }
  const int ksize = 2 * static_cast<int>(std::nearbyint(3 * c.sigma)) + 1;
  cv::GaussianBlur(liquid, liquid, {ksize, ksize}, c.sigma, c.sigma, cv::BORDER_REPLICATE);
  liquid.setTo(0, liquid < static_cast<float>(c.threshold));
  cv::Mat layer;  // rain: m; mud: mask
  if (!c.mud) {
    cv::Mat l8(H, W, CV_8U);  // clip(L * 255) cast to 8 bits: truncated
    for (int i = 0; i < H * W; ++i)
      l8.data[i] = static_cast<std::uint8_t>(std::clamp(liquid.at<float>(i / W, i % W) * 255.f, 0.f, 255.f));
    cv::Mat dist;
    cv::distanceTransform(
        255 -
            [&] {
              cv::Mat e;
              cv::Canny(l8, e, 50, 150);
              return e;
            }(),
        dist, cv::DIST_L2, 5);
    cv::threshold(dist, dist, 20, 20, cv::THRESH_TRUNC);
    cv::GaussianBlur(dist, dist, {3, 3}, 1, 1, cv::BORDER_REPLICATE);
    cv::Mat d8(H, W, CV_8U);
    for (int i = 0; i < H * W; ++i) d8.data[i] = static_cast<std::uint8_t>(dist.at<float>(i / W, i % W));
    cv::equalizeHist(d8, d8);
    cv::filter2D(d8, d8, -1, cv::Mat_<float>({3, 3}, {-2, -1, 0, -1, 1, 1, 0, 1, 2}));
    cv::GaussianBlur(d8, d8, {5, 5}, 1.5, 1.5, cv::BORDER_REPLICATE);
    cv::Mat l8f, d8f;
    l8.convertTo(l8f, CV_32F);
    d8.convertTo(d8f, CV_32F);
    layer = l8f.mul(d8f);
    double most = 0;
    cv::minMaxLoc(layer, nullptr, &most);
    const float inv = 1.f / static_cast<float>(most);  // numpy: m *= 1 / m_max, all binary32
    if (most > 0) layer.forEach<float>([&](float& v, const int*) { v = v * inv; });
  } else {
    layer = cv::Mat(H, W, CV_32F);
    for (int i = 0; i < H * W; ++i)
      layer.at<float>(i / W, i % W) = liquid.at<float>(i / W, i % W) > static_cast<float>(c.threshold) ? 1.f : 0.f;
    EXPECT_GT(cv::countNonZero(layer), 0) << "the photographs' masks are never empty at these settings";
    cv::GaussianBlur(layer, layer, {0, 0}, c.sigma, c.sigma, cv::BORDER_REPLICATE);
    double most = 0;
    cv::minMaxLoc(layer, nullptr, &most);
    // numpy: mask / mask_max, then mask * intensity, each in binary32 (cv::Mat's operators would
    // scale by a reciprocal in double).
    const auto m = static_cast<float>(most), s = static_cast<float>(c.intensity);
    layer.forEach<float>([&](float& v, const int*) { v = (v / m) * s; });
  }
  cv::Mat out(H, W, CV_8UC3);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const float l = layer.at<float>(y, x);
      for (int ch = 0; ch < 3; ++ch) {
        const float v = static_cast<float>(img.at<cv::Vec3b>(y, x)[ch]) / 255.f;
        const double color = c.color[ch] / 255.0;
        float r;
        if (!c.mud) {
          r = v + static_cast<float>(l * color * (c.intensity * 0.9));
        } else {
          const float mud = static_cast<float>(l * color);
          const float keep = color > 0 ? static_cast<float>(std::clamp((color - mud) / color, 0.0, 1.0)) : 1.f - l;
          r = v * keep + mud;
        }
        r = std::clamp(r, 0.f, 1.f);
        out.at<cv::Vec3b>(y, x)[ch] = static_cast<std::uint8_t>(std::rint(r * 255.f));
      }
    }
  return out;
}

TEST(Spatter, EightBitPhotographsEqualTheOpenCVSteps) {
  struct Case {
    const char* json;
    Config config;
  };
  Config mud;
  mud.mud = true;
  mud.color = {20, 42, 63};
  Config rain2;
  rain2.sigma = 3;
  rain2.threshold = 0.6;
  rain2.intensity = 1;
  rain2.color = {0, 128, 255};
  Config mud2 = mud;
  mud2.sigma = 1.2;
  mud2.mean = 0.5;
  mud2.color = {0, 90, 200};
  const Case cases[] = {
      {R"({"stage": "spatter", "p": 1})", Config{}},
      {R"({"stage": "spatter", "p": 1, "mode": "mud"})", mud},
      {R"({"stage": "spatter", "p": 1, "gauss_sigma": 3, "cutout_threshold": 0.6, "intensity": 1, "color": [0, 128, 255]})",
       rain2},
      {R"({"stage": "spatter", "p": 1, "mode": "mud", "gauss_sigma": 1.2, "mean": 0.5, "color": [0, 90, 200]})", mud2}};
  for (const char* name : testing::sampled({"astronaut.jpg", "chelsea.png", "coffee.png", "rocket.jpg"}))
    for (const Case& k : cases) {
      SCOPED_TRACE(std::string(name) + " " + k.json);
      const Image in = testing::sample_as(name, DType::U8, 3);
      const testing::Both b = run_both(one_stage(k.json), in, name);
      const Image want = from_mat(spatter_reference(mat(in), stream_of(name), k.config));
      EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
      EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
      EXPECT_GT(compare(in, want).count, 1000u);  // the layer changes the image
    }
}

// The rain layer's Canny and distance transform (the stage's own code) against OpenCV's calls over
// many fields: sizes from 1 x 1 to a few hundred pixels, thin to thick drops, cuts from sparse to
// dense.
TEST(Spatter, RainEqualsTheOpenCVStepsOverManyFields) {
  cv::RNG rng(7);
  for (int i = 0; i < 40; ++i) {
    const int W = i < 4 ? 1 + i : 5 + (i * 37) % 320, H = i < 4 ? 1 + (3 - i) : 3 + (i * 23) % 210;
    cv::Mat img(H, W, CV_8UC3);
    rng.fill(img, cv::RNG::UNIFORM, 0, 256);
    Config c;
    c.mean = 0.45 + 0.01 * (i % 30);
    c.std = 0.1 + 0.02 * (i % 17);
    c.sigma = 0.6 + 0.25 * (i % 13);
    c.threshold = 0.5 + 0.012 * (i % 25);
    c.intensity = 1;
    const std::string json = "{\"stage\": \"spatter\", \"p\": 1, \"intensity\": 1, \"mean\": " + std::to_string(c.mean) +
                             ", \"std\": " + std::to_string(c.std) + ", \"gauss_sigma\": " + std::to_string(c.sigma) +
                             ", \"cutout_threshold\": " + std::to_string(c.threshold) + "}";
    c.mean = std::stod(std::to_string(c.mean));  // the values the stage reads back from the text
    c.std = std::stod(std::to_string(c.std));
    c.sigma = std::stod(std::to_string(c.sigma));
    c.threshold = std::stod(std::to_string(c.threshold));
    const std::string key = "field" + std::to_string(i) + ".png";
    SCOPED_TRACE(key + " " + json);
    const Image in = from_mat(img);
    const testing::Both b = run_both(one_stage(json), in, key);
    const Image want = from_mat(spatter_reference(img, stream_of(key), c));
    EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
    EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
  }
}

// The cut keeps the pixels whose field value reaches the threshold: with a negligible blur, the
// fraction is 1 - Phi((threshold - mean) / std).
TEST(Spatter, DrawsFollowAlbumentationsDefinition) {
  const Pipeline p = one_stage(R"({"stage": "spatter", "mode": ["rain", "mud"], "intensity": [0.2, 0.7], )"
                               R"("mean": 0.5, "std": 0.3, "gauss_sigma": 0.01, "cutout_threshold": 0.8})");
  std::vector<double> intensity;
  int applied = 0, mud = 0;
  double wet = 0;
  for (int i = 0; i < 1200; ++i) {
    const Plan plan = p.plan(11, std::to_string(i), 0, {40, 30, 3, DType::U8});
    if (plan.steps[0].op == nullptr) continue;
    ++applied;
    const auto& rec = plan.record[0]["params"];
    intensity.push_back(rec["intensity"].get<double>());
    mud += rec["mode"] == "mud" ? 1 : 0;
    wet += rec["wet"].get<double>();
    EXPECT_EQ(rec["color"], rec["mode"] == "mud" ? nlohmann::json({20, 42, 63}) : nlohmann::json({238, 238, 175}));
  }
  EXPECT_NEAR(applied / 1200.0, 0.5, 0.05);
  EXPECT_NEAR(mud / static_cast<double>(applied), 0.5, 0.06);
  EXPECT_LT(testing::ks_uniform(intensity, 0.2, 0.7), 1.36 / std::sqrt(static_cast<double>(intensity.size())));
  // 1 - Phi(1) = 0.158655; about 600 images of 1200 pixels: the mean's spread is about 0.0004.
  EXPECT_NEAR(wet / applied, 0.158655, 0.003);
}

TEST(Spatter, SixteenBitAndFloatFollowTheEightBitPath) {
  const Image u8 = testing::sample_as("coffee.png", DType::U8, 3);
  for (const char* stage : {R"({"stage": "spatter", "p": 1})", R"({"stage": "spatter", "p": 1, "mode": "mud"})"}) {
    const Image want8 = testing::run_cpu(stage, u8, "a.png");
    cv::Mat m16, mf;
    mat(u8).convertTo(m16, CV_16UC3, 257);
    mat(u8).convertTo(mf, CV_32FC3, 1 / 255.0);
    for (const cv::Mat& m : {m16, mf}) {
      const testing::Both b = run_both(one_stage(stage), from_mat(m), "a.png");
      EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
      cv::Mat back;
      mat(b.cpu).convertTo(back, CV_8UC3, m.depth() == CV_16U ? 1 / 257.0 : 255.0);
      const auto diff = compare(from_mat(back), want8);
      EXPECT_LE(diff.max, 1.0) << diff.str();  // the same layer; only the quantisation differs
    }
  }
}

Imported import_one(const std::string& version, const std::string& transform) {
  const nlohmann::json saved =
      nlohmann::json::parse(R"({"__version__": ")" + version +
                            R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" + transform + "]}}");
  return import_albumentations(saved, "a.json");
}

TEST(Spatter, ImportsSpatterOfBothVersions) {
  const Imported two = import_one(
      "2.0.8",
      R"({"__class_fullname__": "Spatter", "mean": [0.6, 0.7], "std": [0.3, 0.3], "gauss_sigma": [2, 3], )"
      R"("cutout_threshold": [0.68, 0.68], "intensity": [0.5, 0.7], "mode": "mud", "color": [10, 20, 30], "p": 1})");
  const auto& s = two.pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "spatter");
  EXPECT_EQ(s["mean"], nlohmann::ordered_json::array({0.6, 0.7}));
  EXPECT_EQ(s["std"], 0.3);
  EXPECT_EQ(s["cutout_threshold"], 0.68);
  EXPECT_EQ(s["mode"], "mud");
  EXPECT_EQ(s["color"], nlohmann::ordered_json::array({10, 20, 30}));
  EXPECT_TRUE(two.notes.empty());
  const Pipeline p = Pipeline::parse(two.pipeline.dump(), "spatter");
  EXPECT_NE(p.plan(3, "a.png", 0, Shape{64, 48, 3, DType::U8}).steps.at(0).op, nullptr);

  const Imported one = import_one(
      "1.3.1",
      R"({"__class_fullname__": "Spatter", "mean": 0.65, "std": 0.3, "gauss_sigma": 2, "cutout_threshold": 0.68, )"
      R"("intensity": 0.6, "mode": ["rain", "mud"], "color": {"rain": [238, 238, 175], "mud": [20, 42, 63]}, )"
      R"("always_apply": false, "p": 0.5})");
  const auto& o = one.pipeline["stages"][0];
  EXPECT_EQ(o["mode"], nlohmann::ordered_json::array({"rain", "mud"}));
  EXPECT_FALSE(o.contains("color"));
  EXPECT_EQ(o["p"], 0.5);
  EXPECT_EQ(one.notes.size(), 1u);  // scipy's filter; the colours are the modes' defaults
  const Imported custom = import_one(
      "1.3.1", R"({"__class_fullname__": "Spatter", "mode": ["rain", "mud"], )"
               R"("color": {"rain": [200, 200, 200], "mud": [20, 42, 63]}, "always_apply": false})");
  EXPECT_EQ(custom.notes.size(), 2u);  // and the colour per mode that is not kept
  const Imported one_mud = import_one(
      "1.3.1",
      R"({"__class_fullname__": "Spatter", "mode": "mud", "color": {"mud": [1, 2, 3]}, "always_apply": false})");
  EXPECT_EQ(one_mud.pipeline["stages"][0]["color"], nlohmann::ordered_json::array({1, 2, 3}));
}

}  // namespace
}  // namespace aug::test_spatter
