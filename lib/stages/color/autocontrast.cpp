// autocontrast: torchvision's autocontrast (RandomAutocontrast), per channel min/max stretch.
#include "kernels/color/autocontrast.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace autocontrast_impl {
namespace {

const StageSpec& autocontrast_spec() {
  static const StageSpec spec{
      .name = "autocontrast",
      .family = "color",
      .summary = "Stretch each colour channel so that its minimum becomes 0 and its maximum the type's maximum.",
      .notes = {"As torchvision's autocontrast (v2): per channel lo = min, hi = max over the image; where hi == lo "
                "the channel is unchanged; otherwise, in binary32, s = (hi - lo) * (float)(1 / bound) and "
                "out = clamp((v - lo) / s, 0, bound) (bound = 255, 65535, or 1 for float images), truncated toward "
                "zero for integer images. 8-bit images equal torchvision's bit for bit (one IEEE division per "
                "value, as torch's CPU and CUDA kernels).",
                "The minimum and maximum are exact reductions; integer images then go through a table of every "
                "value built by a kernel from them. Alpha is left alone (torchvision takes 1 or 3 channels).",
                "torchvision's RandomAutocontrast defaults to p = 0.5, as here."},
      .default_p = 0.5,
      .tolerance = {.reason = "exact minimum and maximum, then the same binary32 operations on every backend"},
      .example = {{"stage", "autocontrast"}, {"p", 0.5}},
      .cases = {R"({})"},
      .no_identity = "every channel not already spanning the full range changes",
      .bench = {R"({})"},
      .arithmetic = R"md(
torchvision v2's colour functionals (`torchvision.transforms.v2.functional`), with torch's float32
arithmetic written out as individually rounded binary32 operations (no FMA). Alpha is copied; the colour channels are channels 0-2 (RGB order) or channel 0 of a gray image.

`kernels/color/autocontrast.*`: one thread per row finds each channel's minimum
and maximum (as binary32; exact), one thread per channel reduces the rows. Then, with `bound` = 255,
65535 or 1 (float) and `inv = (float)(1.0 / bound)`: where `hi == lo`, `m = 0, s = 1`, else
`m = lo, s = (hi - lo) * inv`; `r = clamp((v - m) / s, 0, bound)` (an IEEE division, as torch's
`div_`); integer images `out = (T)r`, truncated, through a table of every value built by a kernel;
float images `out = r`. NaN samples are skipped by the minimum and maximum. Exactly torchvision v2's
`autocontrast_image` for uint8.
)md",
      .no_import = "a torchvision transform (RandomAutocontrast); `augment import` reads Albumentations "
                   "pipelines, and none of their transforms is translated into it",
      .counterpart = {.none = "no single OpenCV call: cv::normalize (NORM_MINMAX) rounds where torchvision truncates"},
  };
  return spec;
}

class AutocontrastOp final : public Op {
 public:
  explicit AutocontrastOp(const Shape& s) : Op(s, s) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const int cc = color_channels(in.shape);
    with_views(in, out, [&](auto src, auto dst) { k::autocontrast(src, dst, cc, ctx, ctx.exec()); });
  }
  nlohmann::json params() const override { return nlohmann::json::object(); }
};

class Autocontrast final : public Stage {
 public:
  explicit Autocontrast(const StageConfig&) {}
  std::unique_ptr<Op> resolve(Draws&, const Shape& in) const override {
    return std::make_unique<AutocontrastOp>(in);
  }
};

}  // namespace
}  // namespace autocontrast_impl

StageType autocontrast_stage() { return stage_type<autocontrast_impl::Autocontrast>(&autocontrast_impl::autocontrast_spec); }

}  // namespace aug
