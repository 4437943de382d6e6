// xy_masking: Albumentations' XYMasking, full-height and full-width stripes set to a fill
// (docs/stages/noise.md#xy_masking).
#include <algorithm>
#include <functional>

#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "lib/stages/noise/fill_op.hpp"

namespace aug {

namespace xy_masking_impl {
namespace {

Param<IntPair> count_param(const char* name, const char* what) {
  return Param<IntPair>({.name = name,
                         .doc = std::string("how many ") + what + " stripes per image, [lo, hi] drawn uniformly "
                                "(inclusive), or one number (Albumentations reads a number n as [0, n])",
                         .default_value = {0, 0},
                         .min = Bound{0},
                         .max = Bound{10000},
                         .ordered = true,
                         .elements = "[lo, hi]"});
}
Param<IntPair> length_param(const char* name, const char* side) {
  return Param<IntPair>({.name = name,
                         .doc = std::string("each stripe's ") + side + " in pixels, [lo, hi] drawn uniformly (inclusive)",
                         .default_value = {0, 0},
                         .min = Bound{0},
                         .max = Bound{1 << 20},
                         .ordered = true,
                         .elements = "[lo, hi]"});
}
const Param<IntPair> kNumMasksX = count_param("num_masks_x", "vertical (full-height, placed along x)");
const Param<IntPair> kNumMasksY = count_param("num_masks_y", "horizontal (full-width, placed along y)");
const Param<IntPair> kMaskXLength = length_param("mask_x_length", "width (x stripes)");
const Param<IntPair> kMaskYLength = length_param("mask_y_length", "height (y stripes)");
const Param<std::vector<double>> kFill{{.name = "fill",
                                        .doc = "the value of the masked pixels: one number or one per colour channel, "
                                               "fractions of the sample range (1 is white)",
                                        .default_value = 0.0,
                                        .min = Bound{0},
                                        .max = Bound{1}}};

const StageSpec& xy_masking_spec() {
  static const StageSpec spec{
      .name = "xy_masking",
      .family = "noise",
      .summary = "Mask full-height stripes along x and full-width stripes along y with a fill (Albumentations "
                 "XYMasking, for spectrograms and time series).",
      .notes = {"As Albumentations' XYMasking, with the stage's draws: the x stripes first (their count from "
                "num_masks_x, then for each its width from mask_x_length and its left column uniform in [0, W - "
                "width]), then the y stripes alike. A stripe wider than the image is refused, as Albumentations "
                "refuses a mask length beyond the image. The manifest records each stripe as [x, y, w, h].",
                "fill is a fraction of the sample range (Albumentations takes the image's units); 8/16-bit fills are "
                "RNE(fill max). Alpha is left alone. Albumentations' default p is 0.5, this stage's too."},
      .params = {kNumMasksX, kNumMasksY, kMaskXLength, kMaskYLength, kFill},
      .default_p = 0.5,
      .tolerance = {.reason = "values are copied or set to a fill computed on the host"},
      .example = {{"stage", "xy_masking"}, {"num_masks_x", {1, 3}}, {"mask_x_length", {5, 20}}, {"p", 0.5}},
      .cases = {R"({"num_masks_x": [1, 3], "mask_x_length": [1, 5]})",
                R"({"num_masks_x": 2, "num_masks_y": [0, 4], "mask_x_length": 1, "mask_y_length": [0, 1], "fill": [1, 0.5, 0.25]})"},
      .identity = R"({})",
      .bench = {R"({"num_masks_x": [1, 3], "num_masks_y": [1, 3], "mask_x_length": [20, 60], "mask_y_length": [20, 60]})"},
      .arithmetic = R"md(
Albumentations' **XYMasking** (2.x; default `p` 0.5; every count and length 0), with the stage's
draws: `_generate_masks` for x, then for y. A number `n` for a count or a length is `[0, n]` in
Albumentations (its `to_tuple(n, 0)`); the importer writes that range.

- **x stripes**: `n = integer(num_masks_x)`; each: `w = integer(mask_x_length)`,
  `x = integer(0, W - w)`; the stripe is `[x, x + w) x [0, H)`.
- **y stripes**: likewise with `num_masks_y`, `mask_y_length` and `H`: `[0, W) x [y, y + h)`.
- A length range reaching past the image's side is an input error (Albumentations raises).
- **Fill**: as coarse_dropout's (`kernels/noise/fill_rects`); the manifest records `rects`.
)md",
      .imports = {
          {.name = "XYMasking",
           .how = "num_masks_x, num_masks_y, mask_x_length, mask_y_length (a number n is [0, n], as Albumentations' "
                  "to_tuple(n, 0)); fill (2.x) or fill_value (1.x) in pixels becomes a fraction of 255; fill_mask / "
                  "mask_fill_value is the labels block's mask fill",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "xy_masking"}};
            for (const char* key : {"num_masks_x", "num_masks_y", "mask_x_length", "mask_y_length"})
              if (t.has(key)) {
                const auto [lo, hi] = t.limit(key, {0, 0}, false);
                s[key] = ispan(lo, hi);
              }
            import_fill_in_pixels(t, s, t.first_of({"fill", "fill_value"}));
            t.mask_fill();
            return s;
          },
           .python = {{"XYMasking",
                       "num_masks_x num_masks_y mask_x_length mask_y_length fill_value mask_fill_value always_apply p",
                       "num_masks_x num_masks_y mask_x_length mask_y_length fill fill_mask p", 0.5}}}},
      .counterpart = {.call = "cv::Mat::copyTo, then cv::Mat::setTo per rectangle",
                      .how = "the resolved stripes and constant value",
                      .make = fill_rects_counterpart},
  };
  return spec;
}

class XYMasking final : public Stage {
 public:
  explicit XYMasking(const StageConfig& c)
      : counts_{c.get(kNumMasksX), c.get(kNumMasksY)}, lengths_{c.get(kMaskXLength), c.get(kMaskYLength)},
        fill_(c.get(kFill)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    std::vector<Rect> rects;
    for (int axis = 0; axis < 2; ++axis) {
      const int side = axis == 0 ? in.width : in.height;
      if (lengths_[axis][1] > side)
        throw InputError(std::string(axis == 0 ? "mask_x_length" : "mask_y_length") + " reaches " +
                         std::to_string(lengths_[axis][1]) + " pixels, past the image's " +
                         (axis == 0 ? "width " : "height ") + std::to_string(side));
      const std::int64_t n = d.integer(counts_[axis][0], counts_[axis][1]);
      for (std::int64_t k = 0; k < n; ++k) {
        const auto len = static_cast<int>(d.integer(lengths_[axis][0], lengths_[axis][1]));
        const auto at = static_cast<int>(d.integer(0, side - len));
        if (axis == 0) rects.push_back({at, 0, at + len, in.height});
        else rects.push_back({0, at, in.width, at + len});
      }
    }
    return std::make_unique<FillRectsOp>(in, std::move(rects), fill_, false, d.stream());
  }

 private:
  IntPair counts_[2], lengths_[2];
  std::vector<double> fill_;
};

}  // namespace
}  // namespace xy_masking_impl

StageType xy_masking_stage() { return stage_type<xy_masking_impl::XYMasking>(&xy_masking_impl::xy_masking_spec); }

}  // namespace aug
