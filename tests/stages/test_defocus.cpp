// defocus: the kernel against Albumentations' construction, the image against the direct fused sum
// written out (0 differing values) and against cv::filter2D, whose DFT rounds otherwise (counted,
// within a level), the draws against Albumentations' definition, and the import.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_defocus {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

nlohmann::json params_of(const Plan& plan) { return plan.steps.at(0).op->params(); }

// The kernel as Albumentations builds it, written out again.
cv::Mat albumentations_kernel(int R, double sigma) {
  const int L = std::max(8, R), n = 2 * L + 1;
  cv::Mat disk = cv::Mat::zeros(n, n, CV_32F);
  float count = 0;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      if ((x - L) * (x - L) + (y - L) * (y - L) <= R * R) disk.at<float>(y, x) = 1.0f, count += 1.0f;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) disk.at<float>(y, x) = disk.at<float>(y, x) / count;
  cv::Mat k;
  cv::GaussianBlur(disk, k, cv::Size(R <= 8 ? 3 : 5, R <= 8 ? 3 : 5), sigma);
  return k;
}

// The direct correlation: for each value, the non-zero taps in row-major order, fmaf from 0.
Image direct(const Image& in, const cv::Mat& k) {
  const cv::Mat src = testing::mat(in);
  const int C = src.channels(), W = src.cols, H = src.rows, r = k.rows / 2, depth = src.depth();
  cv::Mat f;
  src.convertTo(f, CV_MAKETYPE(CV_32F, C));
  cv::Mat out(src.size(), src.type());
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) {
        float acc = 0.0f;
        for (int ky = 0; ky < k.rows; ++ky)
          for (int kx = 0; kx < k.cols; ++kx) {
            const float w = k.at<float>(ky, kx);
            if (w == 0.0f) continue;
            const int sy = cv::borderInterpolate(y + ky - r, H, cv::BORDER_REFLECT_101);
            const int sx = cv::borderInterpolate(x + kx - r, W, cv::BORDER_REFLECT_101);
            acc = std::fmaf(f.ptr<float>(sy)[sx * C + c], w, acc);
          }
        if (depth == CV_8U) out.ptr<std::uint8_t>(y)[x * C + c] = cv::saturate_cast<std::uint8_t>(std::rint(acc));
        else if (depth == CV_16U) out.ptr<std::uint16_t>(y)[x * C + c] = cv::saturate_cast<std::uint16_t>(std::rint(acc));
        else out.ptr<float>(y)[x * C + c] = std::min(std::max(acc, 0.0f), 1.0f);
      }
  return testing::from_mat(out);
}

TEST(Defocus, KernelIsAlbumentationsDisk) {
  for (int R : {1, 3, 8, 9, 12})
    for (double s : {0.0, 0.1, 0.37}) {
      const auto p = params_of(
          one_stage(R"({"stage": "defocus", "p": 1, "radius": )" + std::to_string(R) + R"(, "alias_blur": )" +
                    std::to_string(s) + "}")
              .plan(1, "a.png", 0, {8, 8, 1, DType::U8}));
      const cv::Mat k = albumentations_kernel(R, p.at("alias_blur").get<double>());
      EXPECT_EQ(p.at("kernel_size").get<int>(), k.rows) << R;
      // The disk sums to 1; its blur keeps that while the disk stays clear of the grid's edge (a disk
      // that reaches it, R = L, gets its rim reflected back in, as in Albumentations).
      if (R + 1 < std::max(8, R)) {
        EXPECT_NEAR(cv::sum(k)[0], 1.0, 1e-5) << R << " " << s;
      }
    }
}

TEST(Defocus, EqualsTheDirectFusedSum) {
  for (const char* config : {R"({"stage": "defocus", "p": 1, "radius": [1, 5]})",
                             R"({"stage": "defocus", "p": 1, "radius": 9, "alias_blur": 0.4})"}) {
    for (DType t : {DType::U8, DType::U16, DType::F32})
      for (int c : {1, 3, 4})
        for (const auto& [w, h] : std::vector<std::pair<int, int>>{{45, 31}, {3, 2}, {1, 1}, {20, 7}}) {
          const Image in = testing::random_image({w, h, c, t}, 31 + c + w);
          const auto b = run_both(one_stage(config), in, "r" + std::to_string(w * 100 + h + c));
          const auto p = params_of(b.plan);
          const Image want = direct(in, albumentations_kernel(p.at("radius").get<int>(), p.at("alias_blur").get<double>()));
          SCOPED_TRACE(std::string(config) + " " + dtype_name(t) + " c=" + std::to_string(c) + " " +
                       std::to_string(w) + "x" + std::to_string(h));
          EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
          EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
        }
  }
  // A photograph, 8-bit, on the CPU path (the host driver) against the loops.
  const Image in = testing::sample("camera.png");
  const auto b = run_both(one_stage(R"({"stage": "defocus", "p": 1, "radius": 4})"), in);
  const auto p = params_of(b.plan);
  EXPECT_EQ(compare(b.cpu, direct(in, albumentations_kernel(4, p.at("alias_blur").get<double>()))).count, 0u);
  EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
}

