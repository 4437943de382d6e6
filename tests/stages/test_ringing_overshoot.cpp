// ringing_overshoot: the kernel against Albumentations' definition written out here (SciPy's j1 by
// its series, NumPy's plain sum), the output against cv::filter2D with the recorded kernel where
// OpenCV sums directly, the draws (odd sizes alike, cutoff uniform), both backends, the import.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numbers>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "lib/stages/engines/filter2d.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_ringing_overshoot {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

// J1 by its power series (enough terms for the arguments here, |x| < 25).
double j1_series(double x) {
  double term = x / 2, sum = term;
  for (int m = 1; m < 80; ++m) {
    term *= -(x * x / 4) / (m * (m + 1.0));
    sum += term;
  }
  return sum;
}

TEST(RingingOvershoot, KernelFollowsAlbumentationsDefinition) {
  const Pipeline p = one_stage(R"({"stage": "ringing_overshoot", "p": 1, "kernel_size": [3, 15], "cutoff": [0.3, 3.0]})");
  for (int i = 0; i < 40; ++i) {
    const Plan plan = p.plan(2, "k" + std::to_string(i), 0, {32, 32, 3, DType::U8});
    const auto& r = plan.record[0]["params"];
    const int k = r["kernel_size"].get<int>();
    const double cutoff = r["cutoff"].get<double>();
    const auto w = r["kernel"].get<std::vector<float>>();
    ASSERT_EQ(w.size(), static_cast<std::size_t>(k * k));
    std::vector<double> K(w.size());
    double sum = 0;
    const double c = (k - 1) / 2.0;
    for (int x = 0; x < k; ++x)
      for (int y = 0; y < k; ++y) {
        const double d = std::hypot(x - c, y - c);
        K[x * k + y] = d == 0 ? cutoff * cutoff / (4 * std::numbers::pi) : cutoff * j1_series(cutoff * d) / (2 * std::numbers::pi * d);
        sum += K[x * k + y];
      }
    double total = 0;
    for (std::size_t j = 0; j < w.size(); ++j) {
      EXPECT_NEAR(w[j], static_cast<float>(K[j]) / sum, 2e-7 * std::max(1.0, std::abs(K[j] / sum) * 8)) << k << " " << j;
      total += w[j];
    }
    EXPECT_NEAR(total, 1.0, 1e-5);
    // symmetric under the square's symmetries
    for (int x = 0; x < k; ++x)
      for (int y = 0; y < k; ++y) {
        EXPECT_EQ(w[x * k + y], w[y * k + x]);
        EXPECT_EQ(w[x * k + y], w[(k - 1 - x) * k + y]);
      }
  }
}

TEST(RingingOvershoot, EqualsCvFilter2DWhereOpenCVSumsDirectly) {
  for (const char* name : {"astronaut.jpg", "coffee_rgba.png", "camera.png"})
    for (int k : {3, 7, 11}) {
      const Image in = testing::sample(name);
      const auto b = run_both(one_stage(R"({"stage": "ringing_overshoot", "p": 1, "kernel_size": )" + std::to_string(k) + "}"),
                              in, std::string(name) + std::to_string(k));
      const auto w = b.plan.record[0]["params"]["kernel"].get<std::vector<float>>();
      cv::Mat kernel(k, k, CV_32F);
      for (int i = 0; i < k * k; ++i) kernel.at<float>(i / k, i % k) = w[i];
      cv::Mat out;
      cv::filter2D(testing::mat(in), out, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
      const Image want = testing::from_mat(out);
      EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << name << " " << k;
      if (cv_filter2d_is_direct(k, DType::U8)) EXPECT_EQ(compare(b.cpu, want).count, 0u) << name << " " << k;
      else EXPECT_LE(compare(b.cpu, want).max, 1.0) << name << " " << k;
    }
}

TEST(RingingOvershoot, DrawsOddSizesAlikeAndCutoffUniformly) {
  const Pipeline p = one_stage(R"({"stage": "ringing_overshoot", "p": 1})");
  std::map<int, int> sizes;
  double sum = 0;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    const Plan plan = p.plan(1, std::to_string(i), 0, {8, 8, 1, DType::U8});
    const auto& r = plan.record[0]["params"];
    ++sizes[r["kernel_size"].get<int>()];
    sum += r["cutoff"].get<double>();
  }
  ASSERT_EQ(sizes.size(), 5u);  // 7, 9, 11, 13, 15
  for (const auto& [k, count] : sizes) EXPECT_NEAR(count / double(n), 0.2, 0.025) << k;
  EXPECT_NEAR(sum / n, 3 * std::numbers::pi / 8, 0.01);
}

}  // namespace
}  // namespace aug::test_ringing_overshoot
