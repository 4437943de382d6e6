// gaussian_noise: torchvision v2's GaussianNoise for every sample type (docs/stages/noise.md#gaussian_noise).
#include <cmath>
#include <optional>

#include "kernels/noise/gaussian_noise.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace gaussian_noise_impl {
namespace {

const Param<NumberParam> kMean{{.name = "mean",
                                .doc = "mean of the noise, a fraction of the sample range",
                                .default_value = 0.0,
                                .random = true,
                                .min = Bound{-1},
                                .max = Bound{1}}};
const Param<NumberParam> kSigma{{.name = "sigma",
                                 .doc = "standard deviation of the noise, a fraction of the sample range",
                                 .default_value = 0.1,
                                 .random = true,
                                 .min = Bound{0},
                                 .max = Bound{10}}};
const Param<NumberParam> kVariance{{.name = "variance",
                                    .doc = "instead of sigma: the variance, a squared fraction of the sample range, "
                                           "drawn uniformly per image (sigma is its square root; Albumentations "
                                           "1.x's var_limit / 255^2)",
                                    .optional = true,
                                    .random = true,
                                    .min = Bound{0},
                                    .max = Bound{100}}};
const Param<bool> kPerChannel{{.name = "per_channel",
                               .doc = "independent noise in each colour channel (false: one value per pixel, the "
                                      "same in every colour channel)",
                               .default_value = true}};
const Param<bool> kClip{{.name = "clip",
                         .doc = "float images: clamp the result to [0, 1] (integer images always saturate)",
                         .default_value = true}};

const StageSpec& gaussian_noise_spec() {
  static const StageSpec spec{
      .name = "gaussian_noise",
      .family = "noise",
      .summary = "Add Gaussian noise N(mean, sigma^2) per pixel (torchvision v2 GaussianNoise); mean and sigma are "
                 "fractions of the sample range.",
      .notes = {"As torchvision v2's GaussianNoise (out = v + mean + sigma z, clamped to [0, 1] when clip), which "
                "takes float images only; integer images here add the same noise scaled to the range: out = "
                "sat(RNE(v + (mean + sigma z) max)), so sigma 0.1 is 25.5 levels on 8-bit images. Alpha is left alone.",
                "z comes from the keyed counter-based generator (one Philox block per pixel, sub-stream 1) through an "
                "inverse-CDF table of the standard normal built on the host in double and interpolated in binary32, "
                "so every backend draws the same noise (docs/stages/noise.md#gaussian_noise). per_channel false draws "
                "one z per pixel for all colour channels. torchvision's default p is 1 (it is no random transform); "
                "so is this stage's."},
      .params = {kMean, kSigma, kVariance, kPerChannel, kClip},
      .at_most_one_of = {{"sigma", "variance"}},
      .tolerance = {.reason = "the same generator, table and binary32 operations in the same order on every backend"},
      .example = {{"stage", "gaussian_noise"}, {"sigma", 0.05}},
      .cases = {R"({})", R"({"sigma": [0.01, 0.2], "mean": 0.05})", R"({"sigma": 0.3, "per_channel": false})",
                R"({"sigma": 0.5, "mean": -0.2, "clip": false})", R"({"variance": [0.0002, 0.0008]})"},
      .identity = R"({"mean": 0, "sigma": 0})",
      .bench = {R"({})"},
      .arithmetic = R"md(
torchvision v2's **GaussianNoise** (`v + mean + sigma z`, clamped to [0, 1] when `clip`), which
takes float images only, extended to integer images with `mean` and `sigma` as fractions of the
range (defaults 0 and 0.1; `per_channel` true, `clip` true; `p` 1 as torchvision, which has no p).
Draws `mean`, then `sigma` (each if a range).

- **Standard normal** (`kernels/noise/normal.hpp`), no libm on either side: for pixel
  `i = y*W + x`, `block(i, purpose 1)` gives four words; colour channel `c` uses word `c`
  (`per_channel` false: word 0 for every channel). Of a word `b`, `m = b >> 8` (24 bits),
  `cell = m >> 12`, `sub = m & 4095`:
  - cells 1..4094: `z = t[cell] + f * (t[cell+1] - t[cell])`, `f = (float)sub * 2^-12`, binary32,
    `t[i] = Phi^-1(i / 4096)`;
  - cell 0: `z = T[sub]`, cell 4095: `z = -T[4095 - sub]`, `T[s] = Phi^-1((s + 1/2) / 2^24)` (the
    exact quantile of each sub-cell's midpoint).
  Both tables are computed once on the host in double (Acklam's rational approximation refined by
  two Newton steps on `erfc`) and rounded to binary32; 8193 floats uploaded with `ctx.table`.
  Accuracy against the exact quantile of `(m + 1/2) / 2^24`: below 6e-6 in `z` for `|z| < 2`, at most
  0.016 in the cells next to the tails (p near 1/4096); extremes +-5.42. Over all 2^24 words: mean
  -2e-7, variance 1.00007, fourth moment 3.0014. The noise is not torch's `randn`.
- **variance** (Albumentations 1.x's `var_limit`, divided by 255²): the variance is drawn uniformly
  (after `mean`) and `sigma = sqrt(variance)`, as 1.x draws `var` and takes `var ** 0.5`; drawing
  sigma uniformly over the square roots would favour larger deviations less.
- **Float**: `n = (float)mean + (float)sigma * z`; `out = v + n`, then `clamp01` when `clip`.
- **Integer**: `out = sat_T(rne((float)v + n * (float)max))`, max 255 or 65535 (always saturated;
  `clip` only concerns float images). `mean = sigma = 0` is the identity. Alpha is copied.
)md",
      .imports = {
          {.name = "GaussNoise",
           .how = "var_limit (pixels^2) becomes variance [lo, hi] / 255^2 (drawn as 1.x draws it), mean / 255; "
                  "std_range and mean_range as is",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "gaussian_noise"}};
            if (t.has("std_range") || (t.release_2() && !t.has("var_limit") && !t.has("mean"))) {
              const auto [lo, hi] = t.limit("std_range", {0.2, 0.44}, false);
              s["sigma"] = span(lo, hi);
              if (t.has("mean_range")) {
                const auto [a, b] = t.limit("mean_range", {0, 0}, false);
                s["mean"] = span(a, b);
              }
            } else {
              const auto [lo, hi] = t.limit("var_limit", {10, 50}, false);
              s["variance"] = span(std::max(lo, 0.0) / (255.0 * 255.0), std::max(hi, 0.0) / (255.0 * 255.0));
              s["mean"] = t.number("mean", 0) / 255.0;
            }
            if (t.has("per_channel")) s["per_channel"] = t.saved().at("per_channel");
            return s;
          },
           .python = {
               {"GaussNoise",
                "var_limit mean per_channel always_apply p",
                "std_range mean_range per_channel noise_scale_factor p",
                0.5}}},
          // Albumentations 1.x's wrapper of imgaug (removed in 1.4): sigma drawn uniformly in
          // `scale` (pixels), noise rounded to nearest as here.
          {.name = "IAAAdditiveGaussianNoise",
           .how = "scale (pixels; a number is fixed) becomes sigma / 255, loc becomes mean / 255, per_channel "
                  "(default false) as is",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "gaussian_noise"}};
            std::pair<double, double> scale{0.01 * 255, 0.05 * 255};
            if (t.has("scale")) {
              const nlohmann::json& v = t.saved().at("scale");
              if (v.is_number()) scale = {v.get<double>(), v.get<double>()};
              else scale = t.limit("scale", scale, false);
            }
            if (scale.first < 0) t.fail("scale " + t.saved().at("scale").dump() + " is negative");
            s["sigma"] = span(scale.first / 255.0, scale.second / 255.0);
            if (t.has("loc")) {
              const nlohmann::json& v = t.saved().at("loc");
              if (!v.is_number()) t.fail("loc " + v.dump() + " has no stage equivalent (a number)");
              s["mean"] = v.get<double>() / 255.0;
            } else {
              s["mean"] = 0;
            }
            s["per_channel"] = t.flag("per_channel", false);
            return s;
          },
           .python = {{"IAAAdditiveGaussianNoise", "loc scale per_channel always_apply p", "-", 0.5}}}},
      .counterpart = {.none = "per-sample Philox normal draws; cv::randn uses another generator and would not time the "
                              "same work"},
  };
  return spec;
}

