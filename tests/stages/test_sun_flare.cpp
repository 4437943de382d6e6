// sun_flare: Albumentations 2.x's RandomSunFlare ('overlay') written out with OpenCV (its draw with the
// stage's generator, then per circle cv::circle onto the overlay and albucore's add_weighted, then the
// sun's concentric circles) against both backends on the sample photographs, 0 differing values; the
// draws against Albumentations' distributions; 16-bit and float images through the 8-bit path; the
// 'physics_based' written out with OpenCV and numpy's float32 steps (the flare layer drawn, blurred,
// faded and screen-blended) against both backends, 0 differing values; the import of RandomSunFlare
// (1.x and 2.x, both methods).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/rng.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_sun_flare {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::one_stage;
using testing::run_both;
using testing::noise::stream_of;

struct Circle {
  double alpha;
  int x, y, r;
  std::array<int, 3> color;
};
struct Drawn {
  int cx = 0, cy = 0;
  std::vector<Circle> circles;
};

struct Config {
  std::array<double, 4> roi{0, 0, 1, 0.5};
  double angle_lo = 0, angle_hi = 1;
  int n_lo = 6, n_hi = 10;
  int src_radius = 400;
  std::array<int, 3> src_color{255, 255, 255};
};

// RandomSunFlare.get_params_dependent_on_data (2.x) with the stage's generator.
Drawn draw_reference(Draws& d, int W, int H, const Config& c) {
  Drawn out;
  const double diagonal = std::sqrt(static_cast<double>(H * H + W * W));
  const double angle = 2 * M_PI * (c.angle_lo == c.angle_hi ? c.angle_lo : d.uniform(c.angle_lo, c.angle_hi));
  out.cx = static_cast<int>(W * d.uniform(c.roi[0], c.roi[2]));
  out.cy = static_cast<int>(H * d.uniform(c.roi[1], c.roi[3]));
  const long n = d.integer(c.n_lo, c.n_hi);
  const long step = std::max(1L, static_cast<long>(diagonal * 0.01));
  const long max_radius = std::max(2L, static_cast<long>(H * 0.01));
  const int color_range = static_cast<int>(*std::max_element(c.src_color.begin(), c.src_color.end()) * 0.2);
  std::vector<std::array<double, 2>> points;
  for (long t = -out.cx; t < W - out.cx; t += step)
    points.push_back({out.cx + t * std::cos(angle), out.cy + t * std::sin(angle)});
  for (long i = 0; i < n; ++i) {
    Circle k{};
    k.alpha = d.uniform(0.05, 0.2);
    const auto& p = points[static_cast<std::size_t>(d.integer(0, static_cast<long>(points.size()) - 1))];
    const long rad = d.integer(1, max_radius);
    for (int ch = 0; ch < 3; ++ch)
      k.color[ch] = static_cast<int>(d.integer(std::max(c.src_color[ch] - color_range, 0), c.src_color[ch]));
    k.x = static_cast<int>(p[0]);
    k.y = static_cast<int>(p[1]);
    k.r = static_cast<int>(rad * rad * rad);
    out.circles.push_back(k);
  }
  return out;
}

// albucore.add_weighted on 8-bit images (simsimd wsum, serial rounding).
cv::Mat add_weighted(const cv::Mat& a, double alpha, const cv::Mat& b, double beta) {
  cv::Mat out(a.size(), a.type());
  const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
  const std::size_t n = a.total() * a.channels();
  for (std::size_t i = 0; i < n; ++i) {
    const float s = static_cast<float>(a.data[i]) * af + static_cast<float>(b.data[i]) * bf;
    out.data[i] = static_cast<std::uint8_t>(s > 255 ? 255 : (s < 0 ? 0 : static_cast<int>(s + 0.5f)));
  }
  return out;
}

