// grayscale: torchvision's rgb_to_grayscale (Grayscale / RandomGrayscale), keeping the channel count.
#include "kernels/color/grayscale.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace {

const StageSpec& grayscale_spec() {
  static const StageSpec spec{
      .name = "grayscale",
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

StageType grayscale_stage() { return stage_type<Grayscale>(&grayscale_spec); }

}  // namespace aug
