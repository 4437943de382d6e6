// solarize: torchvision's solarize (RandomSolarize), with the threshold as a fraction of the range.
#include "kernels/color/levels.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace solarize_impl {
namespace {

const Param<NumberParam> kThreshold{{.name = "threshold",
                                     .doc = "fraction of the range at and above which values are inverted (above 1: "
                                            "none are); [lo, hi] draws one per image",
                                     .random = true,
                                     .min = Bound{0},
                                     .max = Bound{2}}};

const StageSpec& solarize_spec() {
  static const StageSpec spec{
      .name = "solarize",
      .family = "color",
      .summary = "Invert every colour value at or above threshold * max: v >= t ? max - v : v.",
      .notes = {"As torchvision's solarize with its threshold given as a fraction of the range: integer images "
                "compare (float)v >= (float)(threshold * max) (torchvision compares uint8 values with its "
                "threshold in binary32; threshold = 128/255 is torchvision's threshold 128) and write max - v; float "
                "images compare v >= (float)threshold and write 1 - v. A threshold above 1 inverts nothing. Integer "
                "images through a table, float images through the formula. Alpha is left alone.",
                "torchvision's RandomSolarize defaults to p = 0.5, as here; `threshold` has no default there and "
                "none here."},
      .params = {kThreshold},
      .default_p = 0.5,
      .tolerance = {.reason = "one comparison and one subtraction, exact in every sample type"},
      .example = {{"stage", "solarize"}, {"threshold", 0.5}, {"p", 0.5}},
      .cases = {R"({"threshold": 0.5})", R"({"threshold": 0})", R"({"threshold": [0.2, 0.9]})"},
      .identity = R"({"threshold": 2})",
      .bench = {R"({"threshold": 0.5})"},
      .arithmetic = R"md(
torchvision v2's colour functionals (`torchvision.transforms.v2.functional`), with torch's float32
arithmetic written out as individually rounded binary32 operations (no FMA). Alpha is copied; the colour channels are channels 0-2 (RGB order) or channel 0 of a gray image.

the threshold is a fraction of the range. Integer images: `t = (float)(threshold * max)`
(double product, rounded to binary32 as torch compares uint8 with a float scalar in float32), then
`(float)v >= t ? max - v : v`, by table; float images `v >= (float)threshold ? 1 - v : v`. torchvision's
`threshold=128` on uint8 is `128/255` here. Thresholds above 1 (accepted up to 2) invert nothing.
)md",
      .imports = {
          {.name = "Solarize",
           .how = "threshold in pixels becomes a fraction of 255; threshold_range as is",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "solarize"}};
            if (t.has("threshold_range")) {
              const auto [lo, hi] = t.limit("threshold_range", {0.5, 0.5}, false);
              s["threshold"] = span(lo, hi);
            } else {
              const auto [lo, hi] = t.value_or_range("threshold", {128, 128});
              s["threshold"] = span(lo / 255.0, hi / 255.0);
            }
            return s;
          },
           .python = {{"Solarize", "threshold always_apply p", "threshold_range p", 0.5}}}},
      .counterpart = {.call = "cv::LUT", .how = "the stage's table of the 256 values of each channel", .lut = true},
  };
  return spec;
}

class SolarizeOp final : public Op {
 public:
  SolarizeOp(const Shape& s, double t) : Op(s, s), threshold_(t) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (in.shape.dtype == DType::F32)
      return k::solarize_float(in.view<const float>(), out.view<float>(), static_cast<float>(threshold_),
                               color_channels(in.shape), ctx.exec());
    const double t = threshold_;
    run_table(ctx, in, out, [t](std::int64_t v, std::int64_t max, int) {
      const float level = static_cast<float>(t * static_cast<double>(max));
      return static_cast<float>(v) >= level ? max - v : v;
    });
  }
  nlohmann::json params() const override { return {{kThreshold.name, threshold_}}; }

 private:
  double threshold_;
};

class Solarize final : public Stage {
 public:
  explicit Solarize(const StageConfig& c) : threshold_(c.get(kThreshold)) {}
  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    return std::make_unique<SolarizeOp>(in, threshold_.sample(d));
  }

 private:
  NumberParam threshold_;
};

}  // namespace
}  // namespace solarize_impl

StageType solarize_stage() { return stage_type<solarize_impl::Solarize>(&solarize_impl::solarize_spec); }

}  // namespace aug
