// gaussian_illumination: Kornia's RandomGaussianIllumination (docs/stages/color.md#gaussian_illumination).
#include <algorithm>
#include <cmath>

#include "kernels/color/gaussian_illumination.hpp"
#include "lib/stages/engines/gaussian_weights.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace gaussian_illumination_impl {
namespace {

Param<NumberParam> range_param(const char* name, const char* doc, double lo, double hi, Bound min, Bound max) {
  return Param<NumberParam>({.name = name,
          .doc = doc,
          .default_value = {lo, hi},
          .random = true,
          .min = min,
          .max = max});
}

const Param<NumberParam> kGain = range_param("gain", "strength; a number or [lo, hi]", 0.01, 0.15, Bound{0}, Bound{1});
const Param<NumberParam> kCenter =
    range_param("center", "centre as a fraction of the size; a number or [lo, hi]", 0.1, 0.9, Bound{0}, Bound{1});
const Param<NumberParam> kSigma =
    range_param("sigma", "spread as a fraction of the size; a number or [lo, hi]", 0.2, 1.0, Bound{0, true}, Bound{1});
const Param<NumberParam> kSign =
    range_param("sign", "U(sign) >= 0 brightens, < 0 darkens; a number or [lo, hi]", -1.0, 1.0, Bound{-1}, Bound{1});

const StageSpec& gaussian_illumination_spec() {
  static const StageSpec spec{
      .name = "gaussian_illumination",
      .family = "color",
      .summary = "Add (or subtract) a Gaussian spot of light (Kornia RandomGaussianIllumination).",
      .notes = {"Per image: gain, sigma_x = W * U(sigma), centre_x = round_half_even(W * U(center)), the same for y "
                "with H, and a sign (+1 when U(sign) >= 0). The pattern is the outer product of the two normalised "
                "1-D Gaussian profiles over pixel indices (shifted by +0.5 on even sizes, as Kornia), min-max "
                "normalised with 1e-6, times sign * gain, added and clamped to [0, 1]. Integer images are mapped to "
                "[0, 1] and back with round half to even; alpha is left alone.",
                "sigma must be > 0 (Kornia accepts 0 and returns NaNs)."},
      .params = {kGain, kCenter, kSigma, kSign},
      .default_p = 0.5,
      .tolerance = {.reason = "the profiles are computed once on the host; every backend does the same binary32 "
                              "operations in the same order, no FMA"},
      .example = {{"stage", "gaussian_illumination"}, {"gain", {0.01, 0.15}}, {"p", 0.5}},
      .cases = {R"({"gain": [0.05, 0.3], "sign": [-1, 1]})",
                R"({"gain": 0.5, "center": 0.3, "sigma": 0.1, "sign": 1})"},
      .identity = R"({"gain": 0})",
      .bench = {R"({})"},
      .arithmetic = R"md(
Kornia's **RandomGaussianIllumination**: an additive Gaussian spot of light; default `p` 0.5.

- **Draws**, in Kornia's order: `gain`; `sigma_x = W * U(sigma)`; `c_x = rne(W * U(center))`;
  `sigma_y = H * U(sigma)`; `c_y = rne(H * U(center))`; `sign = U(sign) >= 0 ? +1 : -1`. The centre is
  an integer pixel index; `sigma` must be > 0 (Kornia accepts 0 and returns NaNs).
- **Profiles** (`lib/stages/engines/gaussian_weights.hpp`, Kornia's `gaussian(n, sigma, mean)`), double
  over raw pixel indices, rounded once to binary32: `e_j = exp(-(j - c_x + h)^2 / (2 sigma_x^2))` with
  `h = 0.5` when `W` is even (else 0), `gx_j = e_j / sum(e)`; likewise `gy_i` with `H`. On even sizes
  the peak falls between pixels `c - 1` and `c`, as in Kornia.
- **Host constants** (binary32): `gmin = min(gy) * min(gx)`, `gmax = max(gy) * max(gx)` (rounding is
  monotonic, so these are the pattern's extremes), `denom = (gmax - gmin) + 1e-6f`,
  `sg = (float)sign * (float)gain`.
- **Per value** (binary32, in order): `N = (gy[y] * gx[x] - gmin) / denom`, `g = sg * N`,
  `out = from_unit(clamp01(to_unit(v) + g))` on each colour channel; alpha copied. The `1e-6` acts at
  the pattern's absolute scale, so `N` stays just below 1, as in Kornia. (The formulas are Kornia's;
  the values are not bitwise Kornia's, which uses binary32 `exp` and torch's generator.)
)md",
      .no_import = "a Kornia transform (RandomGaussianIllumination); Albumentations has no Gaussian spot of "
                   "light (its RandomSunFlare is sun_flare, circles on a line; RandomShadow is shadow)",
      .counterpart = {.none = "OpenCV has no call that adds a Gaussian spot of light"},
  };
  return spec;
}

class IlluminationOp final : public Op {
 public:
  IlluminationOp(const Shape& s, double gain, int sign, double cx, double cy, double sx, double sy)
      : Op(s, s), gain_(gain), sign_(sign), cx_(cx), cy_(cy), sx_(sx), sy_(sy), gx_(kornia_gaussian(s.width, sx, cx)),
        gy_(kornia_gaussian(s.height, sy, cy)) {
    // Rounding is monotonic, so the pattern's extremes are the products of the profiles' extremes.
    const auto [xmin, xmax] = std::minmax_element(gx_.begin(), gx_.end());
    const auto [ymin, ymax] = std::minmax_element(gy_.begin(), gy_.end());
    args_.gmin = *ymin * *xmin;
    const float gmax = *ymax * *xmax;
    args_.denom = (gmax - args_.gmin) + 1e-6f;
    args_.signed_gain = static_cast<float>(sign) * static_cast<float>(gain);
    args_.color_channels = s.channels == 4 ? 3 : s.channels;
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::IlluminationArgs a = args_;
    a.gx = ctx.table(gx_);
    a.gy = ctx.table(gy_);
    with_views(in, out, [&](auto src, auto dst) { k::illumination(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{kGain.name, gain_}, {kSign.name, sign_}, {kCenter.name, {cx_, cy_}}, {kSigma.name, {sx_, sy_}}};
  }

 private:
  double gain_;
  int sign_;
  double cx_, cy_, sx_, sy_;
  std::vector<float> gx_, gy_;
  k::IlluminationArgs args_;
};

class GaussianIllumination final : public Stage {
 public:
  explicit GaussianIllumination(const StageConfig& c)
      : gain_(c.get(kGain)), center_(c.get(kCenter)), sigma_(c.get(kSigma)), sign_(c.get(kSign)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double gain = gain_.sample(d);
    const double sx = in.width * sigma_.sample(d);
    const double cx = std::nearbyint(in.width * center_.sample(d));
    const double sy = in.height * sigma_.sample(d);
    const double cy = std::nearbyint(in.height * center_.sample(d));
    const int sign = sign_.sample(d) >= 0 ? 1 : -1;
    return std::make_unique<IlluminationOp>(in, gain, sign, cx, cy, sx, sy);
  }

 private:
  NumberParam gain_, center_, sigma_, sign_;
};

}  // namespace
}  // namespace gaussian_illumination_impl

StageType gaussian_illumination_stage() { return stage_type<gaussian_illumination_impl::GaussianIllumination>(&gaussian_illumination_impl::gaussian_illumination_spec); }

}  // namespace aug