std::vector<double> linspace(double a, double b, int num) {
  std::vector<double> v;
  const double step = num > 1 ? (b - a) / (num - 1) : 0;
  for (int i = 0; i < num; ++i) v.push_back(i * step + a);
  if (num > 1) v.back() = b;
  return v;
}

// fpixel.add_sun_flare_overlay (2.x) on an 8-bit image, with OpenCV.
cv::Mat flare_reference(const cv::Mat& img, const Drawn& drawn, const Config& c) {
  cv::Mat overlay = img.clone(), output = img.clone();
  double weighted = 0, total = 0;
  for (const Circle& k : drawn.circles) {
    weighted += k.alpha * k.r;
    total += k.r;
    cv::circle(overlay, {k.x, k.y}, k.r, cv::Scalar(k.color[0], k.color[1], k.color[2]), -1);
    output = add_weighted(overlay, k.alpha, output, 1 - k.alpha);
  }
  overlay = output.clone();
  const int m = c.src_radius / 10;
  const std::vector<double> alpha = linspace(0, std::min(weighted / total * 5, 1.0), m);
  const std::vector<double> rad = linspace(1, c.src_radius, m);
  for (int i = 0; i < m; ++i) {
    cv::circle(overlay, {drawn.cx, drawn.cy}, static_cast<int>(rad[i]),
               cv::Scalar(c.src_color[0], c.src_color[1], c.src_color[2]), -1);
    const double a = alpha[m - i - 1];
    const double alp = a * a * a;
    output = add_weighted(overlay, alp, output, 1 - alp);
  }
  return output;
}

TEST(SunFlare, EightBitPhotographsEqualTheOpenCVSteps) {
  struct Case {
    const char* json;
    Config config;
  };
  Config wide;
  wide.roi = {0, 0, 1, 1};
  wide.src_radius = 150;
  wide.src_color = {255, 210, 120};
  Config many;
  many.n_lo = many.n_hi = 16;
  many.angle_lo = many.angle_hi = 0.125;
  many.src_radius = 95;
  const Case cases[] = {
      {R"({"stage": "sun_flare", "p": 1})", Config{}},
      {R"({"stage": "sun_flare", "p": 1, "flare_roi": [0, 0, 1, 1], "src_radius": 150, "src_color": [255, 210, 120]})",
       wide},
      {R"({"stage": "sun_flare", "p": 1, "num_flare_circles": [16, 16], "angle": 0.125, "src_radius": 95})", many}};
  std::size_t covers = 0;
  for (const char* name : testing::sampled({"astronaut.jpg", "chelsea.png", "coffee.png", "rocket.jpg", "camera.png"}))
    for (int channels : {1, 3})
      for (const Case& k : cases) {
        SCOPED_TRACE(std::string(name) + " " + std::to_string(channels) + " " + k.json);
        const Image in = testing::sample_as(name, DType::U8, channels);
        const testing::Both b = run_both(one_stage(k.json), in, name);
        Draws d(stream_of(name));
        const Drawn drawn = draw_reference(d, in.shape().width, in.shape().height, k.config);
        const auto& rec = b.plan.record[0]["params"];
        ASSERT_EQ(rec["circles"].size(), drawn.circles.size());
        ASSERT_EQ(rec["flare_center"][0].get<int>(), drawn.cx);
        covers += rec["covers"].get<std::size_t>();
        const Image want = from_mat(flare_reference(mat(in), drawn, k.config));
        EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
        EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
      }
  EXPECT_GT(covers, 300u);  // the images see many distinct overlaps of circles
}

