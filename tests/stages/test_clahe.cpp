// clahe: the 8-bit Lab conversions against cv::cvtColor on every RGB colour and every Lab triple;
// the stage against OpenCV's cvtColor + createCLAHE + cvtColor on the sample photographs (RGB and
// gray, several clips and grids, sizes the grid does not divide) and on random 8-bit and 16-bit
// gray images, on the CPU path and on the kernels run on the host; 16-bit RGB and float images
// through the 8-bit path; the draw of the clip against the uniform distribution and the default p;
// the import of CLAHE.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/color/lab8.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "lib/stages/color/lab8.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_clahe {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::one_stage;
using testing::run_both;

std::string stage_json(double clip, int gx, int gy) {
  return R"({"stage": "clahe", "p": 1, "clip_limit": )" + std::to_string(clip) + R"(, "tile_grid_size": [)" +
         std::to_string(gx) + ", " + std::to_string(gy) + "]}";
}

// What Albumentations computes: OpenCV's CLAHE on gray images, on L of the 8-bit Lab otherwise.
cv::Mat opencv_clahe(const cv::Mat& src, double clip, int gx, int gy) {
  cv::Ptr<cv::CLAHE> c = cv::createCLAHE(clip, cv::Size(gx, gy));
  cv::Mat out;
  if (src.channels() == 1) {
    c->apply(src, out);
    return out;
  }
  cv::Mat lab, l;
  cv::cvtColor(src, lab, cv::COLOR_RGB2Lab);
  cv::extractChannel(lab, l, 0);
  c->apply(l, l);
  cv::insertChannel(l, lab, 0);
  cv::cvtColor(lab, out, cv::COLOR_Lab2RGB);
  return out;
}

void expect_opencv(const cv::Mat& src, double clip, int gx, int gy) {
  SCOPED_TRACE(std::to_string(src.cols) + "x" + std::to_string(src.rows) + "x" + std::to_string(src.channels()) +
               " clip " + std::to_string(clip) + " grid " + std::to_string(gx) + "x" + std::to_string(gy));
  const Image in = from_mat(src);
  const Image want = from_mat(opencv_clahe(src, clip, gx, gy));
  const auto both = run_both(one_stage(stage_json(clip, gx, gy)), in);
  EXPECT_EQ(compare(both.cpu, want).count, 0u) << compare(both.cpu, want).str();
  EXPECT_EQ(compare(both.emulated, want).count, 0u) << compare(both.emulated, want).str();
}

TEST(Clahe, Lab8ConversionsEqualOpenCVOnEveryValue) {
  cv::Mat all(4096, 4096, CV_8UC3);
  for (int i = 0; i < (1 << 24); ++i) {
    std::uint8_t* p = all.ptr<std::uint8_t>() + 3 * i;
    p[0] = static_cast<std::uint8_t>(i >> 16);
    p[1] = static_cast<std::uint8_t>(i >> 8);
    p[2] = static_cast<std::uint8_t>(i);
  }
  cv::Mat lab, rgb;
  cv::cvtColor(all, lab, cv::COLOR_RGB2Lab);  // every RGB colour
  cv::cvtColor(all, rgb, cv::COLOR_Lab2RGB);  // every Lab triple
  const k::Lab8Tables& t = lab8_tables();
  std::size_t to_lab = 0, to_rgb = 0;
  for (int i = 0; i < (1 << 24); ++i) {
    const std::uint8_t* p = all.ptr<std::uint8_t>() + 3 * i;
    const std::uint8_t* l = lab.ptr<std::uint8_t>() + 3 * i;
    const std::uint8_t* r = rgb.ptr<std::uint8_t>() + 3 * i;
    std::uint8_t a, b, c;
    k::rgb_to_lab8(p[0], p[1], p[2], t, a, b, c);
    to_lab += (a != l[0] || b != l[1] || c != l[2]) ? 1 : 0;
    k::lab8_to_rgb(p[0], p[1], p[2], t, a, b, c);
    to_rgb += (a != r[0] || b != r[1] || c != r[2]) ? 1 : 0;
  }
  EXPECT_EQ(to_lab, 0u);
  EXPECT_EQ(to_rgb, 0u);
}

