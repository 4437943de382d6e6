// posterize: torchvision's posterize (RandomPosterize): keep the top `bits` bits of each value.
#include "kernels/color/levels.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace posterize_impl {
namespace {

const Param<IntegerParam> kBits{{.name = "bits",
                                 .doc = "bits kept of each value (1..8); [lo, hi] draws one per image",
                                 .random = true,
                                 .min = Bound{1},
                                 .max = Bound{8}}};

const StageSpec& posterize_spec() {
  static const StageSpec spec{
      .name = "posterize",
      .family = "color",
      .summary = "Keep the top `bits` bits of each colour value: v & ~(2^(B - bits) - 1), B the type's bits.",
      .notes = {"As torchvision's posterize: 8-bit images keep the top `bits` of 8 bits (bits = 8 leaves them "
                "unchanged), 16-bit images the top `bits` of 16 (torchvision's mask for uint16), float images "
                "become clamp(floor(v * 2^bits), 0, 2^bits - 1) / 2^bits. Integer images through a table, float "
                "images through the formula (exact in binary32). Alpha is left alone.",
                "torchvision's RandomPosterize defaults to p = 0.5, as here; `bits` has no default there and none "
                "here."},
      .params = {kBits},
      .default_p = 0.5,
      .tolerance = {.reason = "a bit mask (integer images) or a floor and a power-of-two scaling (float), exact"},
      .example = {{"stage", "posterize"}, {"bits", 4}, {"p", 0.5}},
      .cases = {R"({"bits": 1})", R"({"bits": 3})", R"({"bits": [2, 7]})"},
      .no_identity = "16-bit and float images are always quantised to 2^bits levels (8-bit images are unchanged "
                     "for bits = 8)",
      .bench = {R"({"bits": 4})"},
      .arithmetic = R"md(
torchvision v2's colour functionals (`torchvision.transforms.v2.functional`), with torch's float32
arithmetic written out as individually rounded binary32 operations (no FMA). Alpha is copied; the colour channels are channels 0-2 (RGB order) or channel 0 of a gray image.

integer images `out = v & ~(2^(B - bits) - 1)` with B = 8 or 16 (torchvision's mask:
a 16-bit image keeps the top `bits` of its 16), by table; float images
`clamp(floor(v * 2^bits), 0, 2^bits - 1) * 2^-bits` (`kernels/color/levels.*`), exact. `bits` 1..8,
or [lo, hi] drawn as an integer per image.
)md",
      .imports = {
          {.name = "Posterize",
           .how = "num_bits is bits (a number: that many; a range: drawn per image)",
           .convert = [](const TransformReader& t) {
            const nlohmann::json& v = t.saved();
            if (v.contains("num_bits") && v.at("num_bits").is_array() && v.at("num_bits").size() == 3)
              t.fail("num_bits per channel (" + v.at("num_bits").dump() +
                     ") has no equivalent: posterize keeps the same bits in every channel; give one number or one "
                     "range");
            const auto [lo, hi] = t.value_or_range("num_bits", {4, 4});
            ojson s{{"stage", "posterize"}};
            s["bits"] = ispan(lo, hi);
            return s;
          },
           .python = {{"Posterize", "num_bits always_apply p", "num_bits p", 0.5}}}},
      .counterpart = {.call = "cv::LUT", .how = "the stage's table of the 256 values of each channel", .lut = true},
  };
  return spec;
}

class PosterizeOp final : public Op {
 public:
  PosterizeOp(const Shape& s, int bits) : Op(s, s), bits_(bits) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (in.shape.dtype == DType::F32)
      return k::posterize_float(in.view<const float>(), out.view<float>(), bits_, color_channels(in.shape),
                                ctx.exec());
    const int type_bits = in.shape.dtype == DType::U8 ? 8 : 16;
    const std::int64_t mask = ~((std::int64_t{1} << (type_bits - bits_)) - 1);
    run_table(ctx, in, out, [mask](std::int64_t v, std::int64_t, int) { return v & mask; });
  }
  nlohmann::json params() const override { return {{kBits.name, bits_}}; }

 private:
  int bits_;
};

class Posterize final : public Stage {
 public:
  explicit Posterize(const StageConfig& c) : bits_(c.get(kBits)) {}
  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    return std::make_unique<PosterizeOp>(in, static_cast<int>(bits_.sample(d)));
  }

 private:
  IntegerParam bits_;
};

}  // namespace
}  // namespace posterize_impl

StageType posterize_stage() { return stage_type<posterize_impl::Posterize>(&posterize_impl::posterize_spec); }

}  // namespace aug
