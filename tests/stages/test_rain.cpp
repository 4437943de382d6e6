// rain: Albumentations 2.x's RandomRain written out with OpenCV (its draws with the stage's
// generator, then cv::polylines on a zero layer, cv::blur, cv::add and cv::multiply of every channel)
// against both backends on the sample photographs, 0 differing values; 16-bit with the layer scaled
// by 257; the draws against Albumentations' definition; the import of RandomRain (1.x and 2.x).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/core/rng.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_rain {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::one_stage;
using testing::run_both;
using testing::noise::stream_of;

struct Config {
  const char* json;
  double lo, hi;  // slant
  int length;     // 0: max(1, H // 8)
  int width;
  cv::Scalar color;
  int blur;
  double coefficient;
  int per_three_rows;  // drops: H * per_three_rows / 3 (default 1, heavy 3, torrential 6); drizzle: -1
};

struct Drawn {
  double slant = 0;
  int length = 0;
  std::vector<cv::Point> starts;
};

// RandomRain.get_params_dependent_on_data (2.x) with the stage's generator.
Drawn draw_reference(Draws& d, int W, int H, const Config& c) {
  Drawn out;
  const int n = c.per_three_rows < 0 ? H / 4 : (c.per_three_rows == 1 ? H / 3 : H * c.per_three_rows / 3);
  out.length = c.length > 0 ? c.length : std::max(1, H / 8);
  out.slant = c.lo == c.hi ? c.lo : d.uniform(c.lo, c.hi);
  for (int i = 0; i < n; ++i) {
    const long x = d.integer(0, W - 1);                                     // integers(0, W)
    const long y = d.integer(0, std::max(0L, static_cast<long>(H) - out.length - 1));  // integers(0, H - len)
    out.starts.push_back({static_cast<int>(x), static_cast<int>(y)});
  }
  return out;
}

// fpixel.add_rain (2.x) with OpenCV, every channel scaled.
cv::Mat rain_reference(const cv::Mat& img, const Drawn& drawn, const Config& c) {
  if (drawn.starts.empty()) return img.clone();
  cv::Mat layer = cv::Mat::zeros(img.size(), CV_8UC3);
  std::vector<std::vector<cv::Point>> lines;
  for (const cv::Point& p : drawn.starts)
    lines.push_back({p, cv::Point(static_cast<int>(p.x + drawn.slant), p.y + drawn.length)});
  cv::polylines(layer, lines, false, c.color, c.width, cv::LINE_4);
  if (c.blur > 1) cv::blur(layer, layer, cv::Size(c.blur, c.blur));
  cv::Mat out;
  if (img.depth() == CV_16U) {
    cv::Mat layer16;
    layer.convertTo(layer16, CV_16UC3, 257);
    cv::add(img, layer16, out);
    cv::multiply(out, cv::Scalar::all(c.coefficient), out, 1, CV_16U);
  } else {
    cv::add(img, layer, out);
    cv::multiply(out, cv::Scalar::all(c.coefficient), out, 1, CV_8U);
  }
  return out;
}

const Config kConfigs[] = {
    {R"({"stage": "rain", "p": 1})", -10, 10, 0, 1, cv::Scalar(200, 200, 200), 7, 0.7, 1},
    {R"({"stage": "rain", "p": 1, "slant": [-20, -5], "drop_length": 15, "drop_width": 2, )"
     R"("drop_color": [120, 140, 255], "blur_value": 3, "brightness_coefficient": 0.9, "rain_type": "heavy"})",
     -20, -5, 15, 2, cv::Scalar(120, 140, 255), 3, 0.9, 3},
    {R"({"stage": "rain", "p": 1, "slant": 7.5, "blur_value": 1, "brightness_coefficient": 1, "rain_type": "torrential"})",
     7.5, 7.5, 0, 1, cv::Scalar(200, 200, 200), 1, 1, 6},
    {R"({"stage": "rain", "p": 1, "drop_width": 3, "brightness_coefficient": 0.55, "rain_type": "drizzle"})", -10, 10, 0,
     3, cv::Scalar(200, 200, 200), 7, 0.55, -1},
};

