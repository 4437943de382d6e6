// cutmix: the box lies in the image, the output is the image outside it and the resized partner
// (cv::resize, 8-bit bilinear exact) inside it; the labels of both match the objects found again.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "tests/stages/mix_support.hpp"

namespace aug::test_cutmix {
namespace {

using testing::compare;
using namespace testing::mix_inputs;

TEST(Cutmix, BoxFollowsTorchvisionAndLabelsFollowWhatIsVisible) {
  const Inputs inputs(4);
  std::vector<double> ious;
  for (std::uint32_t copy = 0; copy < 40; ++copy) {
    const Output o = run(R"({"stage": "cutmix", "p": 1})", inputs, 2, copy, kRules);
    const auto& params = o.plan.record[0]["params"];
    const int x = params["box"][0], y = params["box"][1], w = params["box"][2], h = params["box"][3];
    const int W = o.image.width(), H = o.image.height();
    EXPECT_GE(x, 0);
    EXPECT_LE(x + w, W);
    EXPECT_GE(y, 0);
    EXPECT_LE(y + h, H);
    // Outside the box the image is untouched; inside it is the resized partner.
    const Image& a = inputs.image(2);
    const Partner& b = inputs.at(*inputs.index_of(params["partner"].get<std::string>()));
    cv::Mat resized;
    cv::resize(testing::mat(inputs.image(*inputs.index_of(b.rel))), resized, cv::Size(W, H), 0, 0, cv::INTER_LINEAR_EXACT);
    int differing = 0;
    for (int yy = 0; yy < H; ++yy)
      for (int xx = 0; xx < W; ++xx)
        for (int c = 0; c < 3; ++c) {
          const bool in = xx >= x && xx < x + w && yy >= y && yy < y + h;
          const std::uint8_t want = in ? resized.ptr<std::uint8_t>(yy)[3 * xx + c] : a.row(yy)[3 * xx + c];
          differing += want != o.image.row(yy)[3 * xx + c];
        }
    EXPECT_EQ(differing, 0) << "copy " << copy;
    for (double v : check_found_again(o, 8, 30, "copy " + std::to_string(copy))) ious.push_back(v);
  }
  double sum = 0;
  for (double v : ious) sum += v;
  ASSERT_GT(ious.size(), 40u);
  EXPECT_GE(sum / ious.size(), 0.95) << ious.size();
  std::printf("cutmix: mean box IoU %.4f over %zu boxes\n", sum / ious.size(), ious.size());
}

}  // namespace
}  // namespace aug::test_cutmix
