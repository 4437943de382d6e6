// grayscale: torchvision's rgb_to_grayscale (Grayscale / RandomGrayscale), keeping the channel count.
#include <functional>

#include <opencv2/imgproc.hpp>

#include "kernels/color/grayscale.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace grayscale_impl {
namespace {

const StageSpec& grayscale_spec() {
  static const StageSpec spec{
      .name = "grayscale",
      .family = "color",
      .summary = "Replace R, G and B by the luma 0.2989 R + 0.587 G + 0.114 B; the channel count is kept.",
      .notes = {"As torchvision's rgb_to_grayscale with num_output_channels equal to the input's colour channels "
                "(Grayscale(3), RandomGrayscale): l = (R * 0.2989f + G * 0.587f) + B * 0.114f in binary32, products "
                "and sums rounded one by one in this order, then truncated toward zero for 8- and 16-bit images "
                "(torch's float-to-integer cast). Every colour channel gets l; alpha is left alone; a gray image "
                "is unchanged.",
                "torch's CPU kernel for add(alpha=) may fuse the multiply-add on FMA hardware; this stage never "
                "fuses, so a value whose luma lies within one binary32 rounding of an integer can differ by 1 "
                "from such a torch build.",
                "torchvision's RandomGrayscale defaults to p = 0.1 and Grayscale always applies; here p defaults "
                "to 1."},
      .tolerance = {.reason = "the same binary32 operations in the same order, without FMA, on every backend"},
      .example = {{"stage", "grayscale"}},
      .cases = {R"({})"},
      .no_identity = "every colour image with two different channel values changes",
      .bench = {R"({})"},
      .arithmetic = R"md(
torchvision v2's colour functionals (`torchvision.transforms.v2.functional`), with torch's float32
arithmetic written out as individually rounded binary32 operations (no FMA). Alpha is copied; the colour channels are channels 0-2 (RGB order) or channel 0 of a gray image.

`kernels/color/grayscale.*`: `l = ((float)R * 0.2989f + (float)G * 0.587f) + (float)B *
0.114f` (each product rounded, then the two sums in this order); integer images `out = (T)l`, truncated
toward zero (torch's float-to-integer cast; `l <= 0.9999 max`, so no saturation); float images
`out = l`. Every colour channel gets `l` (torchvision's `num_output_channels` = 3); a gray image is
copied. The CPU backend runs the same operations in `grayscale_cpu.cpp` (8-bit RGB: sixteen pixels
at a time, bytes split by shuffles, eight binary32 lanes, truncating conversion). torch's CPU `add_(.., alpha=)` may fuse `l + alpha * g` into an FMA on AVX2 builds; where an
exact luma lies within one binary32 rounding of an integer such a build can truncate 1 lower or
higher than here. Otherwise equal to torchvision for uint8.
)md",
      .imports = {
          {.name = "ToGray",
           .how = "torchvision's luma weights (OpenCV's differ by at most 1)",
           .convert = [](const TransformReader& t) {
            if (t.has("num_output_channels") && t.saved().at("num_output_channels") != 3)
              t.fail("num_output_channels other than 3 has no stage equivalent (grayscale keeps the channel count)");
            t.note("ToGray: torchvision's luma weights; OpenCV's give values at most 1 apart");
            return ojson{{"stage", "grayscale"}};
          },
           .python = {{"ToGray", "always_apply p", "num_output_channels method p", 0.5}}}},
      .counterpart = {.call = "cv::cvtColor RGB2GRAY, then GRAY2RGB",
                      .how = "RGB and RGBA images (a gray image has nothing to convert)",
                      .make = [](const nlohmann::json&, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const int cn = src.channels();
                        if (cn < 3) return {};
                        return [&dst, src, cn] {
                          cv::Mat gray;
                          cv::cvtColor(src, gray, cn == 4 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGB2GRAY);
                          cv::cvtColor(gray, dst, cv::COLOR_GRAY2RGB);
                        };
                      }},
  };
  return spec;
}

class GrayscaleOp final : public Op {
 public:
  explicit GrayscaleOp(const Shape& s) : Op(s, s) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (in.shape.channels == 1) return copy_image(ctx, in, out);
    with_views(in, out, [&](auto src, auto dst) { k::grayscale(src, dst, ctx.exec()); });
  }
  nlohmann::json params() const override { return nlohmann::json::object(); }
};

class Grayscale final : public Stage {
 public:
  explicit Grayscale(const StageConfig&) {}
  std::unique_ptr<Op> resolve(Draws&, const Shape& in) const override { return std::make_unique<GrayscaleOp>(in); }
};

}  // namespace
}  // namespace grayscale_impl

StageType grayscale_stage() { return stage_type<grayscale_impl::Grayscale>(&grayscale_impl::grayscale_spec); }

}  // namespace aug
