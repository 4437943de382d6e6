// fog: Albumentations 2.x's RandomFog written out with OpenCV (its particle draw with the stage's
// generator, then per particle cv::circle on a copy and cv::addWeighted, then cv::GaussianBlur)
// against both backends on the sample photographs, 0 differing values; the draw of the intensity
// against the uniform distribution; 16-bit and float images through the 8-bit path; the import of
// RandomFog (1.x and 2.x).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/weather/fog.hpp"
#include "lib/core/rng.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "lib/stages/engines/resample.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_fog {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::one_stage;
using testing::run_both;
using testing::noise::stream_of;

struct Drawn {
  double f = 0;
  std::vector<cv::Vec3i> particles;  // x, y, radius
};

// RandomFog.get_params_dependent_on_data (2.x) with the stage's generator.
Drawn draw_reference(Draws& d, int W, int H, double lo, double hi) {
  Drawn out;
  const double f = lo == hi ? lo : d.uniform(lo, hi);
  out.f = f;
  const long region = std::max(1L, static_cast<long>((W / 3) * f));
  const long cx = static_cast<long>((W - 1) / 2.0), cy = static_cast<long>((H - 1) / 2.0);
  long cw = W, ch = H;
  for (int it = 0; cw > region && ch > region && it < 10; ++it) {
    const long area = cw * ch;
    const long n = static_cast<long>(static_cast<double>(area) / static_cast<double>(region * region) * f * 10);
    for (long i = 0; i < n; ++i) {
      const long x = d.integer(cx - cw / 2, cx + cw / 2);
      const long y = d.integer(cy - ch / 2, cy + ch / 2);
      out.particles.push_back({static_cast<int>(x), static_cast<int>(y), 0});
    }
    cw = static_cast<long>(cw * (1 - 0.1));
    ch = static_cast<long>(ch * (1 - 0.1));
  }
  const long R = std::max(2L, static_cast<long>(std::min(H, W) * 0.1 * f));
  const long rmin = std::max(1L, R / 2);
  for (cv::Vec3i& p : out.particles) p[2] = static_cast<int>(d.integer(rmin, R - 1));  // integers(rmin, R)
  return out;
}

// fpixel.add_fog (2.x) on an 8-bit image, with OpenCV.
cv::Mat fog_reference(const cv::Mat& img, const Drawn& drawn, double alpha_coef) {
  cv::Mat result = img.clone();
  for (const cv::Vec3i& p : drawn.particles) {
    cv::Mat overlay = result.clone();
    cv::circle(overlay, cv::Point(p[0], p[1]), p[2], cv::Scalar(255, 255, 255), -1);
    const double alpha = alpha_coef * drawn.f;
    cv::addWeighted(overlay, alpha, result, 1 - alpha, 0, result);
  }
  int k = std::max(3, std::min(img.rows, img.cols) / 30);
  if (k % 2 == 0) ++k;
  cv::Mat out;
  cv::GaussianBlur(result, out, cv::Size(k, k), 0);
  return out;
}

TEST(Fog, EightBitPhotographsEqualTheOpenCVSteps) {
  struct Config {
    const char* json;
    double lo, hi, alpha;
  };
  const Config configs[] = {{R"({"stage": "fog", "p": 1})", 0.3, 1, 0.08},
                            {R"({"stage": "fog", "p": 1, "fog_coef": [0.05, 0.3], "alpha_coef": 0.3})", 0.05, 0.3, 0.3},
                            {R"({"stage": "fog", "p": 1, "fog_coef": 0.9, "alpha_coef": 0.6})", 0.9, 0.9, 0.6}};
  std::size_t particles = 0;
  for (const char* name : testing::sampled({"astronaut.jpg", "chelsea.png", "coffee.png", "rocket.jpg", "camera.png"}))
    for (int channels : {1, 3})
      for (const Config& config : configs) {
        SCOPED_TRACE(std::string(name) + " " + std::to_string(channels) + " " + config.json);
        const Image in = testing::sample_as(name, DType::U8, channels);
        const testing::Both b = run_both(one_stage(config.json), in, name);
        Draws d(stream_of(name));
        const Drawn drawn = draw_reference(d, in.shape().width, in.shape().height, config.lo, config.hi);
        const auto& rec = b.plan.record[0]["params"];
        ASSERT_EQ(rec["fog_coef"].get<double>(), drawn.f);
        ASSERT_EQ(rec["particles"].get<std::size_t>(), drawn.particles.size());
        particles += drawn.particles.size();
        const Image want = from_mat(fog_reference(mat(in), drawn, config.alpha));
        EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
        EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
      }
  EXPECT_GT(particles, 1000u);
}

TEST(Fog, OddSizesAndSmallImagesEqualTheOpenCVSteps) {
  cv::RNG rng(5);
  for (int i = 0; i < 40; ++i) {
    const int w = rng.uniform(1, 130), h = rng.uniform(1, 130);
    cv::Mat src(h, w, i % 2 ? CV_8UC3 : CV_8UC1);
    rng.fill(src, cv::RNG::UNIFORM, 0, 256);
    cv::GaussianBlur(src, src, cv::Size(5, 5), 0);  // something smoother than noise
    const std::string key = "r" + std::to_string(i) + ".png";
    const testing::Both b = run_both(one_stage(R"({"stage": "fog", "p": 1, "fog_coef": [0.1, 1], "alpha_coef": 0.2})"),
                                     from_mat(src), key);
    Draws d(stream_of(key));
    const Drawn drawn = draw_reference(d, w, h, 0.1, 1);
    const Image want = from_mat(fog_reference(src, drawn, 0.2));
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
    EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
  }
}

