// sharpness: torchvision's adjust_sharpness / RandomAdjustSharpness, with a fixed factor or a range.
#include "kernels/color/sharpness.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace sharpness_impl {
namespace {

const Param<NumberParam> kFactor({.name = "factor",
                                  .doc = "sharpness factor: 0 gives the blurred image, 1 the original, 2 twice as "
                                         "sharp; a number, or [lo, hi] drawn per image",
                                  .random = true,
                                  .min = Bound{0}});

const StageSpec& sharpness_spec() {
  static const StageSpec spec{
      .name = "sharpness",
      .family = "color",
      .summary = "Sharpen or blur by blending with a 3x3 smoothed image (torchvision's adjust_sharpness).",
      .notes = {"As torchvision's RandomAdjustSharpness (transforms.v2 arithmetic): the degenerate image is the "
                "kernel [[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13 on the interior pixels, rounded for integer images; "
                "the output is x + (1 - factor) * (degenerate - x) in binary32, clamped and truncated to the sample "
                "type; the one-pixel border keeps its values (float images: clamped to [0, 1]); images of width or "
                "height <= 2 are copied. Alpha is copied.",
                "torchvision's factor is fixed; here it may also be a range drawn per image. torchvision's default "
                "p is 0.5, and so is this stage's. torchvision's add_(alpha=...) may fuse the product and the sum "
                "on some CPUs, which can move a truncated value by 1 in rare cases; the v1 transform blends as "
                "f * x + (1 - f) * degenerate instead (docs/stages/color.md)."},
      .params = {kFactor},
      .default_p = 0.5,
      .tolerance = {.reason = "integer images: an exact integer degenerate and the same binary32 blend everywhere; "
                              "float images: the same binary32 operations in the same order (no FMA)"},
      .example = {{"stage", "sharpness"}, {"factor", 2.0}, {"p", 0.5}},
      .cases = {R"({"factor": 2.0})", R"({"factor": 0.0})", R"({"factor": [0.3, 4.0]})"},
      .identity = R"({"factor": 1})",
      .bench = {R"({"factor": 2.0})"},
      .arithmetic = R"md(
torchvision's `adjust_sharpness` (v2) / RandomAdjustSharpness (`kernels/color/sharpness.hpp`); default
`p` 0.5 as torchvision's; the factor is a number or a range drawn per image (torchvision: fixed).

- Images of width or height <= 2 are copied. Otherwise the one-pixel border keeps its values (float
  images: clamped to [0, 1], as torchvision clamps the whole output) and each interior value `x` of a
  colour channel becomes `settle(x + rest * (d - x))`, `rest = (float)(1 - factor)`, binary32, product
  rounded before the sum.
- u8/u16: `d = round((n8 + 5x) / 13)` computed exactly as `(2 (n8 + 5x) + 13) / 26` in integers (`n8` the
  sum of the 8 neighbours). torchvision convolves in binary32 with weights (float)(1/13) and
  (float)(5/13) and rounds; a multiple of 1/13 is never closer than 1/26 to a half-integer, far more than
  the binary32 error, so both give the same `d` whatever the order of the sum.
- f32: `d = sum of w * v` over the 3x3 window in row order (`acc = acc + w * v` from +0), weights
  (float)(1/13) and (float)(5/13); torch's conv2d sums in its own order, within a few ulp.
- As for color_jitter, torch's `add_(alpha=1 - f)` may fuse; torchvision's v1 transform blends as
  `f * x + (1 - f) * d` instead, which rounds differently (a truncated value may differ by 1).
)md",
      .no_import = "torchvision's adjust_sharpness (3x3 smoothing blended by a factor); Albumentations' Sharpen "
                   "and Emboss use other kernels (the sharpen and emboss stages)",
      .counterpart = {.none = "torchvision's adjust_sharpness; cv::filter2D would compute its 3x3 smoothing without the "
                              "kept border and the blend"},
  };
  return spec;
}

class SharpnessOp final : public Op {
 public:
  SharpnessOp(const Shape& s, double factor) : Op(s, s), factor_(factor) {
    args_.rest = static_cast<float>(1.0 - factor);
    args_.color_channels = color_channels(s);
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (in.shape.width <= 2 || in.shape.height <= 2) return copy_image(ctx, in, out);
    with_views(in, out, [&](auto src, auto dst) { k::sharpness(src, dst, args_, ctx.exec()); });
  }

  nlohmann::json params() const override { return {{kFactor.name, factor_}}; }

 private:
  double factor_;
  k::SharpnessArgs args_{};
};

class Sharpness final : public Stage {
 public:
  explicit Sharpness(const StageConfig& c) : factor_(c.get(kFactor)) {}
  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    return std::make_unique<SharpnessOp>(in, factor_.sample(d));
  }

 private:
  NumberParam factor_;
};

}  // namespace
}  // namespace sharpness_impl

StageType sharpness_stage() { return stage_type<sharpness_impl::Sharpness>(&sharpness_impl::sharpness_spec); }

}  // namespace aug