TEST(Clahe, EightBitPhotographsEqualOpenCV) {
  for (const char* name : {"astronaut.jpg", "chelsea.png", "coffee.png", "rocket.jpg", "camera.png"}) {
    SCOPED_TRACE(name);
    const cv::Mat rgb = mat(testing::sample_as(name, DType::U8, 3)).clone();
    const cv::Mat gray = mat(testing::sample_as(name, DType::U8, 1)).clone();
    for (double clip : {1.0, 2.7, 4.0, 40.0}) {
      expect_opencv(rgb, clip, 8, 8);
      expect_opencv(gray, clip, 8, 8);
    }
    expect_opencv(rgb, 3.3, 5, 3);
    expect_opencv(rgb, 0.0, 2, 7);  // no clipping
    // Sizes the grid does not divide (REFLECT_101 padding, a whole tile on the axis that divides).
    expect_opencv(rgb(cv::Rect(3, 5, 101, 77)).clone(), 2.0, 8, 8);
    expect_opencv(rgb(cv::Rect(0, 0, 96, 77)).clone(), 2.0, 8, 8);
    expect_opencv(gray(cv::Rect(7, 1, 64, 61)).clone(), 1.5, 8, 8);
  }
}

TEST(Clahe, RandomEightAndSixteenBitImagesEqualOpenCV) {
  cv::RNG rng(7);
  for (int i = 0; i < 30; ++i) {
    const int w = rng.uniform(1, 90), h = rng.uniform(1, 90), gx = rng.uniform(1, 10), gy = rng.uniform(1, 10);
    const double clip = rng.uniform(0.5, 6.0);
    cv::Mat rgb(h, w, CV_8UC3), gray(h, w, CV_8UC1), gray16(h * 3, w * 3, CV_16UC1);
    rng.fill(rgb, cv::RNG::UNIFORM, 0, 256);
    rng.fill(gray, cv::RNG::UNIFORM, 0, 256);
    rng.fill(gray16, cv::RNG::UNIFORM, 0, 65536);
    expect_opencv(rgb, clip, gx, gy);
    expect_opencv(gray, clip, gx, gy);
    expect_opencv(gray16, clip, gx, gy);  // 65536 bins, as cv::CLAHE on 16-bit images
  }
  // A smooth 16-bit photograph.
  cv::Mat g16;
  mat(testing::sample_as("camera.png", DType::U8, 1)).convertTo(g16, CV_16U, 257.0);
  expect_opencv(g16, 3.0, 8, 8);
}

TEST(Clahe, SixteenBitRgbAndFloatGoThroughEightBitsAndAlphaIsKept) {
  const Image rgba8 = testing::sample_as("coffee_rgba.png", DType::U8, 4);
  const Image out8 = testing::run_cpu(stage_json(3.0, 8, 8), rgba8);
  // 16-bit: v * 257 comes back as the 8-bit result * 257; float: v / 255 as the 8-bit result / 255.
  const cv::Mat m8 = mat(rgba8);
  cv::Mat m16, mf;
  m8.convertTo(m16, CV_16U, 257.0);
  m8.convertTo(mf, CV_32F, 1.0 / 255.0);
  const Image in16 = from_mat(m16), inf = from_mat(mf);
  const auto b16 = run_both(one_stage(stage_json(3.0, 8, 8)), in16);
  const auto bf = run_both(one_stage(stage_json(3.0, 8, 8)), inf);
  EXPECT_EQ(compare(b16.cpu, b16.emulated).count, 0u);
  EXPECT_EQ(compare(bf.cpu, bf.emulated).count, 0u);
  const cv::Mat o8 = mat(out8), o16 = mat(b16.cpu), of = mat(bf.cpu);
  std::size_t bad16 = 0, badf = 0, alpha = 0;
  for (int y = 0; y < o8.rows; ++y)
    for (int x = 0; x < o8.cols; ++x)
      for (int c = 0; c < 4; ++c) {
        const int v = o8.ptr<std::uint8_t>(y)[4 * x + c];
        bad16 += o16.ptr<std::uint16_t>(y)[4 * x + c] != (c < 3 ? v * 257 : m16.ptr<std::uint16_t>(y)[4 * x + c]);
        badf += of.ptr<float>(y)[4 * x + c] != (c < 3 ? static_cast<float>(v) / 255.f : mf.ptr<float>(y)[4 * x + c]);
        if (c == 3) alpha += v != m8.ptr<std::uint8_t>(y)[4 * x + 3];
      }
  EXPECT_EQ(bad16, 0u);
  EXPECT_EQ(badf, 0u);
  EXPECT_EQ(alpha, 0u);
  // The RGB channels of an RGBA image are those of the RGB image.
  cv::Mat rgb;
  cv::cvtColor(m8, rgb, cv::COLOR_RGBA2RGB);
  const cv::Mat want = opencv_clahe(rgb, 3.0, 8, 8);
  cv::Mat got;
  cv::cvtColor(o8, got, cv::COLOR_RGBA2RGB);
  EXPECT_EQ(cv::norm(got, want, cv::NORM_INF), 0.0);
  // Float values off the 255 grid and out of range are rounded and clamped first.
  cv::Mat odd = mf.clone();
  odd.at<cv::Vec4f>(0, 0) = cv::Vec4f(-0.5f, 1.7f, 0.5f / 255.f + 0.0001f, 0.25f);
  const Image out_odd = testing::run_cpu(stage_json(3.0, 8, 8), from_mat(odd));
  cv::Mat q = mf.clone();
  q.at<cv::Vec4f>(0, 0) = cv::Vec4f(0.f, 1.f, 1.f / 255.f, 0.25f);
  const Image out_q = testing::run_cpu(stage_json(3.0, 8, 8), from_mat(q));
  EXPECT_EQ(compare(out_odd, out_q).count, 0u);
}

