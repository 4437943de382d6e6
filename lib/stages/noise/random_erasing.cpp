// random_erasing: torchvision's RandomErasing (docs/stages/noise.md#random_erasing).
#include <algorithm>
#include <cmath>
#include <functional>

#include <opencv2/imgproc.hpp>

#include "lib/stages/noise/fill_op.hpp"

namespace aug {

namespace random_erasing_impl {
namespace {

const Param<NumberPair> kScale{{.name = "scale",
                                .doc = "range of the erased area as a fraction of the image area",
                                .default_value = {0.02, 0.33},
                                .min = Bound{0},
                                .max = Bound{1},
                                .ordered = true,
                                .elements = "[lo, hi]"}};
const Param<NumberPair> kRatio{{.name = "ratio",
                                .doc = "range of the erased rectangle's aspect ratio: height / width drawn "
                                       "log-uniformly (sampling torchvision), width / height drawn uniformly "
                                       "within what fits (sampling albumentations)",
                                .default_value = {0.3, 3.3},
                                .min = Bound{0, true},
                                .max = Bound{100},
                                .ordered = true,
                                .elements = "[lo, hi]"}};
const Param<std::vector<double>> kValue{{.name = "value",
                                         .doc = "the fill: one number or one per colour channel, fractions of the "
                                                "sample range (1 is white)",
                                         .default_value = 0.0,
                                         .min = Bound{0},
                                         .max = Bound{1}}};
const Param<bool> kRandom{{.name = "random",
                           .doc = "fill with per-pixel standard normal noise (torchvision's value=\"random\") "
                                  "instead of value",
                           .default_value = false}};
enum class Sampling { Torchvision, Albumentations };
const Words<Sampling> kSamplings{{{Sampling::Torchvision, "torchvision"}, {Sampling::Albumentations, "albumentations"}}};
const Choice<Sampling> kSampling{
    kSamplings,
    {},
    Sampling::Torchvision,
    {.name = "sampling",
     .doc = "how the rectangle is drawn: torchvision's RandomErasing (up to 10 tries) or Albumentations' Erasing "
            "(one draw within the sizes that fit)"}};

const StageSpec& random_erasing_spec() {
  static const StageSpec spec{
      .name = "random_erasing",
      .family = "noise",
      .summary = "Erase one random rectangle (torchvision RandomErasing, or Albumentations Erasing): a constant or "
                 "normal noise.",
      .notes = {"The rectangle as torchvision's RandomErasing.get_params, with the stage's draws: up to 10 tries of "
                "area = H W U(scale), aspect = exp(U(log ratio)), h = round(sqrt(area aspect)), w = "
                "round(sqrt(area / aspect)) (round half to even, as Python's round); a try fits when h < H and "
                "w < W, and the top-left corner is then drawn uniformly from [0, H - h] x [0, W - w]. When no try "
                "fits the image is unchanged. The manifest records the rectangle as [x, y, w, h].",
                "value is a fraction of the sample range for every type (torchvision takes it in the tensor's own "
                "units); 8/16-bit fills are RNE(value max). random fills each value with a standard normal z from "
                "the keyed generator (as gaussian_noise) read as a fraction of the range and saturated: RNE(z max) "
                "for 8/16-bit, z clamped to [0, 1] for float (torchvision writes z unclamped into float tensors). "
                "Alpha is left alone (torchvision erases every channel). torchvision's default p is 0.5, this "
                "stage's too.",
                "sampling albumentations draws as Albumentations' Erasing: ratio is width / height, the area is "
                "drawn uniformly up to the largest that fits with every ratio of the range, the ratio uniformly "
                "among those that fit that area, h = round(sqrt(area / ratio)), w = round(sqrt(area ratio)); one "
                "draw, no retries."},
      .params = {kScale, kRatio, kValue, kRandom, kSampling},
      .default_p = 0.5,
      .tolerance = {.reason = "values are copied or set to a fill computed on the host, or to the same normal "
                              "draws and binary32 operations on every backend"},
      .example = {{"stage", "random_erasing"}, {"scale", {0.02, 0.33}}, {"ratio", {0.3, 3.3}}, {"value", 0}},
      .cases = {R"({})", R"({"scale": [0.1, 0.5], "value": [1, 0.5, 0.25]})", R"({"random": true})",
                R"({"scale": [0.3, 0.6], "ratio": [0.5, 2], "value": 0.7})",
                R"({"sampling": "albumentations", "scale": [0.1, 0.6], "value": [0.2, 0.9, 0.4]})"},
      .identity = R"({"scale": [0, 0]})",
      .bench = {R"({})", R"({"random": true})"},
      .arithmetic = R"md(
torchvision's **RandomErasing** (default `p` 0.5 as torchvision; `scale` [0.02, 0.33], `ratio`
[0.3, 3.3], `value` 0). The rectangle is `get_params` with the stage's draws (double): `area = H W`;
up to 10 tries of `erase_area = area * uniform(scale)`, `aspect = exp(uniform(log r0, log r1))`,
`h = rne(sqrt(erase_area * aspect))`, `w = rne(sqrt(erase_area / aspect))` (Python's `round`, half to
even); a try fits when `h < H` and `w < W`, then `i = integer(0, H - h)`, `j = integer(0, W - w)`
(torchvision's `randint(0, H - h + 1)`, exclusive bound). No fit in 10 tries: the image is copied.
torchvision draws in float32 tensors (`uniform_`, `log`, `exp`) where this draws in double; the
algorithm and its rounding are the same. The manifest records `rects: [[x, y, w, h]]`.

- **Fill** (`kernels/noise/fill_rects`): pixels with `x0 <= x < x0 + w` and `y0 <= y < y0 + h` get
  `value` on every colour channel (alpha copied): `value` is a fraction of the range for every type
  (torchvision uses the tensor's units): `rne(value * max)` on the host for 8/16-bit, `(float)value`
  for float; a per-channel list whose last value repeats for missing channels.
- **random** (torchvision's `value="random"`, a normal per value): `z` as in
  [gaussian_noise](#gaussian_noise) (word `c` of `block(y*W + x, 1)`), read as a fraction of the range:
  `sat_T(rne(z * (float)max))` for 8/16-bit, `clamp01(z)` for float (torchvision writes `z`
  unclamped into float tensors, and casts it by truncation into uint8 ones).
- `scale` [0, 0] is the identity (h = w = 0).

**sampling albumentations** draws as Albumentations' **Erasing** (2.x; `ratio` is width / height,
drawn uniformly; one draw, no retries), in double: with `A = H W`, `a0 = A s0`, `a1 = A s1`,
the largest area every ratio allows is `m = min(a1, r0 H², r1 H², W² / r0, W² / r1)`; when `m < a0`
nothing is erased. Otherwise `area = uniform(a0, m)`, then the ratios that fit that area,
`hi = min(r1, W² / area)` and `lo = max(r0, area / H²)` (none fit when `lo > hi`: nothing is
erased), `ratio = uniform(lo, hi)`, `h = rne(sqrt(area / ratio))`, `w = rne(sqrt(area ratio))`,
`top = integer(0, H - h)`, `left = integer(0, W - w)` (Python's `randint`, inclusive). The fill
is the same; Albumentations' fill is in pixels (the importer divides by 255).
)md",
      .imports = {
          {.name = "Erasing",
           .how = "sampling albumentations; scale, ratio; fill in pixels becomes value (a fraction of 255); "
                  "fill_mask is the labels block's mask fill",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "random_erasing"}, {"sampling", "albumentations"}};
            for (const char* key : {"scale", "ratio"})
              if (t.has(key)) {
                const auto [lo, hi] = t.limit(key, {0, 0}, false);
                s[key] = ojson::array({lo, hi});
              }
            if (t.has("fill")) {
              ojson fill;
              import_fill_in_pixels(t, fill, "fill");
              s["value"] = fill["fill"];
            }
            t.mask_fill();
            return s;
          },
           .python = {{"Erasing", "-", "scale ratio fill fill_mask p", 0.5}}}},
      .counterpart = {.call = "cv::Mat::copyTo, then cv::Mat::setTo per rectangle",
                      .how = "the resolved rectangles and constant value (random fills have none)",
                      .make = fill_rects_counterpart},
  };
  return spec;
}

class RandomErasing final : public Stage {
 public:
  explicit RandomErasing(const StageConfig& c)
      : scale_(c.get(kScale)), ratio_(c.get(kRatio)), value_(c.get(kValue)), random_(c.get(kRandom)),
        sampling_(c.get(kSampling)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    if (sampling_.sample(d) == Sampling::Albumentations)
      return std::make_unique<FillRectsOp>(in, albumentations_rect(d, in), value_, random_, d.stream());
    const int H = in.height, W = in.width;
    const double area = static_cast<double>(H) * W;
    const double log_lo = std::log(ratio_[0]), log_hi = std::log(ratio_[1]);
    std::vector<Rect> rects;
    for (int attempt = 0; attempt < 10; ++attempt) {
      const double erase_area = area * d.uniform(scale_[0], scale_[1]);
      const double aspect = std::exp(d.uniform(log_lo, log_hi));
      const auto h = static_cast<std::int64_t>(std::nearbyint(std::sqrt(erase_area * aspect)));
      const auto w = static_cast<std::int64_t>(std::nearbyint(std::sqrt(erase_area / aspect)));
      if (!(h < H && w < W)) continue;
      const auto i = d.integer(0, H - h), j = d.integer(0, W - w);
      rects.push_back({static_cast<int>(j), static_cast<int>(i), static_cast<int>(j + w), static_cast<int>(i + h)});
      break;
    }
    return std::make_unique<FillRectsOp>(in, std::move(rects), value_, random_, d.stream());
  }

