// zoom_out: torchvision's RandomZoomOut (transforms.v2): the image placed at a random position on a
// canvas a drawn factor larger, the rest filled with a constant.
#include <array>
#include <functional>

#include <opencv2/core.hpp>

#include "lib/stages/geometry/padding.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace zoom_out_impl {
namespace {

const Param<NumberPair> kSideRange{{.name = "side_range",
                                    .doc = "the canvas side, as a multiple of the image's (one factor drawn per image "
                                           "for both sides)",
                                    .default_value = nlohmann::json::array({1.0, 4.0}),
                                    .min = Bound{1},
                                    .max = Bound{64},
                                    .ordered = true,
                                    .elements = "[lo, hi]"}};
const Param<std::vector<double>> kFill = fill_param();

const StageSpec& zoom_out_spec() {
  static const StageSpec spec{
      .name = "zoom_out",
      .family = "geometry",
      .summary = "Place the image at a random position on a canvas a drawn factor (1 to 4) larger, filled with a "
                 "constant (torchvision transforms.v2 RandomZoomOut, the SSD zoom-out).",
      .notes = {"As torchvision's RandomZoomOut: r = side_range[0] + u (side_range[1] - side_range[0]); the canvas is "
                "int(W r) x int(H r); the image's left and top are int((canvas width - W) u) and int((canvas height "
                "- H) u), each u drawn on its own; the rest is fill. p defaults to 0.5, as torchvision's.",
                "Labels are shifted with the image and masks are padded with the labels block's mask_fill, as "
                "pad's constant border. The draw does not read the labels.",
                "Albumentations has no such transform (its Pad and PadIfNeeded pad by given amounts)."},
      .params = {kSideRange, kFill},
      .default_p = 0.5,
      .tolerance = {.reason = "pixels are moved or set to the fill, never computed"},
      .example = {{"stage", "zoom_out"}, {"side_range", {1.0, 2.0}}, {"fill", {124, 116, 104}}},
      .cases = {R"({})", R"({"side_range": [1.5, 3], "fill": [10, 200, 30, 128]})",
                R"({"side_range": [1, 1.2], "fill": 0.5})"},
      .identity = R"({"side_range": [1, 1]})",
      .bench = {R"({})", R"({"side_range": [1, 2]})"},
      .arithmetic = R"md(
torchvision's RandomZoomOut (transforms.v2), drawn from the keyed generator in the same order and
with the same float32 arithmetic: `u` is one float32 uniform in [0, 1) with 24 bits (as
`torch.rand`), products are float32 and `int` truncates.

- `r = side_range[0] + u (side_range[1] - side_range[0])`; the canvas is `cw = int(W r)` by
  `ch = int(H r)`;
- `left = int((cw - W) u)`, then `top = int((ch - H) u)`; right and bottom take the rest.

The output is [pad](#pad) with these sides and border constant: `out(x, y) = in(x - left, y - top)`
inside the image, `fill` (per channel, saturated as pad's) elsewhere; equal to
`cv::copyMakeBorder(top, bottom, left, right, BORDER_CONSTANT, fill)`, which the CPU backend calls;
the kernels are pad's window. Labels move by `x' = x + left`, `y' = y + top`; masks are padded with
the labels block's `mask_fill`. The manifest records `r` as `side`, the sides as `padding`.
)md",
      .no_import = "torchvision's RandomZoomOut (transforms.v2; fill, side_range, p, the same names here); "
                   "Albumentations has no such transform",
      .counterpart = {.call = "cv::copyMakeBorder",
                      .how = "the resolved padding (left, top, right, bottom), BORDER_CONSTANT",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const auto s = m.at("padding").get<std::array<int, 4>>();
                        return [&dst, src, s] {
                          cv::copyMakeBorder(src, dst, s[1], s[3], s[0], s[2], cv::BORDER_CONSTANT, cv::Scalar());
                        };
                      }},
  };
  return spec;
}

// pad's Op with the drawn factor in the manifest.
class ZoomOutOp final : public Op {
 public:
  ZoomOutOp(const Shape& in, double side, const Sides& s, const std::vector<double>& fill)
      : Op(in, Shape{in.width + s[0] + s[2], in.height + s[1] + s[3], in.channels, in.dtype}),
        side_(side),
        sides_(s),
        pad_(pad_op(in, s, Border::Constant, fill)) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override { pad_->run(ctx, in, out); }
  nlohmann::json params() const override {
    return {{"side", side_}, {"padding", sides_json(sides_)}, {"border", "constant"}};
  }
  std::optional<Motion> motion() const override { return pad_->motion(); }
  std::unique_ptr<Op> for_mask(const Shape& mask, double fill) const override { return pad_->for_mask(mask, fill); }

 private:
  double side_;
  Sides sides_;
  std::unique_ptr<Op> pad_;
};

// One float32 uniform in [0, 1) with 24 bits, as torch.rand.
float zoom_uniform(Draws& d) { return static_cast<float>(d.next_u32() >> 8) * (1.0f / 16777216.0f); }

class ZoomOut final : public Stage {
 public:
  explicit ZoomOut(const StageConfig& c) : range_(c.get(kSideRange)), fill_(c.get(kFill)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const float span = static_cast<float>(range_[1] - range_[0]);
    const float t = zoom_uniform(d) * span;
    const float r = static_cast<float>(range_[0]) + t;
    const int cw = static_cast<int>(static_cast<float>(in.width) * r);
    const int ch = static_cast<int>(static_cast<float>(in.height) * r);
    const float u0 = zoom_uniform(d), u1 = zoom_uniform(d);
    const int left = static_cast<int>(static_cast<float>(cw - in.width) * u0);
    const int top = static_cast<int>(static_cast<float>(ch - in.height) * u1);
    return std::make_unique<ZoomOutOp>(in, r, Sides{left, top, cw - in.width - left, ch - in.height - top}, fill_);
  }

 private:
  NumberPair range_;
  std::vector<double> fill_;
};

}  // namespace
}  // namespace zoom_out_impl

StageType zoom_out_stage() { return stage_type<zoom_out_impl::ZoomOut>(&zoom_out_impl::zoom_out_spec); }

}  // namespace aug
