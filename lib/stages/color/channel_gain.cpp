// channel_gain: multiply R, G and B by their own gains, saturating.
#include <cmath>

#include "kernels/color/channel_gain.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace channel_gain_impl {
namespace {

Param<NumberParam> gain_param(const char* name, const char* doc) {
  return Param<NumberParam>({.name = name,
          .doc = doc,
          .default_value = 1.0,
          .random = true,
          .min = Bound{0},
          .max = Bound{10}});
}

const Param<NumberParam> kR = gain_param("r", "red gain"), kG = gain_param("g", "green gain"),
                         kB = gain_param("b", "blue gain");

const StageSpec& channel_gain_spec() {
  static const StageSpec spec{
      .name = "channel_gain",
      .family = "color",
      .summary = "Multiply the red, green and blue channels by their gains, saturating at the sample range.",
      .notes = {"Integer images: out = (in * RNE(gain * 65536) + 32768) >> 16, clamped to the type's range; "
                "float images: in * gain clamped to [0, 1]. Alpha is left alone.",
                "A grayscale image is multiplied by 0.299 r + 0.587 g + 0.114 b, the gain the three would "
                "give a neutral grey's luminance (BT.601 weights)."},
      .params = {kR, kG, kB},
      .tolerance = {.reason = "integer images: the same integer formula on every backend; float images: one "
                              "IEEE multiply and a clamp"},
      .example = {{"stage", "channel_gain"}, {"r", 1.1}, {"g", 1.0}, {"b", 0.85}},
      .cases = {R"({"r": 1.3, "g": 0.7, "b": 2.2})"},
      .identity = R"({"r": 1, "g": 1, "b": 1})",
      .bench = {R"({"r": 1.1, "g": 1.0, "b": 0.85})"},
      .arithmetic = R"md(
The project's own formula, computed directly on every backend (no table). Draws `r`, `g`, `b` in that
order (each if a range). RGB(A): gains on channels 0-2, alpha gain 1. Gray: one gain, the luma
`0.299 r + 0.587 g + 0.114 b` (BT.601, double).

- **Integer**: `G_c = rne(gain_c * 65536)` in double on the host (Q16); `out = sat_T((v * G_c + 2^15) >> 16)`,
  half rounding up (gain 0.5 on 3 gives 2). The 8-bit CPU driver sums in int32
  (`255 * 655360 < 2^31`), the kernels in int64: same values.
- **Float**: `clamp01(v * (float)gain_c)`, one IEEE multiply. Alpha is copied in both cases.
)md",
      .no_import = "augment's own fixed per-channel gains (benchmark pipeline P1); Albumentations' nearest, "
                   "MultiplicativeNoise, draws its factors: it imports to multiplicative_noise",
      .counterpart = {.call = "cv::LUT", .how = "the stage's table of the 256 values of each channel", .lut = true},
  };
  return spec;
}

class GainOp final : public Op {
 public:
  GainOp(const Shape& s, double r, double g, double b) : Op(s, s), gains_{r, g, b} {
    const double luma = 0.299 * r + 0.587 * g + 0.114 * b;
    args_.color_channels = s.channels == 1 ? 1 : 3;
    for (int c = 0; c < 4; ++c) {
      const double gain = s.channels == 1 ? luma : (c < 3 ? gains_[c] : 1.0);
      args_.fixed[c] = static_cast<std::int64_t>(std::nearbyint(gain * 65536.0));
      args_.gain[c] = static_cast<float>(gain);
    }
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    with_views(in, out, [&](auto src, auto dst) { k::channel_gain(src, dst, args_, ctx.exec()); });
  }

  nlohmann::json params() const override { return {{kR.name, gains_[0]}, {kG.name, gains_[1]}, {kB.name, gains_[2]}}; }

 private:
  double gains_[3];
  k::GainArgs args_{};
};

class ChannelGain final : public Stage {
 public:
  explicit ChannelGain(const StageConfig& c) : r_(c.get(kR)), g_(c.get(kG)), b_(c.get(kB)) {}
  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double r = r_.sample(d), g = g_.sample(d), b = b_.sample(d);
    return std::make_unique<GainOp>(in, r, g, b);
  }

 private:
  NumberParam r_, g_, b_;
};

}  // namespace
}  // namespace channel_gain_impl

StageType channel_gain_stage() { return stage_type<channel_gain_impl::ChannelGain>(&channel_gain_impl::channel_gain_spec); }

}  // namespace aug
