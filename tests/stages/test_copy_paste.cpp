// copy_paste: photographs with drawn objects as the run's inputs (tests/stages/mix_support.hpp). The
// output is the resized partner (cv::resize, 8-bit bilinear exact) inside the pasted objects'
// outlines and the image elsewhere; each pasted object covers less than max_overlap of every box of
// the image's; round(fraction n) of the eligible objects are pasted; every row matches the object
// found again in the output's pixels; without labels nothing is pasted.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "tests/stages/mix_support.hpp"

namespace aug::test_copy_paste {
namespace {

using testing::compare;
using namespace testing::mix_inputs;

TEST(CopyPaste, PastedObjectsAreWhereTheirLabelsSayAndOverlapLittle) {
  const Inputs inputs(4);
  std::vector<double> ious;
  int pasted_total = 0;
  for (std::uint32_t copy = 0; copy < 30; ++copy) {
    const std::size_t self = copy % 4;
    const Output o = run(R"({"stage": "copy_paste", "p": 1, "fraction": 1, "max_overlap": 0.3})", inputs, self, copy, kRules);
    const auto& params = o.plan.record[0]["params"];
    const Partner& b = inputs.at(*inputs.index_of(params["partner"].get<std::string>()));
    const Image& a = inputs.image(self);
    const int W = a.width(), H = a.height();
    cv::Mat resized;
    cv::resize(testing::mat(inputs.image(*inputs.index_of(b.rel))), resized, cv::Size(W, H), 0, 0, cv::INTER_LINEAR_EXACT);
    // The pasted objects' boxes (rectangles here, so the outline is the box): the resized partner
    // inside (vertices truncated to integers), the image outside.
    const double sx = double(W) / b.width, sy = double(H) / b.height;
    cv::Mat mask(H, W, CV_8UC1, cv::Scalar(0));
    std::vector<labels::Box> mine;
    for (const auto& obj : inputs.at(self).labels->objects) mine.push_back(*obj.box);
    for (const auto& j : params["pasted"]) {
      const labels::Box& pb = *b.labels->objects[j.get<std::size_t>()].box;
      const labels::Box s{pb.x0 * sx, pb.y0 * sy, pb.x1 * sx, pb.y1 * sy};
      for (const labels::Box& m : mine) {
        const double w = std::min(s.x1, m.x1) - std::max(s.x0, m.x0), h = std::min(s.y1, m.y1) - std::max(s.y0, m.y0);
        EXPECT_LT(w > 0 && h > 0 ? w * h / m.area() : 0.0, 0.3);
      }
      const std::vector<std::vector<cv::Point>> c{{{int(s.x0), int(s.y0)}, {int(s.x1), int(s.y0)}, {int(s.x1), int(s.y1)}, {int(s.x0), int(s.y1)}}};
      cv::drawContours(mask, c, -1, cv::Scalar(1), cv::FILLED);
      ++pasted_total;
    }
    int differing = 0;
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        for (int ch = 0; ch < 3; ++ch) {
          const std::uint8_t want = mask.at<std::uint8_t>(y, x) ? resized.ptr<std::uint8_t>(y)[3 * x + ch] : a.row(y)[3 * x + ch];
          differing += want != o.image.row(y)[3 * x + ch];
        }
    EXPECT_EQ(differing, 0) << "copy " << copy;
    EXPECT_EQ(o.labels.objects.size(), 2 + params["pasted"].size());
    for (double v : check_found_again(o, 8, 30, "copy " + std::to_string(copy))) ious.push_back(v);
  }
  EXPECT_GT(pasted_total, 20);
  double sum = 0;
  for (double v : ious) sum += v;
  EXPECT_GE(sum / ious.size(), 0.95);
  std::printf("copy_paste: mean box IoU %.4f over %zu boxes, %d objects pasted\n", sum / ious.size(), ious.size(),
              pasted_total);
}

TEST(CopyPaste, FractionTakesThatShareOfTheEligibleObjects) {
  const Inputs inputs(4);
  for (std::uint32_t copy = 0; copy < 12; ++copy) {
    const Output all = run(R"({"stage": "copy_paste", "p": 1, "fraction": 1, "max_overlap": 1})", inputs, 0, copy);
    const Output half = run(R"({"stage": "copy_paste", "p": 1, "fraction": 0.5, "max_overlap": 1})", inputs, 0, copy);
    const std::size_t n = all.plan.record[0]["params"]["pasted"].size();
    EXPECT_EQ(half.plan.record[0]["params"]["pasted"].size(), static_cast<std::size_t>(std::nearbyint(0.5 * n)));
  }
}

TEST(CopyPaste, WithoutLabelsNothingIsPasted) {
  const Inputs inputs(3);
  const Partner& me = inputs.at(1);
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [{"stage": "copy_paste", "p": 1, "fraction": 1}]})", "cp.json");
  static auto cpu = make_cpu_backend(1);
  const Plan plan = p.plan(3, me.rel, 0, inputs.image(1).shape(), DrawInputs{nullptr, nullptr, nullptr, me.rel});
  EXPECT_EQ(compare(cpu->run(plan, inputs.image(1), 0), inputs.image(1)).count, 0u);
}

}  // namespace
}  // namespace aug::test_copy_paste
