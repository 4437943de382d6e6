// zoom_out: torchvision's RandomZoomOut. The output is cv::copyMakeBorder (constant, a fill per
// channel) with the drawn sides on every type and both backends; the draw is torchvision's formula
// written plainly here, on the same keyed stream; the factor is uniform over side_range and the
// placement uniform (chi-square and mean tests that can fail), p defaults to 0.5; drawn objects are
// found again where their shifted labels say, and masks get the labels block's mask_fill.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "tests/stages/geometry_support.hpp"
#include "tests/stages/label_support.hpp"

namespace aug::test_zoom_out {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::sample_as;
namespace lab = testing::labelled;

struct RefZoom {
  float r;
  std::array<int, 4> padding;  // left, top, right, bottom
};

// torchvision.transforms.v2.RandomZoomOut's make_params, torch.rand as 24 random bits in a float32.
RefZoom torchvision_zoom_out(Draws& d, int orig_w, int orig_h, double lo, double hi) {
  auto rand = [&] { return static_cast<float>(d.next_u32() >> 8) / 16777216.0f; };
  const float r = static_cast<float>(lo) + rand() * static_cast<float>(hi - lo);
  const int canvas_width = static_cast<int>(static_cast<float>(orig_w) * r);
  const int canvas_height = static_cast<int>(static_cast<float>(orig_h) * r);
  const float r0 = rand(), r1 = rand();
  const int left = static_cast<int>(static_cast<float>(canvas_width - orig_w) * r0);
  const int top = static_cast<int>(static_cast<float>(canvas_height - orig_h) * r1);
  const int right = canvas_width - (left + orig_w);
  const int bottom = canvas_height - (top + orig_h);
  return {r, {left, top, right, bottom}};
}

TEST(ZoomOut, EqualsCopyMakeBorderWithTheDrawnSidesOnEveryType) {
  int compared = 0;
  for (DType t : testing::geometry::kTypes)
    for (const Image& im : testing::geometry::photographs(t))
      for (int k = 0; k < 3; ++k) {
        const std::string stage =
            R"({"stage": "zoom_out", "p": 1, "side_range": [1, 2.5], "fill": )" + testing::geometry::fill_json(t) + "}";
        const std::string key = "z" + std::to_string(k);
        const testing::Both b = testing::geometry::both(stage, im, key);
        const auto s = b.plan.record[0]["params"]["padding"].get<std::array<int, 4>>();
        cv::Mat theirs;
        cv::copyMakeBorder(mat(im), theirs, s[1], s[3], s[0], s[2], cv::BORDER_CONSTANT, testing::geometry::fill_scalar(t));
        EXPECT_EQ(compare(b.cpu, from_mat(theirs)).count, 0u) << dtype_name(t) << " " << key;
        ++compared;
      }
  EXPECT_EQ(compared, 27);
}

TEST(ZoomOut, TheDrawIsTorchvisionsOnTheSameStream) {
  const Pipeline p = testing::one_stage(R"({"stage": "zoom_out", "p": 1})");
  const Pipeline q = testing::one_stage(R"({"stage": "zoom_out", "p": 1, "side_range": [1.25, 1.75]})");
  for (const Shape s : {Shape{451, 300, 3, DType::U8}, Shape{1, 7, 1, DType::U8}, Shape{640, 427, 4, DType::F32}})
    for (int i = 0; i < 200; ++i) {
      const std::string key = "d" + std::to_string(i);
      for (const auto& [pipe, lo, hi] : {std::tuple<const Pipeline*, double, double>{&p, 1.0, 4.0}, {&q, 1.25, 1.75}}) {
        const nlohmann::json m = pipe->plan(5, key, 0, s).record[0]["params"];
        Draws d(keyed_stream(5, key, 0, 1));  // the only stage, at position 1; p 1 draws nothing
        const RefZoom want = torchvision_zoom_out(d, s.width, s.height, lo, hi);
        ASSERT_EQ((m.at("padding").get<std::array<int, 4>>()), want.padding) << key;
        ASSERT_EQ(m.at("side").get<double>(), static_cast<double>(want.r)) << key;
      }
    }
}

// The factor r is uniform over side_range (chi-square over 10 bins, 9 dof, 99.9% quantile 27.9),
// the image's place uniform over the free space (mean 0.5 of it), and the transform fires half the
// time by default.
TEST(ZoomOut, FactorAndPlaceAreUniformAndPDefaultsToOneHalf) {
  const Shape s{500, 400, 3, DType::U8};
  const Pipeline p = testing::one_stage(R"({"stage": "zoom_out", "p": 1})");
  std::array<int, 10> bins{};
  double fx = 0, fy = 0;
  const int n = 5000;
  for (int i = 0; i < n; ++i) {
    const nlohmann::json m = p.plan(7, "u" + std::to_string(i), 0, s).record[0]["params"];
    const double r = m.at("side");
    ASSERT_GE(r, 1.0);
    ASSERT_LT(r, 4.0);
    bins[static_cast<std::size_t>((r - 1.0) / 0.3)]++;
    const auto pad = m.at("padding").get<std::array<int, 4>>();
    const int cw = s.width + pad[0] + pad[2], ch = s.height + pad[1] + pad[3];
    ASSERT_EQ(cw, static_cast<int>(static_cast<float>(s.width) * static_cast<float>(r)));
    ASSERT_EQ(ch, static_cast<int>(static_cast<float>(s.height) * static_cast<float>(r)));
    if (cw > s.width) fx += (pad[0] + 0.5) / (cw - s.width + 1);
    if (ch > s.height) fy += (pad[1] + 0.5) / (ch - s.height + 1);
  }
  double chi = 0;
  for (int c : bins) chi += (c - n / 10.0) * (c - n / 10.0) / (n / 10.0);
  EXPECT_LT(chi, 27.9);
  // Uniform placement: the mean of the (continuity-corrected) fractions is 1/2, sd 1/sqrt(12 n).
  EXPECT_NEAR(fx / n, 0.5, 4.5 / std::sqrt(12.0 * n));
  EXPECT_NEAR(fy / n, 0.5, 4.5 / std::sqrt(12.0 * n));
  const Pipeline half = testing::one_stage(R"({"stage": "zoom_out"})");
  int fired = 0;
  for (int i = 0; i < n; ++i) fired += !half.plan(7, "h" + std::to_string(i), 0, s).record[0].value("skipped", false);
  EXPECT_NEAR(fired / double(n), 0.5, 4.5 * std::sqrt(0.25 / n));
}

TEST(ZoomOut, LabelsShiftWithTheImageAndMasksGetTheMaskFill) {
  const Pipeline p = Pipeline::parse(
      R"({"version": 1, "labels": {"mask_fill": 9}, "stages": [{"stage": "zoom_out", "p": 1, "fill": [124, 116, 104]}]})",
      "t.json");
  int checked = 0;
  for (const char* photo : {"chelsea.png", "coffee.png"}) {
    const lab::Drawn d = lab::draw_objects(sample_as(photo, DType::U8, 3), 6, 5);
    for (std::uint32_t copy = 0; copy < 4; ++copy) {
      const lab::Labelled r = lab::run_labelled(p, d, photo, copy);
      const auto s = r.plan.record[0]["params"]["padding"].get<std::array<int, 4>>();
      ASSERT_EQ(r.labels.objects.size(), d.labels.objects.size());
      EXPECT_EQ(r.counts.dropped(), 0u);
      for (std::size_t i = 0; i < r.labels.objects.size(); ++i) {
        const labels::Object& o = r.labels.objects[i];
        const labels::Box& in = *d.labels.objects[i].box;
        EXPECT_DOUBLE_EQ(o.box->x0, in.x0 + s[0]);
        EXPECT_DOUBLE_EQ(o.box->y0, in.y0 + s[1]);
        const auto found = lab::find_colour(r.image, d.colours[static_cast<std::size_t>(o.category)]);
        ASSERT_TRUE(found);
        EXPECT_GE(lab::iou(*found, *o.box), 0.99) << photo << " object " << o.category;
        ++checked;
      }
      cv::Mat want;
      cv::copyMakeBorder(mat(d.mask), want, s[1], s[3], s[0], s[2], cv::BORDER_CONSTANT, cv::Scalar(9));
      EXPECT_EQ(compare(r.mask, from_mat(want)).count, 0u);
    }
  }
  EXPECT_EQ(checked, 48);
}

TEST(ZoomOut, ParametersAreValidated) {
  testing::geometry::expect_errors_name_the_parameter({
      {R"({"stage": "zoom_out", "side_range": [0.5, 2]})", "side_range"},
      {R"({"stage": "zoom_out", "side_range": [3, 2]})", "side_range"},
  });
}

}  // namespace
}  // namespace aug::test_zoom_out