TEST(SunFlare, OddSizesAndSmallImagesEqualTheOpenCVSteps) {
  cv::RNG rng(7);
  Config c;
  c.roi = {0, 0, 1, 1};
  c.src_radius = 40;
  for (int i = 0; i < 40; ++i) {
    const int w = rng.uniform(1, 150), h = rng.uniform(1, 150);
    cv::Mat src(h, w, i % 2 ? CV_8UC3 : CV_8UC1);
    rng.fill(src, cv::RNG::UNIFORM, 0, 256);
    const std::string key = "r" + std::to_string(i) + ".png";
    const testing::Both b =
        run_both(one_stage(R"({"stage": "sun_flare", "p": 1, "flare_roi": [0, 0, 1, 1], "src_radius": 40})"),
                 from_mat(src), key);
    Draws d(stream_of(key));
    const Image want = from_mat(flare_reference(src, draw_reference(d, w, h, c), c));
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
    EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
  }
}

TEST(SunFlare, DrawsFollowAlbumentationsDefinition) {
  const Pipeline p = one_stage(R"({"stage": "sun_flare", "src_radius": 20})");
  std::map<std::size_t, int> counts;
  std::vector<double> alphas, cxs;
  int applied = 0;
  for (int i = 0; i < 3000; ++i) {
    const Plan plan = p.plan(11, std::to_string(i), 0, {200, 100, 3, DType::U8});
    if (plan.steps[0].op == nullptr) continue;
    ++applied;
    const auto& rec = plan.record[0]["params"];
    ++counts[rec["circles"].size()];
    cxs.push_back((rec["flare_center"][0].get<int>() + 0.5) / 200);
    ASSERT_LT(rec["flare_center"][1].get<int>(), 50);  // flare_roi's y_max is 0.5
    for (const auto& c : rec["circles"]) {
      alphas.push_back(c["alpha"].get<double>());
      const int r = c["radius"].get<int>();
      ASSERT_TRUE(r == 1 || r == 8) << r;  // rad in [1, max(2, int(0.01 * 100))]
      for (const auto& v : c["color"]) ASSERT_TRUE(v.get<int>() >= 255 - 51 && v.get<int>() <= 255);
    }
  }
  EXPECT_NEAR(applied / 3000.0, 0.5, 0.04);
  ASSERT_EQ(counts.size(), 5u);  // 6..10, each as likely
  for (const auto& [n, k] : counts) {
    EXPECT_TRUE(n >= 6 && n <= 10);
    EXPECT_NEAR(k / static_cast<double>(applied), 0.2, 0.04) << n;
  }
  EXPECT_LT(testing::ks_uniform(alphas, 0.05, 0.2), 1.36 / std::sqrt(static_cast<double>(alphas.size())));
  EXPECT_LT(testing::ks_uniform(cxs, 0, 1), 1.36 / std::sqrt(static_cast<double>(cxs.size())) + 0.005);
}

TEST(SunFlare, SixteenBitAndFloatGoThroughEightBits) {
  for (int channels : {1, 3}) {
    const Image u8 = testing::sample_as("astronaut.jpg", DType::U8, channels);
    const std::string stage = R"({"stage": "sun_flare", "p": 1, "src_radius": 120})";
    const Image want8 = testing::run_cpu(stage, u8, "a.png");
    cv::Mat m16, mf;
    mat(u8).convertTo(m16, channels == 1 ? CV_16UC1 : CV_16UC3, 257);
    mat(u8).convertTo(mf, channels == 1 ? CV_32FC1 : CV_32FC3, 1 / 255.0);
    for (const cv::Mat& m : {m16, mf}) {
      const testing::Both b = run_both(one_stage(stage), from_mat(m), "a.png");
      EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
      cv::Mat back;
      mat(b.cpu).convertTo(back, channels == 1 ? CV_8UC1 : CV_8UC3, m.depth() == CV_16U ? 1 / 257.0 : 255.0);
      EXPECT_EQ(compare(from_mat(back), want8).count, 0u) << compare(from_mat(back), want8).str();
    }
  }
}