 private:
  // Albumentations' Erasing: none or one rectangle.
  std::vector<Rect> albumentations_rect(Draws& d, const Shape& in) const {
    const double H = in.height, W = in.width, A = H * W;
    const double r0 = ratio_[0], r1 = ratio_[1], a0 = A * scale_[0];
    const double m = std::min({A * scale_[1], std::min(r0 * H * H, r1 * H * H), std::min(W * W / r0, W * W / r1)});
    if (m < a0) return {};
    const double area = d.uniform(a0, m);
    const double hi = std::min(r1, W * W / area), lo = std::max(r0, area / (H * H));
    if (lo > hi) return {};
    const double ratio = d.uniform(lo, hi);
    const auto h = static_cast<std::int64_t>(std::nearbyint(std::sqrt(area / ratio)));
    const auto w = static_cast<std::int64_t>(std::nearbyint(std::sqrt(area * ratio)));
    const std::int64_t top = d.integer(0, in.height - h), left = d.integer(0, in.width - w);
    return {Rect{static_cast<int>(left), static_cast<int>(top), static_cast<int>(left + w), static_cast<int>(top + h)}};
  }

  NumberPair scale_, ratio_;
  std::vector<double> value_;
  bool random_;
  Drawn<Sampling> sampling_;
};

}  // namespace
}  // namespace random_erasing_impl

StageType random_erasing_stage() { return stage_type<random_erasing_impl::RandomErasing>(&random_erasing_impl::random_erasing_spec); }

}  // namespace aug
