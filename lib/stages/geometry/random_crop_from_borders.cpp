// random_crop_from_borders: Albumentations' RandomCropFromBorders (a drawn strip cut from each border;
// the output size varies).
#include <algorithm>
#include <cstring>
#include <functional>

#include <opencv2/core.hpp>

#include "kernels/geometry/crop.hpp"
#include "lib/stages/geometry/window_op.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace random_crop_from_borders_impl {
namespace {

Param<NumberParam> border_fraction(const char* name, const char* side) {
  return Param<NumberParam>({.name = name,
                             .doc = std::string("largest fraction of the ") + side + " cut off (drawn per image)",
                             .default_value = 0.1,
                             .min = Bound{0},
                             .max = Bound{1}});
}
const Param<NumberParam> kCropLeft = border_fraction("crop_left", "width cut from the left:");
const Param<NumberParam> kCropRight = border_fraction("crop_right", "width cut from the right:");
const Param<NumberParam> kCropTop = border_fraction("crop_top", "height cut from the top:");
const Param<NumberParam> kCropBottom = border_fraction("crop_bottom", "height cut from the bottom:");

const StageSpec& random_crop_from_borders_spec() {
  static const StageSpec spec{
      .name = "random_crop_from_borders",
      .family = "geometry",
      .summary = "Cut a random strip, up to a fraction of the size, from each of the four borders, without resizing "
                 "(Albumentations RandomCropFromBorders); the output size varies.",
      .notes = {"As Albumentations (1.x and 2.x, the same draws): x_min = integer(0, int(crop_left * W)), then x_max "
                "= integer(max(x_min + 1, int((1 - crop_right) * W)), W), likewise y with crop_top and crop_bottom; "
                "the output is the window [x_min, x_max) x [y_min, y_max). Albumentations refuses crop_left + "
                "crop_right (or crop_top + crop_bottom) above 1; here the draws stay defined (x_max > x_min always).",
                "Pixels are moved, never computed; labels move with the window."},
      .params = {kCropLeft, kCropRight, kCropTop, kCropBottom},
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "random_crop_from_borders"}, {"crop_left", 0.2}, {"crop_right", 0.2}},
      .cases = {R"({})",
                R"({"crop_left": 0.5, "crop_right": 0.5, "crop_top": 0, "crop_bottom": 1})",
                R"({"crop_left": 0.3, "crop_right": 0, "crop_top": 0.05, "crop_bottom": 0.4})"},
      .identity = R"({"crop_left": 0, "crop_right": 0, "crop_top": 0, "crop_bottom": 0})",
      .bench = {R"({})", R"({"crop_left": 0.2, "crop_right": 0.2, "crop_top": 0.2, "crop_bottom": 0.2})"},
      .arithmetic = R"md(
Albumentations' RandomCropFromBorders, the same in 1.x and 2.x. Four integers are drawn, each
uniformly with both ends included (Python's `randint`), the fractions multiplied in double and
truncated:

- `x_min = integer(0, min(int(crop_left * W), W - 1))`
- `x_max = integer(max(x_min + 1, int((1 - crop_right) * W)), W)`
- `y_min = integer(0, min(int(crop_top * H), H - 1))`
- `y_max = integer(max(y_min + 1, int((1 - crop_bottom) * H)), H)`

and the output is `out(x, y) = in(x + x_min, y + y_min)`, `(x_max - x_min) x (y_max - y_min)`
pixels (the `W - 1` bound only matters for `crop_left = 1`, where Albumentations' second draw
would have an empty range). Pixels are moved, never computed: exact for every type. The CPU
backend copies one `memcpy` per row; the kernels are [crop](#crop)'s. Boxes, points, polygons and
masks move with the window, as crop's do.
)md",
      .imports = {{.name = "RandomCropFromBorders",
                   .how = "crop_left, crop_right, crop_top, crop_bottom",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "random_crop_from_borders"}};
                     for (const char* k : {"crop_left", "crop_right", "crop_top", "crop_bottom"})
                       s[k] = t.number(k, 0.1);
                     return s;
                   },
                   .python = {
                       {"RandomCropFromBorders",
                        "crop_left crop_right crop_top crop_bottom always_apply p",
                        "crop_left crop_right crop_top crop_bottom p",
                        1.0}}}},
      .counterpart = {.call = "cv::Mat::copyTo of the ROI",
                      .how = "the resolved window",
                      .make = window_copy_counterpart},
  };
  return spec;
}

// [lo, hi) along one axis of length n, Albumentations' two draws.
std::pair<int, int> border_span(Draws& d, int n, double cut_lo, double cut_hi) {
  const auto lo_end = std::min<std::int64_t>(static_cast<std::int64_t>(cut_lo * n), n - 1);
  const std::int64_t lo = d.integer(0, lo_end);
  const std::int64_t hi = d.integer(std::max<std::int64_t>(lo + 1, static_cast<std::int64_t>((1 - cut_hi) * n)), n);
  return {static_cast<int>(lo), static_cast<int>(hi)};
}

class RandomCropFromBorders final : public Stage {
 public:
  explicit RandomCropFromBorders(const StageConfig& c)
      : left_(c.get(kCropLeft).lo), right_(c.get(kCropRight).lo), top_(c.get(kCropTop).lo), bottom_(c.get(kCropBottom).lo) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const auto [x0, x1] = border_span(d, in.width, left_, right_);
    const auto [y0, y1] = border_span(d, in.height, top_, bottom_);
    return std::make_unique<WindowOp>(in, x0, y0, x1 - x0, y1 - y0);
  }

 private:
  double left_, right_, top_, bottom_;
};

}  // namespace
}  // namespace random_crop_from_borders_impl

StageType random_crop_from_borders_stage() {
  return stage_type<random_crop_from_borders_impl::RandomCropFromBorders>(
      &random_crop_from_borders_impl::random_crop_from_borders_spec);
}

}  // namespace aug