// fpixel.add_sun_flare_physics_based (2.x) on an 8-bit RGB image: OpenCV where it calls OpenCV,
// numpy's arithmetic (float64 mask, float32 layer and blend) written out.
cv::Mat physics_reference(const cv::Mat& img, const Drawn& drawn, const Config& c) {
  const int H = img.rows, W = img.cols;
  const cv::Point centre(drawn.cx, drawn.cy);
  const cv::Scalar src(c.src_color[0], c.src_color[1], c.src_color[2]);
  cv::Mat flare(H, W, CV_32FC3, cv::Scalar::all(0));
  cv::circle(flare, centre, c.src_radius, src, -1);
  for (int angle : {0, 45, 90, 135}) {
    const double r = angle * (M_PI / 180);  // numpy.radians
    cv::line(flare, centre,
             {static_cast<int>(drawn.cx + std::cos(r) * std::max(W, H)),
              static_cast<int>(drawn.cy + std::sin(r) * std::max(W, H))},
             src, 2);
  }
  for (const Circle& k : drawn.circles)
    cv::circle(flare, {k.x, k.y}, static_cast<int>(std::pow(k.r, 0.33)), cv::Scalar(k.color[0], k.color[1], k.color[2]),
               -1);
  cv::GaussianBlur(flare, flare, {0, 0}, 15, 15);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const double d = std::sqrt(static_cast<double>((x - drawn.cx) * (x - drawn.cx) + (y - drawn.cy) * (y - drawn.cy)));
      const double m = 1 - std::clamp(d / (std::max(W, H) * 0.7), 0.0, 1.0);
      cv::Vec3f& f = flare.at<cv::Vec3f>(y, x);
      for (int ch = 0; ch < 3; ++ch) f[ch] = static_cast<float>(f[ch] * m);
    }
  std::vector<cv::Mat> ch;
  cv::split(flare, ch);
  cv::GaussianBlur(ch[0], ch[0], {0, 0}, 3, 3);
  cv::GaussianBlur(ch[2], ch[2], {0, 0}, 5, 5);
  cv::merge(ch, flare);
  cv::Mat out(H, W, CV_8UC3);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int k = 0; k < 3; ++k) {
        const float inv = static_cast<float>(255 - img.at<cv::Vec3b>(y, x)[k]);
        const float v = 255.f - inv * (255.f - flare.at<cv::Vec3f>(y, x)[k]) / 255.f;
        out.at<cv::Vec3b>(y, x)[k] = static_cast<std::uint8_t>(std::clamp(v, 0.f, 255.f));
      }
  return out;
}

TEST(SunFlare, PhysicsBasedEqualsTheOpenCVSteps) {
  struct Case {
    const char* json;
    Config config;
  };
  Config wide;
  wide.roi = {0, 0, 1, 1};
  wide.src_radius = 60;
  wide.src_color = {255, 200, 120};
  const Case cases[] = {{R"({"stage": "sun_flare", "p": 1, "method": "physics_based"})", Config{}},
                        {R"({"stage": "sun_flare", "p": 1, "method": "physics_based", "flare_roi": [0, 0, 1, 1], )"
                         R"("src_radius": 60, "src_color": [255, 200, 120]})",
                         wide}};
  for (const char* name : testing::sampled({"astronaut.jpg", "chelsea.png", "coffee.png", "rocket.jpg"}))
    for (const Case& k : cases) {
      SCOPED_TRACE(std::string(name) + " " + k.json);
      const Image in = testing::sample_as(name, DType::U8, 3);
      const testing::Both b = run_both(one_stage(k.json), in, name);
      Draws d(stream_of(name));
      const Drawn drawn = draw_reference(d, in.shape().width, in.shape().height, k.config);
      EXPECT_EQ(b.plan.record[0]["params"]["flare_center"], nlohmann::json({drawn.cx, drawn.cy}));
      const Image want = from_mat(physics_reference(mat(in), drawn, k.config));
      EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
      EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
      EXPECT_GT(compare(in, want).count, 1000u);  // the flare brightens the image
    }
}

