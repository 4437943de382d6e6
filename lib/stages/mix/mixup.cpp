// mixup: the image blended with a partner drawn from the run's inputs, the ratio from a Beta draw;
// the labels of both (Ultralytics' MixUp).
#include <memory>
#include <string>
#include <vector>

#include "kernels/mix/blend.hpp"
#include "lib/stages/mix/mix.hpp"

namespace aug {

namespace mixup_impl {
namespace {

const Param<NumberParam> kAlpha{{.name = "alpha",
                            .doc = "the ratio r of the image is drawn from Beta(alpha, alpha); the partner gets 1 - r",
                            .default_value = 32.0,
                            .min = Bound{0, true},
                            .max = Bound{1000}}};
const Choice<Interp> kInterpolation = resample_interpolation_param();

const StageSpec& mixup_spec() {
  static const StageSpec spec{
      .name = "mixup",
      .family = "mix",
      .summary = "Blend with a partner drawn from the run's inputs (resized to the image), r from Beta(alpha, alpha); "
                 "the labels of both (Ultralytics' MixUp).",
      .notes = {"Partners are drawn by the image's key among the whole sorted input list (never the shard), so "
                "--shard, --resume, threads and devices change no byte; the manifest records the partner and r. "
                "Without other inputs the image is blended with itself.",
                "A label map cannot be blended: the image's own is kept (--masks)."},
      .params = {kAlpha, kInterpolation},
      .reads_partners = true,
      .default_p = 0.5,
      .tolerance = {.reason = "the same binary64 products and sum on every backend, truncated (8/16-bit) or rounded "
                              "to binary32 (float); the partner's resize is resize's engine"},
      .example = {{"stage", "mixup"}, {"alpha", 32.0}},
      .cases = {R"({})", R"({"alpha": 0.4, "interpolation": "bicubic"})"},
      .no_identity = "every pixel is a blend of two images",
      .bench = {R"({})"},
      .arithmetic = R"md(
Ultralytics' MixUp, drawn from the keyed generator: `r ~ Beta(alpha, alpha)` (two Gamma(alpha) draws,
Marsaglia and Tsang's method, `x / (x + y)`); the partner is drawn uniformly among the run's other
inputs and resized to the image's size with resize's engine (`interpolation`).

Per value, in binary64: `v = a r + b (1 - r)` (`a` the image, `b` the partner); 8/16-bit: `trunc(v)`
(Ultralytics' `(im * r + im2 * (1 - r)).astype(np.uint8)`), float: `v` rounded to binary32. Every
channel, alpha included. The image's labels stay; the partner's are scaled to the image and added.
)md",
      .no_import = "Albumentations has no MixUp (torchvision's MixUp imports from Python source: "
                   "the partner comes from the run's inputs, class targets are not mixed)",
      .counterpart = {.none = "cv::addWeighted rounds to nearest where Ultralytics' MixUp truncates"},
  };
  return spec;
}

class MixupOp final : public Op {
 public:
  MixupOp(const Shape& in, Taken partner, double r, Interp interp)
      : Op(in, in), partner_(std::move(partner)), r_(r), interp_(interp) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const mix::Source src = mix::source_pixels(ctx, in, partner_);
    const ImageRef b = mix::resampled(ctx, src.ref, in.shape.width, in.shape.height, interp_, false);
    const double r = r_;
    with_sample_type(in.shape.dtype, [&](auto tag) {
      using T = decltype(tag);
      k::blend(in.view<const T>(), b.view<const T>(), out.view<T>(), r, 1.0 - r, ctx.exec());
    });
  }

  nlohmann::json params() const override {
    return {{"partner", partner_.rel()}, {"ratio", r_}, {"interpolation", interp_words().name(interp_)}};
  }

  std::vector<PartnerLabels> partner_labels() const override {
    const int W = in_shape().width, H = in_shape().height;
    return {PartnerLabels{partner_.from,
                          mix::placement(partner_.width, partner_.height, W, H, 0, 0, mix::Rect{0, 0, W, H}, W, H)}};
  }

 private:
  Taken partner_;
  double r_;
  Interp interp_;
};

class Mixup final : public Stage {
 public:
  explicit Mixup(const StageConfig& c) : alpha_(c.get(kAlpha).lo), interp_(c.get(kInterpolation)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override { return resolve_seeing(d, in, DrawInputs{}); }

  std::unique_ptr<Op> resolve_seeing(Draws& d, const Shape& in, const DrawInputs& seen) const override {
    std::vector<Taken> partner = draw_partners(d, seen, 1, in);
    const double r = mix::beta_draw(d, alpha_);
    return std::make_unique<MixupOp>(in, std::move(partner[0]), r, interp_.sample(d));
  }

 private:
  double alpha_;
  Drawn<Interp> interp_;
};

}  // namespace
}  // namespace mixup_impl

StageType mixup_stage() { return stage_type<mixup_impl::Mixup>(&mixup_impl::mixup_spec); }

}  // namespace aug
