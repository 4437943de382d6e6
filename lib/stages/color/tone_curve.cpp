// tone_curve: Albumentations' RandomToneCurve, a cubic Bezier tone curve through (0, 0) and (1, 1)
// with drawn control points, through tables (docs/stages/color.md#tone_curve).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/color/tone_curve.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/noise/normal_table.hpp"  // normal_quantile
#include "lib/stages/stage.hpp"

namespace aug {

namespace tone_curve_impl {
namespace {

const Param<NumberParam> kScale{{.name = "scale",
                                 .doc = "the standard deviation of the control points' normal draws around 0.25 "
                                        "and 0.75",
                                 .default_value = 0.1,
                                 .min = Bound{0},
                                 .max = Bound{1}}};
const Param<bool> kPerChannel{{.name = "per_channel",
                               .doc = "a curve per colour channel (each its own draws) rather than one for all",
                               .default_value = false}};

// numpy's linspace(0, 1, levels)[i] and the curve at it, in float64 as Albumentations evaluates it.
double bezier(int i, int levels, double lo, double hi) {
  const double t = i == levels - 1 ? 1.0 : static_cast<double>(i) * (1.0 / (levels - 1));
  const double u = 1.0 - t;
  return ((3.0 * (u * u)) * t * lo + (3.0 * u) * (t * t) * hi) + std::pow(t, 3.0);
}

// rint(max * B(t)) clipped, for every level of a table of max + 1 entries.
std::int64_t curve_value(std::int64_t v, std::int64_t max, double lo, double hi) {
  const std::int64_t r = k::rne(bezier(static_cast<int>(v), static_cast<int>(max + 1), lo, hi) * static_cast<double>(max));
  return std::clamp<std::int64_t>(r, 0, max);
}

const StageSpec& tone_curve_spec() {
  static const StageSpec spec{
      .name = "tone_curve",
      .family = "color",
      .summary = "A random S-shaped tone curve, a cubic Bezier through (0, 0) and (1, 1) (Albumentations "
                 "RandomToneCurve); 8-bit images equal Albumentations' table to the bit.",
      .notes = {"As Albumentations 2.x's RandomToneCurve (scale 0.1, per_channel false, p 0.5): the control points "
                "lo = clip(N(0.25, scale), 0, 1), then hi = clip(N(0.75, scale), 0, 1) (per_channel: a vector of "
                "each, one per colour channel, all lo first), then out = rint(255 B(v / 255)), "
                "B(t) = 3 (1 - t)^2 t lo + 3 (1 - t) t^2 hi + t^3, in float64 through a table of the 256 values.",
                "16-bit images take the same curve on 65536 levels (rint(65535 B(v / 65535))); float images are "
                "quantised to 8 bits as Albumentations 2.x does (rint(v * 255) clamped) and read the 8-bit table, "
                "divided by 255. Alpha is copied (Albumentations would bend it too). Albumentations 1.x (before "
                "1.4) had no per_channel and took 8-bit images only."},
      .params = {kScale, kPerChannel},
      .default_p = 0.5,
      .tolerance = {.reason = "a table built on the host, applied identically on every backend (float images read "
                              "the 8-bit table)"},
      .example = {{"stage", "tone_curve"}, {"scale", 0.1}, {"per_channel", false}, {"p", 0.5}},
      .cases = {R"({})", R"({"scale": 0.3, "per_channel": true})", R"({"scale": 0})"},
      .no_identity = "even scale 0 bends the values: the curve through 0.25 and 0.75 is 0.75 t + 0.75 t^2 - 0.5 t^3",
      .bench = {R"({})", R"({"per_channel": true})"},
      .arithmetic = R"md(
Albumentations 2.x's **RandomToneCurve** (`scale` 0.1, `per_channel` false, default `p` 0.5).

- **Draws**, in this order: `lo = clip(0.25 + scale z, 0, 1)`, then `hi = clip(0.75 + scale z', 0, 1)`
  with standard normal draws (`z = Phi^-1(u)` of a uniform draw `u`, the quantile in double, see
  [gaussian_noise](noise.md#gaussian_noise)); with `per_channel` one `lo` per colour channel, then one
  `hi` per colour channel.
- **Table**, in float64 as numpy evaluates Albumentations' expression: `t = i * (1.0 / 255)` (numpy's
  `linspace(0, 1, 256)`, the last exactly 1), `u = 1 - t`,
  `B = (((3 (u u)) t) lo + ((3 u) (t t)) hi) + pow(t, 3)`, `lut[i] = clip(rint(255 B), 0, 255)`;
  8-bit images read it (the pointwise engine). 16-bit images: the same with 65536 levels,
  `t = i * (1.0 / 65535)`, `lut[i] = clip(rint(65535 B), 0, 65535)`.
- **Float images** (Albumentations 2.x's `uint8_io`): `q = clamp(rint(v * 255), 0, 255)` (NaN 0),
  `out = (float)lut[q] / 255.f`.
- Alpha is copied: Albumentations applies the curve to every channel of the array, alpha included.
- **Checked** (`tests/stages/test_tone_curve.cpp`): every 8-bit value against the formula written
  out as numpy evaluates it, 16-bit and float images, and the draws of `lo` and `hi` against the
  clipped normal distributions (mean, variance and a Kolmogorov-Smirnov bound).
)md",
      .imports = {{.name = "RandomToneCurve",
                   .how = "scale and per_channel as they are (1.x before 1.4: one curve)",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "tone_curve"}, {"scale", t.number("scale", 0.1)}};
                     s["per_channel"] = t.flag("per_channel", false);
                     return s;
                   },
                   .python = {{"RandomToneCurve", "scale always_apply p", "scale per_channel p", 0.5}}}},
      .counterpart = {.call = "cv::LUT", .how = "the stage's table of the 256 values of each channel", .lut = true},
  };
  return spec;
}

class ToneCurveOp final : public Op {
 public:
  ToneCurveOp(const Shape& s, std::vector<double> lo, std::vector<double> hi, bool per_channel)
      : Op(s, s), lo_(std::move(lo)), hi_(std::move(hi)), per_channel_(per_channel) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    auto point = [&](int c) { return per_channel_ ? std::size_t(c) : std::size_t{0}; };
    if (in.shape.dtype != DType::F32) {
      run_table(ctx, in, out, [&](std::int64_t v, std::int64_t max, int c) {
        return curve_value(v, max, lo_[point(c)], hi_[point(c)]);
      });
      return;
    }
    const int cc = color_channels(in.shape);
    std::vector<std::uint8_t> lut(static_cast<std::size_t>(cc) * 256);
    for (int c = 0; c < cc; ++c)
      for (int v = 0; v < 256; ++v)
        lut[c * 256 + v] = static_cast<std::uint8_t>(curve_value(v, 255, lo_[point(c)], hi_[point(c)]));
    k::tone_curve_float(in.view<const float>(), out.view<float>(), ctx.table(lut), cc, ctx.exec());
  }