TEST(SunFlare, PhysicsBasedSixteenBitAndFloatFollowTheEightBitPath) {
  const Image u8 = testing::sample_as("coffee.png", DType::U8, 3);
  const std::string stage = R"({"stage": "sun_flare", "p": 1, "method": "physics_based", "src_radius": 80})";
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

TEST(SunFlare, RefusesAnUnknownMethod) {
  EXPECT_THROW(one_stage(R"({"stage": "sun_flare", "method": "lens"})"), PipelineError);
  EXPECT_THROW(one_stage(R"({"stage": "sun_flare", "method": ["overlay", "physics_based"]})"), PipelineError);
}

Imported import_one(const std::string& version, const std::string& transform) {
  const nlohmann::json saved =
      nlohmann::json::parse(R"({"__version__": ")" + version +
                            R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" + transform + "]}}");
  return import_albumentations(saved, "a.json");
}

TEST(SunFlare, ImportsRandomSunFlareOfBothVersions) {
  const Imported two = import_one(
      "2.0.8", R"({"__class_fullname__": "RandomSunFlare", "flare_roi": [0, 0.1, 1, 0.6], "angle_range": [0.2, 0.4], )"
               R"("num_flare_circles_range": [3, 7], "src_radius": 250, "src_color": [255, 240, 200], )"
               R"("method": "overlay", "p": 1})");
  const auto& s = two.pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "sun_flare");
  EXPECT_EQ(s["flare_roi"], nlohmann::ordered_json::array({0, 0.1, 1, 0.6}));
  EXPECT_EQ(s["angle"], nlohmann::ordered_json::array({0.2, 0.4}));
  EXPECT_EQ(s["num_flare_circles"], nlohmann::ordered_json::array({3, 7}));
  EXPECT_EQ(s["src_radius"], 250);
  EXPECT_EQ(s["src_color"], nlohmann::ordered_json::array({255, 240, 200}));
  EXPECT_TRUE(two.notes.empty());
  const Pipeline p = Pipeline::parse(two.pipeline.dump(), "sun_flare");
  EXPECT_NE(p.plan(3, "a.png", 0, Shape{64, 48, 3, DType::U8}).steps.at(0).op, nullptr);

  const Imported one = import_one(
      "1.3.1", R"({"__class_fullname__": "RandomSunFlare", "flare_roi": [0, 0, 1, 0.5], "angle_lower": 0.1, )"
               R"("angle_upper": 0.9, "num_flare_circles_lower": 4, "num_flare_circles_upper": 8, "src_radius": 300, )"
               R"("src_color": [255, 255, 255], "always_apply": false, "p": 0.3})");
  const auto& o = one.pipeline["stages"][0];
  EXPECT_EQ(o["angle"], nlohmann::ordered_json::array({0.1, 0.9}));
  EXPECT_EQ(o["num_flare_circles"], nlohmann::ordered_json::array({4, 8}));
  EXPECT_EQ(o["src_radius"], 300);
  EXPECT_EQ(o["p"], 0.3);
  ASSERT_EQ(one.notes.size(), 1u);
  const Imported physics =
      import_one("2.0.8", R"({"__class_fullname__": "RandomSunFlare", "method": "physics_based"})");
  EXPECT_EQ(physics.pipeline["stages"][0]["method"], "physics_based");
  const Pipeline pp = Pipeline::parse(physics.pipeline.dump(), "sun_flare");
  for (std::uint32_t copy = 0; copy < 8; ++copy) {
    const Plan plan = pp.plan(3, "a.png", copy, Shape{64, 48, 3, DType::U8});
    if (plan.steps.at(0).op) {
      EXPECT_EQ(plan.record[0]["params"]["method"], "physics_based");
    }
  }
  EXPECT_ANY_THROW(import_one("2.0.8", R"({"__class_fullname__": "RandomSunFlare", "method": "lens"})"));
}

}  // namespace
}  // namespace aug::test_sun_flare