// The CPU backend's host blur, at each vector width the machine has, against cv::GaussianBlur itself
// (the weights as the stage takes them from the separable engine's table).
TEST(Fog, HostBlurEqualsOpenCVAtEveryVectorWidth) {
  cv::RNG rng(17);
  int ran = 0;
  for (int i = 0; i < 24; ++i) {
    const int w = i < 4 ? 300 + 37 * i : rng.uniform(8, 160), h = i < 4 ? 200 + 11 * i : rng.uniform(8, 120);
    const int channels = i % 3 == 1 ? 1 : 3;
    const int ksize = std::vector<int>{3, 5, 7, 17, 37, 35}[static_cast<std::size_t>(i % 6)];
    cv::Mat src(h, w, channels == 1 ? CV_8UC1 : CV_8UC3);
    if (i % 2) {
      rng.fill(src, cv::RNG::UNIFORM, 0, 256);
    } else {
      cv::resize(mat(testing::sample_as("astronaut.jpg", DType::U8, channels)), src, src.size(), 0, 0, cv::INTER_AREA);
    }
    const cv::Mat k = cv::getGaussianKernel(ksize, 0, CV_64F);
    const AxisTable t = blur_axis(2 * ksize + 1, std::vector<double>(k.begin<double>(), k.end<double>()),
                                  Border::Reflect101, DType::U8);
    ASSERT_EQ(t.taps, ksize);
    const std::int32_t* weights = t.iweight.data() + static_cast<std::size_t>(ksize) * t.taps;
    cv::Mat want;
    cv::GaussianBlur(src, want, cv::Size(ksize, ksize), 0, 0, cv::BORDER_REFLECT_101 | cv::BORDER_ISOLATED);
    const k::View<const std::uint8_t> view{src.ptr<std::uint8_t>(), w, h, channels, src.step};
    const k::cpu::FogRowSource rows{[](const void* c, int y, std::uint8_t* to) {
                                      const auto& v = *static_cast<const k::View<const std::uint8_t>*>(c);
                                      std::copy(v.row(y), v.row(y) + v.width * v.channels, to);
                                    },
                                    &view};
    for (int bits : {256, 512}) {
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(channels) + " k " +
                   std::to_string(ksize) + " " + std::to_string(bits) + " bits");
      cv::Mat got(h, w, src.type(), cv::Scalar::all(7));
      const k::View<std::uint8_t> out{got.ptr<std::uint8_t>(), w, h, channels, got.step};
      if (!k::cpu::fog_blur(rows, out, weights, ksize, bits)) continue;  // not this machine, or too small
      ++ran;
      const cv::Mat differ = got != want;
      EXPECT_EQ(cv::countNonZero(differ.reshape(1)), 0);
    }
  }
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) {
    EXPECT_GE(ran, 20);  // both widths (where the machine has both) on most of the 24 images
  }
#endif
}

TEST(Fog, IntensityIsUniformAndDefaultsToHalf) {
  const Pipeline p = one_stage(R"({"stage": "fog", "fog_coef": [0.2, 0.7]})");
  std::vector<double> f;
  int applied = 0;
  for (int i = 0; i < 3000; ++i) {
    const Plan plan = p.plan(11, std::to_string(i), 0, {40, 30, 3, DType::U8});
    if (plan.steps[0].op == nullptr) continue;
    ++applied;
    f.push_back(plan.record[0]["params"]["fog_coef"].get<double>());
  }
  EXPECT_NEAR(applied / 3000.0, 0.5, 0.04);
  EXPECT_LT(testing::ks_uniform(f, 0.2, 0.7), 1.36 / std::sqrt(static_cast<double>(f.size())));
}

TEST(Fog, SixteenBitAndFloatGoThroughEightBits) {
  for (int channels : {1, 3}) {
    const Image u8 = testing::sample_as("astronaut.jpg", DType::U8, channels);
    const std::string stage = R"({"stage": "fog", "p": 1, "fog_coef": [0.3, 0.8]})";
    const Image want8 = testing::run_cpu(stage, u8, "a.png");
    // 16-bit: v * 257 quantises back to v; float: v / 255.f too.
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

TEST(Fog, ImportsRandomFogOfBothVersions) {
  auto import_one = [](const std::string& version, const std::string& transform) {
    const nlohmann::json saved = nlohmann::json::parse(R"({"__version__": ")" + version +
                                                       R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" +
                                                       transform + "]}}");
    return import_albumentations(saved, "a.json");
  };
  const Imported two =
      import_one("2.0.8", R"({"__class_fullname__": "RandomFog", "fog_coef_range": [0.2, 0.5], "alpha_coef": 0.1, "p": 1})");
  const auto& s = two.pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "fog");
  EXPECT_EQ(s["fog_coef"], nlohmann::ordered_json::array({0.2, 0.5}));
  EXPECT_EQ(s["alpha_coef"], 0.1);
  EXPECT_TRUE(two.notes.empty());
  const Imported one = import_one(
      "1.3.1", R"({"__class_fullname__": "RandomFog", "fog_coef_lower": 0.4, "fog_coef_upper": 0.7, "alpha_coef": 0.08})");
  const auto& o = one.pipeline["stages"][0];
  EXPECT_EQ(o["fog_coef"], nlohmann::ordered_json::array({0.4, 0.7}));
  EXPECT_EQ(o["p"], 0.5);
  ASSERT_EQ(one.notes.size(), 1u);
  const Pipeline p = Pipeline::parse(two.pipeline.dump(), "fog");
  EXPECT_NE(p.plan(3, "a.png", 0, Shape{64, 48, 3, DType::U8}).steps.at(0).op, nullptr);
}

}  // namespace
}  // namespace aug::test_fog
