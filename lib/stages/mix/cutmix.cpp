// cutmix: a box of a partner drawn from the run's inputs pasted over the image (torchvision's CutMix
// box); objects under the box lose what it covers, the partner's objects inside it join.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "lib/stages/mix/mix.hpp"

namespace aug {

namespace cutmix_impl {
namespace {

const Param<NumberParam> kAlpha{{.name = "alpha",
                                 .doc = "lam ~ Beta(alpha, alpha) is the share of the image kept; the box covers "
                                        "about 1 - lam of it",
                                 .default_value = 1.0,
                                 .min = Bound{0, true},
                                 .max = Bound{1000}}};
const Choice<Interp> kInterpolation = resample_interpolation_param();

const StageSpec& cutmix_spec() {
  static const StageSpec spec{
      .name = "cutmix",
      .family = "mix",
      .summary = "Paste a box of a partner drawn from the run's inputs (resized to the image); boxes of both cut by "
                 "the visibility rules (torchvision's CutMix box).",
      .notes = {"Partners are drawn by the image's key among the whole sorted input list (never the shard), so "
                "--shard, --resume, threads and devices change no byte; the manifest records the partner and box.",
                "The image's objects keep the fraction of their area the box leaves visible (min_visibility of the "
                "labels block; wholly covered ones are dropped) and their keypoints under it become hidden; the "
                "partner's objects are clipped to the box. Label maps take the partner's map in the box (the "
                "labels block's mask_fill where it has none)."},
      .params = {kAlpha, kInterpolation},
      .reads_partners = true,
      .default_p = 0.5,
      .tolerance = {.reason = "pixels are copied; the partner's resize is resize's engine"},
      .example = {{"stage", "cutmix"}, {"alpha", 1.0}},
      .cases = {R"({})", R"({"alpha": 0.3, "interpolation": "nearest"})"},
      .no_identity = "a drawn box takes the partner's pixels",
      .bench = {R"({})"},
      .arithmetic = R"md(
torchvision's CutMix box, drawn from the keyed generator: `lam ~ Beta(alpha, alpha)`, then the box's
centre `r_x = integer(0, W - 1)`, `r_y = integer(0, H - 1)`; `r = 0.5 sqrt(1 - lam)`, half sides
`int(r W)` and `int(r H)`; `x1 = max(r_x - int(r W), 0)`, `x2 = min(r_x + int(r W), W)`, the same for y.

The partner (drawn uniformly among the run's other inputs) is resized to `W x H` with resize's
engine (`interpolation`); the output is the image with `[x1, x2) x [y1, y2)` from the resized partner.
The manifest records the box and `lam` as the share of the image kept, `1 - box area / (W H)`.
)md",
      .no_import = "Albumentations has no CutMix (torchvision's CutMix imports from Python source: "
                   "the partner comes from the run's inputs, class targets are not mixed)",
      .counterpart = {.none = "a pixel copy (cv::Mat::copyTo of the box); no call to compare"},
  };
  return spec;
}

class CutmixOp final : public Op {
 public:
  CutmixOp(const Shape& in, Taken partner, mix::Rect box, double lam, double kept, Interp interp,
           std::vector<double> fill, bool centred = false)
      : Op(in, in), partner_(std::move(partner)), box_(box), lam_(lam), kept_(kept), interp_(interp),
        fill_(std::move(fill)), centred_(centred) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    copy_image(ctx, in, out);
    if (!mix::has_pixels(partner_)) {  // a partner without a label map: the fill
      mix::fill_rect(ctx, out, box_, fill_);
      return;
    }
    const mix::Source src = mix::source_pixels(ctx, in, partner_);
    const ImageRef b = mix::resampled(ctx, src.ref, in.shape.width, in.shape.height, interp_, centred_);
    mix::place(ctx, b, out, box_, box_.x, box_.y, fill_);
  }

  nlohmann::json params() const override {
    return {{"partner", partner_.rel()}, {"box", box_.json()}, {"lam", lam_}, {"kept", kept_},
            {"interpolation", interp_words().name(interp_)}};
  }

  // The image's own pixels stay where they are; the box covers some of them.
  std::vector<Motion> motions() const override {
    if (box_.w <= 0 || box_.h <= 0) return {};
    Motion m{.out_width = in_shape().width, .out_height = in_shape().height};
    m.covers.push_back({double(box_.x), double(box_.y), double(box_.x + box_.w), double(box_.y + box_.h)});
    return {std::move(m)};
  }

  std::vector<PartnerLabels> partner_labels() const override {
    if (box_.w <= 0 || box_.h <= 0) return {};
    const int W = in_shape().width, H = in_shape().height;
    return {PartnerLabels{partner_.from,
                          mix::placement(partner_.width, partner_.height, W, H, box_.x, box_.y, box_, W, H)}};
  }

  std::unique_ptr<Op> for_mask(const Shape& mask, double fill) const override {
    const std::vector<Taken> maps = mix::partner_masks({partner_}, mask);
    return std::make_unique<CutmixOp>(mask, maps[0], box_, lam_, kept_, Interp::Nearest, std::vector<double>{fill},
                                      true);
  }

 private:
  Taken partner_;
  mix::Rect box_;
  double lam_, kept_;
  Interp interp_;
  std::vector<double> fill_;
  bool centred_;
};

class Cutmix final : public Stage {
 public:
  explicit Cutmix(const StageConfig& c) : alpha_(c.get(kAlpha).lo), interp_(c.get(kInterpolation)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override { return resolve_seeing(d, in, DrawInputs{}); }

  std::unique_ptr<Op> resolve_seeing(Draws& d, const Shape& in, const DrawInputs& seen) const override {
    std::vector<Taken> partner = draw_partners(d, seen, 1, in);
    const double lam = mix::beta_draw(d, alpha_);
    const int W = in.width, H = in.height;
    const int rx = static_cast<int>(d.integer(0, W - 1)), ry = static_cast<int>(d.integer(0, H - 1));
    const double r = 0.5 * std::sqrt(1.0 - lam);
    const int hw = static_cast<int>(r * W), hh = static_cast<int>(r * H);
    const int x1 = std::max(rx - hw, 0), x2 = std::min(rx + hw, W);
    const int y1 = std::max(ry - hh, 0), y2 = std::min(ry + hh, H);
    const mix::Rect box{x1, y1, x2 - x1, y2 - y1};
    const double kept = 1.0 - static_cast<double>(box.w) * box.h / (static_cast<double>(W) * H);
    return std::make_unique<CutmixOp>(in, std::move(partner[0]), box, lam, kept, interp_.sample(d),
                                      std::vector<double>{0.0});
  }

 private:
  double alpha_;
  Drawn<Interp> interp_;
};

}  // namespace
}  // namespace cutmix_impl

StageType cutmix_stage() { return stage_type<cutmix_impl::Cutmix>(&cutmix_impl::cutmix_spec); }

}  // namespace aug