TEST(Clahe, DrawsTheClipUniformlyAndAppliesWithHalfProbabilityByDefault) {
  const Pipeline p = one_stage(R"({"stage": "clahe", "p": 1})");
  const int n = 4000, bins = 10;
  std::vector<int> hist(bins);
  for (int i = 0; i < n; ++i) {
    const Plan plan = p.plan(5, "img" + std::to_string(i) + ".png", 0, {16, 16, 3, DType::U8});
    const nlohmann::json m = plan.steps.at(0).op->params();
    const double clip = m.at("clip_limit").get<double>();
    ASSERT_GE(clip, 1.0);
    ASSERT_LT(clip, 4.0);
    EXPECT_EQ(m.at("tile_grid_size"), nlohmann::json::array({8, 8}));
    ++hist[std::min(bins - 1, static_cast<int>((clip - 1.0) / 3.0 * bins))];
  }
  // Albumentations draws clip = uniform(1, 4): chi-square with 9 degrees of freedom, 27.9 its 0.999 quantile.
  double chi2 = 0;
  for (int b : hist) chi2 += (b - n / double(bins)) * (b - n / double(bins)) / (n / double(bins));
  EXPECT_LT(chi2, 27.9);
  int applied = 0;
  const Pipeline def = one_stage(R"({"stage": "clahe"})");
  for (int i = 0; i < 2000; ++i) applied += def.plan(3, std::to_string(i), 0, {8, 8, 3, DType::U8}).steps.at(0).op ? 1 : 0;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
}

TEST(Clahe, ImportsCLAHE) {
  auto import_one = [](const std::string& transform) {
    const nlohmann::json saved = nlohmann::json::parse(
        R"({"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "transforms": [)" + transform + "]}}");
    return import_albumentations(saved, "a.json").pipeline["stages"][0];
  };
  const auto def = import_one(R"({"__class_fullname__": "CLAHE", "p": 0.5})");
  EXPECT_EQ(def["stage"], "clahe");
  EXPECT_EQ(def["clip_limit"], nlohmann::ordered_json::array({1.0, 4.0}));
  EXPECT_EQ(def["tile_grid_size"], nlohmann::ordered_json::array({8, 8}));
  EXPECT_EQ(def["p"], 0.5);
  const auto two = import_one(R"({"__class_fullname__": "CLAHE", "p": 1.0, "clip_limit": 2, "tile_grid_size": [4, 6]})");
  EXPECT_EQ(two["clip_limit"], nlohmann::ordered_json::array({1.0, 2.0}));
  EXPECT_EQ(two["tile_grid_size"], nlohmann::ordered_json::array({4, 6}));
  const auto range = import_one(R"({"__class_fullname__": "CLAHE", "clip_limit": [2, 3]})");
  EXPECT_EQ(range["clip_limit"], nlohmann::ordered_json::array({2.0, 3.0}));
}

}  // namespace
}  // namespace aug::test_clahe
