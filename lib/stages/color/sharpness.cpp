// sharpness: torchvision's adjust_sharpness / RandomAdjustSharpness, with a fixed factor or a range.
#include "kernels/color/sharpness.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace {

const Param<NumberParam> kFactor({.name = "factor",
                                  .doc = "sharpness factor: 0 gives the blurred image, 1 the original, 2 twice as "
                                         "sharp; a number, or [lo, hi] drawn per image",
                                  .random = true,
                                  .min = Bound{0}});

const StageSpec& sharpness_spec() {
  static const StageSpec spec{
      .name = "sharpness",
      .summary = "Sharpen or blur by blending with a 3x3 smoothed image (torchvision's adjust_sharpness).",
      .notes = {"As torchvision's RandomAdjustSharpness (transforms.v2 arithmetic): the degenerate image is the "
                "kernel [[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13 on the interior pixels, rounded for integer images; "
                "the output is x + (1 - factor) * (degenerate - x) in binary32, clamped and truncated to the sample "
                "type; the one-pixel border keeps its values (float images: clamped to [0, 1]); images of width or "
                "height <= 2 are copied. Alpha is copied.",
                "torchvision's factor is fixed; here it may also be a range drawn per image. torchvision's default "
                "p is 0.5, and so is this stage's. torchvision's add_(alpha=...) may fuse the product and the sum "
                "on some CPUs, which can move a truncated value by 1 in rare cases; the v1 transform blends as "
                "f * x + (1 - f) * degenerate instead (docs/arithmetic.md)."},
      .params = {kFactor},
      .default_p = 0.5,
      .tolerance = {.reason = "integer images: an exact integer degenerate and the same binary32 blend everywhere; "
                              "float images: the same binary32 operations in the same order (no FMA)"},
      .example = {{"stage", "sharpness"}, {"factor", 2.0}, {"p", 0.5}},
      .cases = {R"({"factor": 2.0})", R"({"factor": 0.0})", R"({"factor": [0.3, 4.0]})"},
      .identity = R"({"factor": 1})",
      .bench = {R"({"factor": 2.0})"},
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

StageType sharpness_stage() { return stage_type<Sharpness>(&sharpness_spec); }

}  // namespace aug
