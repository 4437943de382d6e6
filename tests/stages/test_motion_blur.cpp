// motion_blur: against cv::filter2D with the kernel the manifest records (points, weight 1/n), the
// rasterised lines for known angles and directions, the draws, and sizes where OpenCV uses a DFT.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/stages/stage_runner.hpp"

namespace aug::test_motion_blur {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

nlohmann::json params_of(const Plan& plan) { return plan.steps.at(0).op->params(); }

// cv::filter2D with the recorded points, each weighted (float)(1 / count).
Image opencv_filter(const Image& in, const nlohmann::json& p) {
  const int k = p.at("kernel_size").get<int>();
  cv::Mat kernel = cv::Mat::zeros(k, k, CV_32F);
  const auto& points = p.at("points");
  for (const auto& pt : points)
    kernel.at<float>(pt[1].get<int>(), pt[0].get<int>()) = static_cast<float>(1.0 / static_cast<double>(points.size()));
  cv::Mat out;
  cv::filter2D(testing::mat(in), out, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
  return testing::from_mat(out);
}

bool fused_opencv() { return cv::checkHardwareSupport(CV_CPU_AVX2) && cv::checkHardwareSupport(CV_CPU_FMA3); }

std::set<std::pair<int, int>> points(const std::string& config) {
  const auto p = params_of(one_stage(config).plan(1, "a.png", 0, {9, 9, 1, DType::U8}));
  std::set<std::pair<int, int>> out;
  for (const auto& pt : p.at("points")) out.insert({pt[0].get<int>(), pt[1].get<int>()});
  return out;
}

TEST(MotionBlur, EqualsCvFilter2DUpToSizeEleven) {
  for (int k : {3, 5, 7, 9, 11})
    for (DType t : {DType::U8, DType::U16, DType::F32})
      for (int c : {1, 3, 4}) {
        const std::string config = R"({"stage": "motion_blur", "p": 1, "kernel_size": )" + std::to_string(k) + "}";
        for (const auto& [w, h] : std::vector<std::pair<int, int>>{{45, 31}, {3, 2}, {1, 1}}) {
          const Image in = testing::random_image({w, h, c, t}, 40 + k + c);
          const auto b = run_both(one_stage(config), in, "img" + std::to_string(k * 10 + c) + ".png");
          const Image want = opencv_filter(in, params_of(b.plan));
          SCOPED_TRACE("k=" + std::to_string(k) + " " + dtype_name(t) + " c=" + std::to_string(c) + " " +
                       std::to_string(w) + "x" + std::to_string(h));
          EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
          // 16-bit kernels of 50 entries or more go through OpenCV's DFT: within a level there
          const bool dft = t == DType::U16 && k * k >= 50;
          if (fused_opencv()) {
            EXPECT_EQ(compare(b.emulated, want, dft ? 1 : 0).count, 0u) << compare(b.emulated, want).str();
          }
        }
      }
}

TEST(MotionBlur, PhotographsEqualCvFilter2D) {
  for (const char* name : {"astronaut.jpg", "coffee_rgba.png", "camera.png"}) {
    const Image in = testing::sample(name);
    const auto b = run_both(one_stage(R"({"stage": "motion_blur", "p": 1, "kernel_size": [3, 11]})"), in, name);
    const Image want = opencv_filter(in, params_of(b.plan));
    EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
    EXPECT_EQ(compare(b.emulated, want, fused_opencv() ? 0 : 1).count, 0u)
        << name << " " << compare(b.emulated, want).str();
  }
}

TEST(MotionBlur, LargeKernelsAreWithinALevelOfOpenCVsDft) {
  // From 130 kernel entries cv::filter2D correlates through a DFT; the direct sum stays within 1.
  const Image in = testing::sample("astronaut.jpg");
  for (int k : {13, 21}) {
    const auto b =
        run_both(one_stage(R"({"stage": "motion_blur", "p": 1, "kernel_size": )" + std::to_string(k) + "}"), in);
    const Image want = opencv_filter(in, params_of(b.plan));
    const auto d = compare(b.emulated, want);
    EXPECT_LE(d.max, 1.0) << k << " " << d.str();
    EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
    std::cout << "k=" << k << ": " << d.count << " values differ from cv::filter2D, by at most " << d.max << "\n";
  }
}

TEST(MotionBlur, RasterisedLines) {
  const std::string base = R"({"stage": "motion_blur", "p": 1, "kernel_size": 5, "allow_shifted": false, )";
  using P = std::set<std::pair<int, int>>;
  EXPECT_EQ(points(base + R"("angle": 0, "direction": 0})"), (P{{0, 2}, {1, 2}, {2, 2}, {3, 2}, {4, 2}}));
  EXPECT_EQ(points(base + R"("angle": 90, "direction": 0})"), (P{{2, 0}, {2, 1}, {2, 2}, {2, 3}, {2, 4}}));
  // the segment is 2 L long whatever the angle: at 45 degrees its ends round to (1, 1) and (3, 3)
  EXPECT_EQ(points(base + R"("angle": 45, "direction": 0})"), (P{{1, 1}, {2, 2}, {3, 3}}));
  EXPECT_EQ(points(base + R"("angle": 0, "direction": 1})"), (P{{2, 2}, {3, 2}, {4, 2}}));
  EXPECT_EQ(points(base + R"("angle": 0, "direction": -1})"), (P{{0, 2}, {1, 2}, {2, 2}}));
  EXPECT_EQ(points(base + R"("angle": 180, "direction": 1})"), (P{{0, 2}, {1, 2}, {2, 2}}));
  // a shallow line from (0, 1) to (4, 3): Bresenham's steps, one point per column, the tie at x = 1
  // (y = 1.5) stepping down
  const P shallow = points(base + R"("angle": 26.565, "direction": 0})");
  EXPECT_EQ(shallow, (P{{0, 1}, {1, 2}, {2, 2}, {3, 3}, {4, 3}}));
}

TEST(MotionBlur, DrawsCoverSizesAnglesDirectionsAndShifts) {
  const Pipeline pipe = one_stage(R"({"stage": "motion_blur", "p": 1})");
  std::map<int, int> sizes;
  double amin = 1e9, amax = -1e9, dmin = 1e9, dmax = -1e9, smax = 0;
  for (int i = 0; i < 3000; ++i) {
    const auto p = params_of(pipe.plan(2, "i" + std::to_string(i), 0, {8, 8, 3, DType::U8}));
    const int k = p.at("kernel_size").get<int>();
    ++sizes[k];
    const double angle = p.at("angle").get<double>(), direction = p.at("direction").get<double>();
    amin = std::min(amin, angle);
    amax = std::max(amax, angle);
    dmin = std::min(dmin, direction);
    dmax = std::max(dmax, direction);
    for (int a = 0; a < 2; ++a) {
      const double s = std::fabs(p.at("shift")[a].get<double>());
      EXPECT_LE(s, (k / 2) / 2.0);
      smax = std::max(smax, s);
    }
    EXPECT_GE(p.at("points").size(), 1u);
  }
  ASSERT_EQ(sizes.size(), 3u);
  for (const auto& [k, n] : sizes) EXPECT_NEAR(n, 1000, 5 * std::sqrt(1000.0)) << k;
  EXPECT_LT(amin, 1);
  EXPECT_GT(amax, 359);
  EXPECT_LT(dmin, -0.99);
  EXPECT_GT(dmax, 0.99);
  EXPECT_GT(smax, 1.4);  // k = 7: up to 1.5
  const auto fixed = params_of(
      one_stage(R"({"stage": "motion_blur", "p": 1, "allow_shifted": false})").plan(2, "x", 0, {8, 8, 3, DType::U8}));
  EXPECT_EQ(fixed.at("shift")[0].get<double>(), 0.0);
  EXPECT_EQ(fixed.at("shift")[1].get<double>(), 0.0);
}

}  // namespace
}  // namespace aug::test_motion_blur
