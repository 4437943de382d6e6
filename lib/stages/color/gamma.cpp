// gamma: torchvision's adjust_gamma, out = gain * v^gamma on the [0, 1] scale, through tables.
#include <algorithm>
#include <cmath>

#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace gamma_impl {
namespace {

const Param<NumberParam> kGamma{{.name = "gamma",
                                 .doc = "exponent (below 1 brightens, above 1 darkens); [lo, hi] draws one per image",
                                 .default_value = 1.0,
                                 .random = true,
                                 .min = Bound{0, true},
                                 .max = Bound{10}}};
const Param<NumberParam> kGain{{.name = "gain",
                                .doc = "factor applied after the power; [lo, hi] draws one per image",
                                .default_value = 1.0,
                                .random = true,
                                .min = Bound{0},
                                .max = Bound{10}}};

enum class Method { Torchvision, Albumentations };
const Words<Method> kMethods{{{Method::Torchvision, "torchvision"}, {Method::Albumentations, "albumentations"}}};
const Choice<Method> kMethod{kMethods,
                             {},
                             Method::Torchvision,
                             {.name = "method",
                              .doc = "torchvision (adjust_gamma in binary32, 8-bit scaled by 255.999) or "
                                     "albumentations (RandomGamma's double table, truncated)"}};

const StageSpec& gamma_spec() {
  static const StageSpec spec{
      .name = "gamma",
      .family = "color",
      .summary = "Gamma correction: out = gain * (v / max)^gamma on the [0, 1] scale, back to the sample type.",
      .notes = {"As torchvision's adjust_gamma, in binary32: x = (float)v * (float)(1 / max); y = x^gamma (torch's "
                "special exponents: 0.5 is sqrt, 2 is x * x, 3 is x * x * x; any other powf(x, (float)gamma)); "
                "when gain != 1, y = clamp(y * (float)gain, 0, 1); 8-bit images: out = (uint8)(y * 255.999f), truncated "
                "(torchvision's float-to-integer conversion). 16-bit images: out = RNE(y * 65535) in double "
                "(torchvision's 65535.999 is 65536 in binary32 and would raise the top 127 values of gamma 1 by one).",
                "The table of every value is built on the host with the C library's powf; torch's vectorised CPU "
                "kernel uses SLEEF's powf (within 1 ulp), so an entry whose scaled value lies within an ulp of an "
                "integer may differ by 1 from torch's.",
                "8- and 16-bit images only: a float image would need a per-pixel power, which no kernel computes "
                "(docs/stages/color.md). torchvision has no random gamma transform; Albumentations' RandomGamma "
                "draws gamma per image like [lo, hi] here.",
                "method albumentations is Albumentations' RandomGamma table: out = trunc(((v * (1.0 / max))^gamma) * "
                "max) in double (NumPy's arange(0, 256 / 255, 1 / 255) ** gamma * 255, cast to uint8), times gain "
                "before the truncation when gain is not 1."},
      .params = {kGamma, kGain, kMethod},
      .dtypes = {DType::U8, DType::U16},
      .tolerance = {.reason = "a table built on the host, applied identically on every backend"},
      .example = {{"stage", "gamma"}, {"gamma", {0.8, 1.25}}},
      .cases = {R"({"gamma": 0.5})", R"({"gamma": 2.2, "gain": 1.3})", R"({"gamma": [0.7, 1.5], "gain": [0.8, 1.2]})",
                R"({"gamma": [0.8, 1.2], "method": "albumentations"})"},
      .identity = R"({"gamma": 1, "gain": 1})",
      .bench = {R"({"gamma": 0.8})"},
      .arithmetic = R"md(
torchvision v2's colour functionals (`torchvision.transforms.v2.functional`), with torch's float32
arithmetic written out as individually rounded binary32 operations (no FMA). Alpha is copied; the colour channels are channels 0-2 (RGB order) or channel 0 of a gray image.

(8 and 16 bits only) the table on the host, in binary32: `x = (float)v * (float)(1.0 / max)`,
`y = x^gamma` with torch's special exponents (`0.5`: `sqrtf`, `2`: `x * x`, `3`: `x * x * x`), else
`powf(x, (float)gamma)`; if `gain != 1`, `y = clamp(y * (float)gain, 0, 1)` (torchvision clamps only
then); 8-bit `out = (uint8)(y * 255.999f)`, truncated (torchvision's `to_dtype(scale=True)`); 16-bit
`out = rne((double)y * 65535)`: torchvision's factor 65535.999 is 65536 in binary32 and would move
the top 127 values of gamma 1 up by one, so 16-bit images round to nearest instead. The host `powf` is glibc's; torch's vectorised CPU kernel uses SLEEF's
`powf` (1 ulp), so an entry whose scaled value lies within about an ulp of an integer can differ by
1 from torch's. Float images are not taken: no kernel computes a power per pixel.

**method albumentations** is Albumentations' `gamma_transform` table (RandomGamma, 1.x and 2.x), in
double: `x = v * (1.0 / max)` (NumPy's `arange(0, 256 / 255, 1 / 255)` holds `i * (1 / 255)`),
`out = trunc(pow(x, gamma) * max)` (`astype(np.uint8)`), with `gain` multiplied in before the
truncation and the result clamped to `[0, max]` when `gain` is not 1 (RandomGamma has no gain).
16-bit images take the same formula with 65535.
)md",
      .imports = {
          {.name = "RandomGamma",
           .how = "gamma_limit (percent) is gamma / 100; method albumentations (its double table, truncated)",
           .convert = [](const TransformReader& t) {
            const auto [lo, hi] = t.limit("gamma_limit", {80, 120}, false);
            ojson s{{"stage", "gamma"}};
            s["gamma"] = span(lo / 100.0, hi / 100.0);
            s["method"] = "albumentations";
            return s;
          },
           .python = {{"RandomGamma", "gamma_limit eps always_apply p", "gamma_limit p", 0.5}}}},
      .counterpart = {.call = "cv::LUT", .how = "the stage's table of the 256 values of each channel", .lut = true},
  };
  return spec;
}

// x^gamma as torch's pow kernel computes it for a float tensor and a scalar exponent.
float torch_pow(float x, float gamma) {
  if (gamma == 0.5f) return std::sqrt(x);
  if (gamma == 2.f) return x * x;
  if (gamma == 3.f) return x * x * x;
  return std::pow(x, gamma);
}

class GammaOp final : public Op {
 public:
  GammaOp(const Shape& s, double gamma, double gain, bool albumentations)
      : Op(s, s), gamma_(gamma), gain_(gain), albumentations_(albumentations) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (albumentations_) {
      run_table(ctx, in, out, [&](std::int64_t v, std::int64_t max, int) {
        double y = std::pow(static_cast<double>(v) * (1.0 / static_cast<double>(max)), gamma_) * static_cast<double>(max);
        if (gain_ != 1.0) y = std::clamp(y * gain_, 0.0, static_cast<double>(max));
        return static_cast<std::int64_t>(y);  // truncated, as astype(np.uint8)
      });
      return;
    }
    const float g = static_cast<float>(gamma_), gain = static_cast<float>(gain_);
    const bool scaled = gain_ != 1.0;
    run_table(ctx, in, out, [&](std::int64_t v, std::int64_t max, int) {
      const float x = static_cast<float>(v) * static_cast<float>(1.0 / static_cast<double>(max));
      float y = torch_pow(x, g);
      if (scaled) {
        y = y * gain;
        y = y < 0.f ? 0.f : (y > 1.f ? 1.f : y);
      }
      if (max == 255) return static_cast<std::int64_t>(y * static_cast<float>(255.0 + 1.0 - 1e-3));  // 255.999f
      return k::rne(static_cast<double>(y) * static_cast<double>(max));  // 16 bits: to nearest, see the notes
    });
  }
  nlohmann::json params() const override {
    nlohmann::json j{{kGamma.name, gamma_}, {kGain.name, gain_}};
    if (albumentations_) j[kMethod.name] = "albumentations";
    return j;
  }

 private:
  double gamma_, gain_;
  bool albumentations_;
};

class Gamma final : public Stage {
 public:
  explicit Gamma(const StageConfig& c)
      : gamma_(c.get(kGamma)), gain_(c.get(kGain)), albumentations_(c.get(kMethod).options[0] == Method::Albumentations) {}
  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double gamma = gamma_.sample(d), gain = gain_.sample(d);
    return std::make_unique<GammaOp>(in, gamma, gain, albumentations_);
  }

 private:
  NumberParam gamma_, gain_;
  bool albumentations_;
};

}  // namespace
}  // namespace gamma_impl

StageType gamma_stage() { return stage_type<gamma_impl::Gamma>(&gamma_impl::gamma_spec); }

}  // namespace aug
