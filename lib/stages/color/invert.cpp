// invert: the negative of the image (torchvision's RandomInvert / Albumentations' InvertImg).
#include <functional>

#include <opencv2/imgproc.hpp>

#include "kernels/color/invert.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace {

const StageSpec& invert_spec() {
  static const StageSpec spec{
      .name = "invert",
      .family = "color",
      .summary = "Invert the colours: max - v (8 and 16 bits), 1 - v (float); alpha is left alone.",
      .notes = {"As torchvision's RandomInvert (uint8: 255 - v) and Albumentations' InvertImg. Integer images go "
                "through a table built on the host, float images through the formula; both are exact on every "
                "backend. torchvision's default p is 0.5; here, as for every stage, p defaults to 1."},
      .tolerance = {.reason = "one subtraction, exact in every sample type"},
      .example = {{"stage", "invert"}, {"p", 0.5}},
      .cases = {R"({})"},
      .no_identity = "no 8- or 16-bit value is its own negative (max is odd)",
      .bench = {R"({})"},
      .arithmetic = R"md(
- 8- and 16-bit: `out = max - v` (255 - v, 65535 - v; bitwise NOT) through the
  [pointwise tables](../arithmetic.md#pointwise-tables) on the devices; the CPU backend complements instead
  (`invert_cpu.cpp`: `~v`, RGBA pixels as one word XOR a mask that spares alpha). Float: `out = 1 - v`,
  one IEEE subtraction (`AUG_HD` formula).
- Alpha is untouched; exact on every backend; as torchvision's RandomInvert and Albumentations' InvertImg.
)md",
      .imports = {
          {.name = "InvertImg",
           .how = "the same negative, 255 - v on 8-bit images",
           .convert = [](const TransformReader&) { return ojson{{"stage", "invert"}}; }}},
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
    if (in.shape.dtype == DType::F32)
      return k::invert_float(in.view<const float>(), out.view<float>(), color_channels(in.shape), ctx.exec());
    if (ctx.cpu()) {  // max - v is ~v for 8- and 16-bit samples: the host driver complements, no table
      const int cc = color_channels(in.shape);
      if (in.shape.dtype == DType::U8) return k::cpu::invert_integer(in.view<const std::uint8_t>(), out.view<std::uint8_t>(), cc);
      return k::cpu::invert_integer(in.view<const std::uint16_t>(), out.view<std::uint16_t>(), cc);
    }
    run_table(ctx, in, out, [](std::int64_t v, std::int64_t max, int) { return max - v; });
  }
  nlohmann::json params() const override { return nlohmann::json::object(); }
};

class Invert final : public Stage {
 public:
  explicit Invert(const StageConfig&) {}
  std::unique_ptr<Op> resolve(Draws&, const Shape& in) const override { return std::make_unique<InvertOp>(in); }
};

}  // namespace

StageType invert_stage() { return stage_type<Invert>(&invert_spec); }

}  // namespace aug