TEST(Rain, EightBitPhotographsEqualTheOpenCVSteps) {
  std::size_t drops = 0;
  const auto names = testing::sampled({"astronaut.jpg", "chelsea.png", "coffee.png", "rocket.jpg"});
  for (const char* name : names)
    for (const Config& config : kConfigs) {
      SCOPED_TRACE(std::string(name) + " " + config.json);
      const Image in = testing::sample_as(name, DType::U8, 3);
      const testing::Both b = run_both(one_stage(config.json), in, name);
      Draws d(stream_of(name));
      const Drawn drawn = draw_reference(d, in.shape().width, in.shape().height, config);
      const auto& rec = b.plan.record[0]["params"];
      ASSERT_EQ(rec["slant"].get<double>(), drawn.slant);
      ASSERT_EQ(rec["drops"].get<std::size_t>(), drawn.starts.size());
      ASSERT_EQ(rec["drop_length"].get<int>(), drawn.length);
      drops += drawn.starts.size();
      const Image want = from_mat(rain_reference(mat(in), drawn, config));
      EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
      EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
      EXPECT_GT(compare(in, want).count, 1000u);  // it did something
    }
  EXPECT_GT(drops, 500u * names.size());
}

TEST(Rain, SmallAndOddImagesEqualTheOpenCVSteps) {
  cv::RNG rng(9);
  for (int i = 0; i < 40; ++i) {
    const int w = rng.uniform(1, 90), h = rng.uniform(1, 90);
    cv::Mat src(h, w, CV_8UC3);
    rng.fill(src, cv::RNG::UNIFORM, 0, 256);
    const std::string key = "r" + std::to_string(i) + ".png";
    const Config& config = kConfigs[i % 4];
    const testing::Both b = run_both(one_stage(config.json), from_mat(src), key);
    Draws d(stream_of(key));
    const Drawn drawn = draw_reference(d, w, h, config);
    const Image want = from_mat(rain_reference(src, drawn, config));
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " " + config.json);
    EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
    EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
  }
}

TEST(Rain, SixteenBitAddsTheLayerTimes257AndFloatGoesThroughEightBits) {
  const Image u8 = testing::sample_as("chelsea.png", DType::U8, 3);
  cv::Mat m16, mf;
  mat(u8).convertTo(m16, CV_16UC3, 257);
  m16 -= cv::Scalar::all(100);  // values that are not multiples of 257
  mat(u8).convertTo(mf, CV_32FC3, 1 / 255.0);
  for (const Config& config : kConfigs) {
    SCOPED_TRACE(config.json);
    const testing::Both b = run_both(one_stage(config.json), from_mat(m16), "c.png");
    Draws d(stream_of("c.png"));
    const Drawn drawn = draw_reference(d, m16.cols, m16.rows, config);
    const Image want = from_mat(rain_reference(m16, drawn, config));
    EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
    EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
    // Float: the 8-bit result / 255.
    const testing::Both f = run_both(one_stage(config.json), from_mat(mf), "c.png");
    EXPECT_EQ(compare(f.cpu, f.emulated).count, 0u);
    cv::Mat want_f;
    rain_reference(mat(u8), drawn, config).convertTo(want_f, CV_32FC3, 1 / 255.0);
    cv::Mat got = mat(f.cpu), diff;
    cv::absdiff(got, want_f, diff);
    double most = 0;
    cv::minMaxLoc(diff.reshape(1), nullptr, &most);
    EXPECT_LE(most, 1e-6);
  }
}

