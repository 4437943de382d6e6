// mosaic: photographs with drawn objects as the run's inputs (tests/stages/mix_support.hpp). The
// labels of each output match the objects found again in its pixels (box IoU, no visible object
// without a row, no row without a visible object) with both fit modes; partners are other inputs,
// distinct, recorded; label maps are placed with their images; the layout follows Albumentations'
// formula (centre range, segments tiling the output, the largest the image's own); a single input
// is its own partner.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "tests/stages/mix_support.hpp"

namespace aug::test_mosaic {
namespace {

using testing::compare;
using namespace testing::mix_inputs;

TEST(Mosaic, LabelsOfTheImageAndItsPartnersMatchTheObjectsFoundAgain) {
  const Inputs inputs(4);
  std::vector<double> ious;
  int partners_seen = 0;
  for (const std::string fit : {"cover", "contain"})
    for (std::uint32_t copy = 0; copy < 6; ++copy)
      for (std::size_t self = 0; self < 4; ++self) {
        const std::string stage = R"({"stage": "mosaic", "p": 1, "target_size": [300, 400], "cell_shape": [220, 260], "fit_mode": ")" + fit + R"("})";
        const Output o = run(stage, inputs, self, copy, kRules);
        ASSERT_EQ(o.image.width(), 400);
        ASSERT_EQ(o.image.height(), 300);
        // The partners are other inputs, distinct, and recorded.
        const auto names = o.plan.record[0]["params"]["partners"];
        ASSERT_EQ(names.size(), 3u);
        std::set<std::string> distinct;
        for (const auto& n : names) {
          EXPECT_NE(n.get<std::string>(), inputs.at(self).rel);
          distinct.insert(n.get<std::string>());
        }
        EXPECT_EQ(distinct.size(), 3u);
        partners_seen += static_cast<int>(names.size());
        for (double v : check_found_again(o, 8, 30, fit + " copy " + std::to_string(copy))) ious.push_back(v);
      }
  ASSERT_GT(ious.size(), 100u);
  double sum = 0;
  for (double v : ious) sum += v;
  EXPECT_GE(sum / ious.size(), 0.95) << ious.size() << " boxes";
  std::printf("mosaic: mean box IoU %.4f over %zu boxes\n", sum / ious.size(), ious.size());
  EXPECT_EQ(partners_seen, 2 * 6 * 4 * 3);
}

TEST(Mosaic, LabelMapsArePlacedWithTheirImages) {
  const Inputs inputs(4);
  const Output o = run(R"({"stage": "mosaic", "p": 1, "target_size": [256, 256], "cell_shape": [200, 200]})", inputs, 1, 0);
  // Every pixel of an object's colour is that object's class in the map (inside, away from edges).
  const k::View<const std::uint8_t> px = o.image.ref().view<const std::uint8_t>();
  const k::View<const std::uint8_t> m = o.mask.ref().view<const std::uint8_t>();
  int checked = 0;
  for (int y = 1; y + 1 < o.image.height(); ++y)
    for (int x = 1; x + 1 < o.image.width(); ++x)
      for (int c = 0; c < 8; ++c) {
        const lab::Colour col = kColours[static_cast<std::size_t>(c)];
        if (px.at(x, y, 0) == col[0] && px.at(x, y, 1) == col[1] && px.at(x, y, 2) == col[2]) {
          EXPECT_EQ(m.at(x, y, 0), c + 1) << x << "," << y;
          ++checked;
        }
      }
  EXPECT_GT(checked, 1000);
}

TEST(Mosaic, LayoutFollowsAlbumentationsFormula) {
  const Inputs inputs(4);
  for (std::uint32_t copy = 0; copy < 20; ++copy) {
    const Output o = run(R"({"stage": "mosaic", "p": 1, "target_size": [100, 120], "cell_shape": [80, 90]})", inputs, 0, copy);
    const auto& params = o.plan.record[0]["params"];
    const int cx = params["center"][0], cy = params["center"][1];
    // cx = Wt//2 + int((Wg - Wt + 1) u), u in [0.3, 0.7): within those bounds.
    EXPECT_GE(cx, 60 + static_cast<int>(61 * 0.3));
    EXPECT_LE(cx, 60 + static_cast<int>(61 * 0.7));
    EXPECT_GE(cy, 50 + static_cast<int>(61 * 0.3));
    EXPECT_LE(cy, 50 + static_cast<int>(61 * 0.7));
    // The segments tile the output; the largest is the image's own.
    long area = 0, largest = 0;
    std::string largest_image = "?";
    for (const auto& c : params["cells"]) {
      const long a = c["segment"][2].get<long>() * c["segment"][3].get<long>();
      area += a;
      if (a > largest) largest = a, largest_image = c["image"];
    }
    EXPECT_EQ(area, 100 * 120);
    EXPECT_EQ(largest_image, "");
  }
}

TEST(Mosaic, WithoutOtherInputsTheImageIsItsOwnPartner) {
  const Inputs inputs(1);
  const Output o = run(R"({"stage": "mosaic", "p": 1, "target_size": [200, 200], "cell_shape": [150, 150]})", inputs, 0, 0);
  for (const auto& n : o.plan.record[0]["params"]["partners"]) EXPECT_EQ(n.get<std::string>(), "");
  // The image's objects are labelled in every cell they show in.
  check_found_again(o, 2, 30, "own partner");
  EXPECT_GT(o.labels.objects.size(), 2u);
}

}  // namespace
}  // namespace aug::test_mosaic
