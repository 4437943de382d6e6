// mixup: the blend equals Ultralytics' trunc(a r + b (1 - r)) with the partner resized by
// cv::resize (8-bit bilinear exact); both images' objects are labelled where they are found again
// (the partner's in its share of the output); r follows Beta(32, 32) and the Beta draws have the
// distribution's mean and variance (Beta(1, 1) uniform by a KS test).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/stages/mix/mix.hpp"
#include "tests/stages/mix_support.hpp"

namespace aug::test_mixup {
namespace {

using testing::compare;
using namespace testing::mix_inputs;

TEST(Mixup, LabelsOfBothAndTheBlendAsUltralytics) {
  const Inputs inputs(3);
  std::vector<double> ratios, ious;
  for (std::uint32_t copy = 0; copy < 40; ++copy) {
    const Output o = run(R"({"stage": "mixup", "p": 1})", inputs, 0, copy);
    const auto& params = o.plan.record[0]["params"];
    const double r = params["ratio"];
    ratios.push_back(r);
    const std::string partner = params["partner"];
    ASSERT_NE(partner, "in0.png");
    const Partner& b = inputs.at(*inputs.index_of(partner));
    // Both images' objects are labelled: 2 + 2 rows, each where its object is found again: the image's
    // in the image's pixels, the partner's in the partner's share of the output, (out - a r) / (1 - r).
    EXPECT_EQ(o.labels.objects.size(), 4u);
    Image share(o.image.shape());
    for (int y = 0; y < share.height(); ++y)
      for (int x = 0; x < share.width() * 3; ++x)
        share.row(y)[x] = cv::saturate_cast<std::uint8_t>((o.image.row(y)[x] - inputs.image(0).row(y)[x] * r) / (1 - r));
    for (const labels::Object& obj : o.labels.objects) {
      const bool own = obj.category < 2;
      const auto found = lab::find_colour(own ? inputs.image(0) : share, kColours[static_cast<std::size_t>(obj.category)], 40, 1);
      ASSERT_TRUE(found.has_value()) << obj.category;
      ious.push_back(lab::iou(*found, *obj.box));
    }
    if (copy < 3) {
      // trunc(a r + b' (1 - r)) with b' the partner resized to the image (cv::resize, 8-bit bilinear exact).
      cv::Mat resized;
      cv::resize(testing::mat(inputs.image(*inputs.index_of(b.rel))), resized, cv::Size(o.image.width(), o.image.height()), 0, 0, cv::INTER_LINEAR_EXACT);
      const cv::Mat a = testing::mat(inputs.image(0));
      int differing = 0;
      for (int y = 0; y < a.rows; ++y)
        for (int x = 0; x < a.cols * 3; ++x) {
          const int v = static_cast<int>(a.ptr<std::uint8_t>(y)[x] * r + resized.ptr<std::uint8_t>(y)[x] * (1.0 - r));
          differing += v != o.image.row(y)[x];
        }
      EXPECT_EQ(differing, 0);
    }
  }
  double sum = 0;
  for (double v : ious) sum += v;
  EXPECT_GE(sum / ious.size(), 0.95);
  std::printf("mixup: mean box IoU %.4f over %zu boxes\n", sum / ious.size(), ious.size());
  // Beta(32, 32): mean 0.5, variance 1 / (4 (2 alpha + 1)) = 1/260.
  double mean = 0, var = 0;
  for (double r : ratios) mean += r;
  mean /= ratios.size();
  for (double r : ratios) var += (r - mean) * (r - mean);
  var /= ratios.size() - 1;
  EXPECT_NEAR(mean, 0.5, 4 * std::sqrt(1.0 / 260 / ratios.size()));
  EXPECT_NEAR(var, 1.0 / 260, 0.5 / 260);
}

TEST(Mixup, BetaDrawsHaveTheDistributionsMoments) {
  for (double alpha : {0.4, 1.0, 8.0}) {
    std::vector<double> v;
    for (int i = 0; i < 4000; ++i) {
      Draws d(keyed_stream(9, "beta", static_cast<std::uint32_t>(i), 0));
      v.push_back(mix::beta_draw(d, alpha));
    }
    double mean = 0, var = 0;
    for (double x : v) mean += x;
    mean /= v.size();
    for (double x : v) var += (x - mean) * (x - mean);
    var /= v.size() - 1;
    const double want_var = 1.0 / (4 * (2 * alpha + 1));
    EXPECT_NEAR(mean, 0.5, 4 * std::sqrt(want_var / v.size())) << alpha;
    EXPECT_NEAR(var, want_var, 0.1 * want_var) << alpha;
    if (alpha == 1.0) {
      EXPECT_LT(testing::ks_uniform(v, 0, 1), 1.63) << "Beta(1, 1) is uniform";
    }
  }
}

}  // namespace
}  // namespace aug::test_mixup
