// invert: the negative of the image (torchvision's RandomInvert / Albumentations' InvertImg).
#include <functional>

#include <opencv2/imgproc.hpp>

#include "kernels/color/invert.hpp"
#include "lib/stages/engines/pointwise.hpp"  // color_channels
#include "lib/stages/stage.hpp"

namespace aug {

namespace invert_impl {
namespace {

const StageSpec& invert_spec() {
  static const StageSpec spec{
      .name = "invert",
      .family = "color",
      .summary = "Invert the colours: max - v (8 and 16 bits), 1 - v (float); alpha is left alone.",
      .notes = {"As torchvision's RandomInvert (uint8: 255 - v) and Albumentations' InvertImg. Every backend "
                "computes the same exact formula. torchvision's default p is 0.5; here, as for every stage, p "
                "defaults to 1."},
      .tolerance = {.reason = "one subtraction, exact in every sample type"},
      .example = {{"stage", "invert"}, {"p", 0.5}},
      .cases = {R"({})"},
      .no_identity = "no 8- or 16-bit value is its own negative (max is odd)",
      .bench = {R"({})"},
      .arithmetic = R"md(
- 8- and 16-bit: `out = max - v` (255 - v, 65535 - v), an exact integer subtraction in the kernel body
  (`kernels/color/invert.cu`); on the CPU backend the entry point runs the host driver instead
  (`invert_cpu.cpp`: `max - v` is the complement `~v`, RGBA pixels as one word XOR a mask that spares
  alpha). Float: `out = 1 - v`, one IEEE subtraction.
- Alpha is untouched; exact on every backend; as torchvision's RandomInvert and Albumentations' InvertImg.
)md",
      .imports = {
          {.name = "InvertImg",
           .how = "the same negative, 255 - v on 8-bit images",
           .convert = [](const TransformReader&) { return ojson{{"stage", "invert"}}; },
           .python = {{"InvertImg", "always_apply p", "p", 0.5}}}},
      .counterpart = {.call = "cv::bitwise_not",
                      .how = "on every channel (alpha too, which the stage keeps: the same cost)",
                      .make = [](const nlohmann::json&, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        return [&dst, src] { cv::bitwise_not(src, dst); };
                      }},
  };
  return spec;
}

class InvertOp final : public Op {
 public:
  explicit InvertOp(const Shape& s) : Op(s, s) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    with_views(in, out, [&](auto src, auto dst) { k::invert(src, dst, color_channels(in.shape), ctx.exec()); });
  }
  nlohmann::json params() const override { return nlohmann::json::object(); }
};

class Invert final : public Stage {
 public:
  explicit Invert(const StageConfig&) {}
  std::unique_ptr<Op> resolve(Draws&, const Shape& in) const override { return std::make_unique<InvertOp>(in); }
};

}  // namespace
}  // namespace invert_impl

StageType invert_stage() { return stage_type<invert_impl::Invert>(&invert_impl::invert_spec); }

}  // namespace aug