class NoiseOp final : public Op {
 public:
  NoiseOp(const Shape& s, const k::NoiseArgs& a) : Op(s, s), args_(a) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::NoiseArgs a = args_;
    a.normal = ctx.table(normal_table());
    with_views(in, out, [&](auto src, auto dst) { k::gaussian_noise(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{kMean.name, args_.mean}, {kSigma.name, args_.sigma}, {kPerChannel.name, args_.per_channel},
            {kClip.name, args_.clip}};
  }

 private:
  k::NoiseArgs args_;
};

class GaussianNoise final : public Stage {
 public:
  explicit GaussianNoise(const StageConfig& c)
      : mean_(c.get(kMean)), sigma_(c.get(kSigma)), per_channel_(c.get(kPerChannel)), clip_(c.get(kClip)),
        variance_(c.has(kVariance) ? std::optional<NumberParam>(c.get(kVariance)) : std::nullopt) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    k::NoiseArgs a;
    a.mean = static_cast<float>(mean_.sample(d));
    a.sigma = static_cast<float>(variance_ ? std::sqrt(variance_->sample(d)) : sigma_.sample(d));
    a.per_channel = per_channel_;
    a.clip = clip_;
    a.color_channels = color_channels(in);
    a.stream = d.stream();  // the per-pixel noise: sub-stream 1 of this stage's stream
    return std::make_unique<NoiseOp>(in, a);
  }

 private:
  NumberParam mean_, sigma_;
  bool per_channel_, clip_;
  std::optional<NumberParam> variance_;  // Albumentations 1.x: the variance drawn, not sigma
};

}  // namespace
}  // namespace gaussian_noise_impl

StageType gaussian_noise_stage() { return stage_type<gaussian_noise_impl::GaussianNoise>(&gaussian_noise_impl::gaussian_noise_spec); }

}  // namespace aug