TEST(Defocus, IsWithinALevelOfCvFilter2D) {
  // cv::filter2D takes its DFT at these sizes: a few 8-bit values round the other way.
  std::size_t differing = 0, total = 0;
  double worst = 0;
  for (const char* name : {"astronaut.jpg", "camera.png", "coffee_rgba.png"})
    for (int R : {3, 10}) {
      const Image in = testing::sample(name);
      const Image got = testing::run_cpu(R"({"stage": "defocus", "p": 1, "radius": )" + std::to_string(R) + "}", in, name);
      const auto p = params_of(one_stage(R"({"stage": "defocus", "p": 1, "radius": )" + std::to_string(R) + "}")
                                   .plan(11, name, 0, in.shape()));
      cv::Mat dst;
      cv::filter2D(testing::mat(in), dst, -1, albumentations_kernel(R, p.at("alias_blur").get<double>()), cv::Point(-1, -1),
                   0, cv::BORDER_REFLECT_101);
      const auto d = compare(got, testing::from_mat(dst));
      differing += d.count;
      total += in.shape().values();
      worst = std::max(worst, d.max);
    }
  std::cout << differing << " of " << total << " 8-bit values differ from cv::filter2D's DFT, by at most " << worst << "\n";
  EXPECT_LE(worst, 1.0);
  EXPECT_LE(static_cast<double>(differing), 0.01 * static_cast<double>(total));
}

using testing::ks_uniform;

TEST(Defocus, DrawsAreAlbumentations) {
  // Albumentations: radius = randint(3, 10) inclusive, alias_blur = uniform(0.1, 0.5), p 0.5.
  const Pipeline def = one_stage(R"({"stage": "defocus"})");
  std::map<int, int> radii;
  std::vector<double> sig;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    const Plan plan = def.plan(4, "img" + std::to_string(i) + ".png", 0, {4, 4, 1, DType::U8});
    if (!plan.steps.at(0).op) continue;
    const auto p = params_of(plan);
    ++radii[p.at("radius").get<int>()];
    sig.push_back(p.at("alias_blur").get<double>());
  }
  const double m = static_cast<double>(sig.size());
  EXPECT_NEAR(m, n * 0.5, 4 * std::sqrt(n * 0.25));
  ASSERT_EQ(radii.size(), 8u);
  // Chi-square with 7 degrees of freedom: 24.32 is its 0.999 quantile.
  double chi2 = 0;
  for (const auto& [r, c] : radii) {
    EXPECT_TRUE(r >= 3 && r <= 10) << r;
    chi2 += (c - m / 8) * (c - m / 8) / (m / 8);
  }
  EXPECT_LT(chi2, 24.32);
  const double crit = 1.95 / std::sqrt(m);
  EXPECT_LT(ks_uniform(sig, 0.1, 0.5), crit);
  EXPECT_GT(ks_uniform(sig, 0.12, 0.52), crit);  // the test can fail
}

TEST(Defocus, ImportsDefocus) {
  using oj = nlohmann::ordered_json;
  const nlohmann::json saved = nlohmann::json::parse(
      R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [
          {"__class_fullname__": "Defocus", "p": 0.4, "radius": [2, 6], "alias_blur": [0.2, 0.3]},
          {"__class_fullname__": "Defocus"}]}})");
  const auto stages = import_albumentations(saved, "a.json").pipeline["stages"];
  EXPECT_EQ(stages[0]["stage"], "defocus");
  EXPECT_EQ(stages[0]["radius"], oj::array({2, 6}));
  EXPECT_EQ(stages[0]["alias_blur"], oj::array({0.2, 0.3}));
  EXPECT_EQ(stages[0]["p"], 0.4);
  EXPECT_EQ(stages[1]["radius"], oj::array({3, 10}));
  EXPECT_EQ(stages[1]["alias_blur"], oj::array({0.1, 0.5}));
  EXPECT_EQ(stages[1]["p"], 0.5);
}

}  // namespace
}  // namespace aug::test_defocus