  nlohmann::json params() const override {
    if (per_channel_) return {{"low_y", lo_}, {"high_y", hi_}};
    return {{"low_y", lo_.at(0)}, {"high_y", hi_.at(0)}};
  }

 private:
  std::vector<double> lo_, hi_;
  bool per_channel_;
};

class ToneCurve final : public Stage {
 public:
  explicit ToneCurve(const StageConfig& c) : scale_(c.get(kScale).lo), per_channel_(c.get(kPerChannel)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int n = per_channel_ ? color_channels(in) : 1;
    auto normal = [&](double mean) {
      double u = d.uniform();
      if (u <= 0.0) u = 0x1p-54;  // Phi^-1(0) is -inf; the smallest draw above it
      return std::clamp(mean + scale_ * normal_quantile(u), 0.0, 1.0);
    };
    std::vector<double> lo(n), hi(n);
    for (double& v : lo) v = normal(0.25);
    for (double& v : hi) v = normal(0.75);
    return std::make_unique<ToneCurveOp>(in, std::move(lo), std::move(hi), per_channel_);
  }

 private:
  double scale_;
  bool per_channel_;
};

}  // namespace
}  // namespace tone_curve_impl

StageType tone_curve_stage() { return stage_type<tone_curve_impl::ToneCurve>(&tone_curve_impl::tone_curve_spec); }

}  // namespace aug