TEST(Rain, DrawsFollowAlbumentationsDefinition) {
  // The slant: uniform over its range; the starts: uniform over [0, W) x [0, H - len).
  const Pipeline p = one_stage(R"({"stage": "rain", "slant": [-15, 5]})");
  std::vector<double> slants;
  int applied = 0;
  for (int i = 0; i < 3000; ++i) {
    const Plan plan = p.plan(11, std::to_string(i), 0, {40, 30, 3, DType::U8});
    if (plan.steps[0].op == nullptr) continue;
    ++applied;
    slants.push_back(plan.record[0]["params"]["slant"].get<double>());
    EXPECT_EQ(plan.record[0]["params"]["drops"].get<int>(), 10);
    EXPECT_EQ(plan.record[0]["params"]["drop_length"].get<int>(), 3);
  }
  EXPECT_NEAR(applied / 3000.0, 0.5, 0.04);
  EXPECT_LT(testing::ks_uniform(slants, -15, 5), 1.36 / std::sqrt(static_cast<double>(slants.size())));
  // Start points: a rain drawn with no blur and no slant on a black image lights its start rows.
  const Config c{"", 0, 0, 0, 1, cv::Scalar(255, 255, 255), 1, 1, 6};
  std::vector<double> xs, ys;
  for (int i = 0; i < 50; ++i) {
    Draws d(stream_of(std::to_string(i)));
    const Drawn drawn = draw_reference(d, 64, 80, c);
    for (const cv::Point& s : drawn.starts) {
      xs.push_back((s.x + 0.5) / 64.0);
      ys.push_back((s.y + 0.5) / 70.0);  // H - len = 80 - 10
    }
  }
  EXPECT_LT(testing::ks_uniform(xs, 0, 1), 1.36 / std::sqrt(static_cast<double>(xs.size())) + 1.0 / 64);
  EXPECT_LT(testing::ks_uniform(ys, 0, 1), 1.36 / std::sqrt(static_cast<double>(ys.size())) + 1.0 / 70);
  for (const char* type : {"default", "drizzle", "heavy", "torrential"}) {
    const Pipeline q = one_stage(std::string(R"({"stage": "rain", "p": 1, "rain_type": ")") + type + "\"}");
    const int n = q.plan(1, "a", 0, {50, 120, 3, DType::U8}).record[0]["params"]["drops"].get<int>();
    const std::string t = type;
    EXPECT_EQ(n, t == "default" ? 40 : t == "drizzle" ? 30 : t == "heavy" ? 120 : 240) << type;
  }
}

TEST(Rain, ImportsRandomRainOfBothVersions) {
  auto import_one = [](const std::string& version, const std::string& transform) {
    const nlohmann::json saved = nlohmann::json::parse(R"({"__version__": ")" + version +
                                                       R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" +
                                                       transform + "]}}");
    return import_albumentations(saved, "a.json");
  };
  const Imported two = import_one("2.0.8", R"({"__class_fullname__": "RandomRain", "slant_range": [-5, 15], )"
                                           R"("drop_length": null, "drop_width": 2, "drop_color": [10, 20, 30], )"
                                           R"("blur_value": 5, "brightness_coefficient": 0.8, "rain_type": "heavy", "p": 1})");
  const auto& s = two.pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "rain");
  EXPECT_EQ(s["slant"], nlohmann::ordered_json::array({-5, 15}));
  EXPECT_FALSE(s.contains("drop_length"));
  EXPECT_EQ(s["drop_width"], 2);
  EXPECT_EQ(s["drop_color"], nlohmann::ordered_json::array({10, 20, 30}));
  EXPECT_EQ(s["blur_value"], 5);
  EXPECT_EQ(s["brightness_coefficient"], 0.8);
  EXPECT_EQ(s["rain_type"], "heavy");
  EXPECT_TRUE(two.notes.empty());
  const Imported one =
      import_one("1.3.1", R"({"__class_fullname__": "RandomRain", "slant_lower": -10, "slant_upper": 10, )"
                          R"("drop_length": 20, "drop_width": 1, "drop_color": [200, 200, 200], "blur_value": 7, )"
                          R"("brightness_coefficient": 0.7, "rain_type": null})");
  const auto& o = one.pipeline["stages"][0];
  EXPECT_EQ(o["slant"], nlohmann::ordered_json::array({-10, 10}));
  EXPECT_EQ(o["drop_length"], 20);
  EXPECT_FALSE(o.contains("rain_type"));
  EXPECT_EQ(o["p"], 0.5);
  ASSERT_EQ(one.notes.size(), 1u);
  EXPECT_NE(one.notes[0].find("1.x"), std::string::npos) << one.notes[0];
  for (const Imported* i : {&one, &two}) {
    const Pipeline p = Pipeline::parse(i->pipeline.dump(), "rain");
    EXPECT_NO_THROW(p.plan(3, "a.png", 0, Shape{64, 48, 3, DType::U8}));
  }
  EXPECT_ANY_THROW(one_stage(R"({"stage": "rain", "drop_color": [1, 2]})"));
  EXPECT_ANY_THROW(one_stage(R"({"stage": "rain", "brightness_coefficient": 0})"));
}

}  // namespace
}  // namespace aug::test_rain
