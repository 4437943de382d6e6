// shot_noise: Albumentations' ShotNoise (docs/stages/noise.md#shot_noise).
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/noise/shot_noise.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace shot_noise_impl {
namespace {

const Param<NumberPair> kScaleRange{{.name = "scale_range",
                                     .doc = "range of the scale drawn per image: the value of one photon, a "
                                            "fraction of the range in linear light (larger: noisier)",
                                     .default_value = {0.1, 0.3},
                                     .min = Bound{0.01},
                                     .max = Bound{10},
                                     .ordered = true,
                                     .elements = "[lo, hi]"}};

const StageSpec& shot_noise_spec() {
  static const StageSpec spec{
      .name = "shot_noise",
      .family = "noise",
      .summary = "Poisson (shot) noise in linear light: photon counts with a random scale (Albumentations ShotNoise).",
      .notes = {"As Albumentations 2.x's ShotNoise (scale_range (0.1, 0.3), p 0.5): each colour value v becomes "
                "(s k)^(1/2.2) with k ~ Poisson(((v / max)^2.2 + s 1e-6) / s), clipped to the range and rounded. "
                "k is drawn by inverse CDF from a Philox word per value (the stage's own sampler over the keyed "
                "counter-based generator, with tables built per image on the host in double), so every backend "
                "draws the same counts; numpy's Poisson generator is not reproduced. 8- and 16-bit images only "
                "(the tables cover every value); scale at least 0.01. Alpha is left alone."},
      .params = {kScaleRange},
      .dtypes = {DType::U8, DType::U16},
      .default_p = 0.5,
      .tolerance = {.reason = "table lookups chosen by the same Philox words and integer comparisons on every "
                              "backend"},
      .example = {{"stage", "shot_noise"}, {"scale_range", {0.1, 0.3}}},
      .cases = {R"({})", R"({"scale_range": 0.02})", R"({"scale_range": [0.5, 2]})"},
      .no_identity = "every scale adds noise (the counts are random for any scale)",
      .bench = {R"({})", R"({"scale_range": 0.05})"},
      .arithmetic = R"md(
Albumentations 2.x's **ShotNoise** (`scale_range` [0.1, 0.3], `p` 0.5; 1.4.22 and later, absent
from 1.3): photon noise in linear light. Draws `s = uniform(scale_range)`. For a value `v`
(`x = v / max`):

```
lambda(v) = (x^2.2 + s * 1e-6) / s          host, double
k ~ Poisson(lambda(v))                     per value, below
out = rne(min(k s, 1)^(1/2.2) * max)       host table over k, double
```

- **The count** (the stage's own Poisson sampler, no libm on the backends):
  `K = ceil(1 / s)` counts or more give the maximum, so only `k < K` matters. For every value `v`
  the host tabulates `T[v][j] = sat32(rne(CDF_v(j) * 2^32))` for `j = 0..K-1` (the CDF summed in
  double from `exp(-lambda)` by `p(j+1) = p(j) lambda / (j + 1)`; `sat32` caps at `2^32 - 1`).
  Value `v` of colour channel `c` at pixel `i = y W + x` takes word `c` of `block(i, purpose 1)`
  and `k` = the smallest `j < K` with `word < T[v][j]`, else `K`: `P(k = j) = CDF(j) - CDF(j-1)`
  to within `2^-32`. Independent counts per channel, as Albumentations' `poisson` over `H x W x C`.
- **Levels**: `L[k] = rne(min(k s, 1)^(1/2.2) * max)` for `k = 0..K`, double; `out = L[k]`.
  Albumentations clips, raises to `1/2.2` and rounds in binary32 (`float32_io`), which can differ by
  one level where a value falls near a half.
- 8- and 16-bit images: the tables hold `(max + 1) * K` thresholds (`K <= 100`, so `scale_range`
  starts at 0.01). Alpha is copied.
)md",
      .imports = {{.name = "ShotNoise",
                   .how = "scale_range as is (at least 0.01)",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "shot_noise"}};
                     const auto [lo, hi] = t.limit("scale_range", {0.1, 0.3}, false);
                     s["scale_range"] = ojson::array({lo, hi});
                     return s;
                   },
                   .python = {{"ShotNoise", "-", "scale_range p", 0.5}}}},
      .counterpart = {.none = "per-value Poisson draws from Philox words; OpenCV has no Poisson generator"},
  };
  return spec;
}

// The Poisson CDF of lambda at 0..K-1, times 2^32, rounded and capped.
void poisson_thresholds(double lambda, int K, std::uint32_t* out) {
  double p = std::exp(-lambda), cdf = 0;
  for (int j = 0; j < K; ++j) {
    cdf += p;
    const double t = std::nearbyint(cdf * 4294967296.0);
    out[j] = t >= 4294967295.0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(t);
    p = p * lambda / (j + 1);
  }
}

class ShotOp final : public Op {
 public:
  ShotOp(const Shape& s, double scale, const k::KeyedStream& stream) : Op(s, s), scale_(scale), stream_(stream) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const int max = in.shape.dtype == DType::U8 ? 255 : 65535;
    const double s = scale_;
    int K = static_cast<int>(std::ceil(1.0 / s));
    while (K * s < 1) ++K;
    while (K > 1 && (K - 1) * s >= 1) --K;
    std::vector<std::uint32_t> thresholds(static_cast<std::size_t>(max + 1) * K);
    for (int v = 0; v <= max; ++v) {
      const double lin = std::pow(static_cast<double>(v) / max, 2.2);
      poisson_thresholds((lin + s * 1e-6) / s, K, thresholds.data() + static_cast<std::size_t>(v) * K);
    }
    std::vector<std::uint16_t> levels(K + 1);
    for (int k = 0; k <= K; ++k)
      levels[k] = static_cast<std::uint16_t>(std::nearbyint(std::pow(std::min(k * s, 1.0), 1 / 2.2) * max));
    k::ShotArgs a;
    a.stream = stream_;
    a.thresholds = ctx.table(thresholds);
    a.levels = ctx.table(levels);
    a.K = K;
    a.color_channels = color_channels(in.shape);
    if (in.shape.dtype == DType::U8)
      k::shot_noise(in.view<const std::uint8_t>(), out.view<std::uint8_t>(), a, ctx.exec());
    else
      k::shot_noise(in.view<const std::uint16_t>(), out.view<std::uint16_t>(), a, ctx.exec());
  }

  nlohmann::json params() const override { return {{"scale", scale_}}; }

 private:
  double scale_;
  k::KeyedStream stream_;
};

class ShotNoise final : public Stage {
 public:
  explicit ShotNoise(const StageConfig& c) : range_(c.get(kScaleRange)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double s = d.uniform(range_[0], range_[1]);
    return std::make_unique<ShotOp>(in, s, d.stream());  // the counts: sub-stream 1 of this stage's stream
  }

 private:
  NumberPair range_;
};

}  // namespace
}  // namespace shot_noise_impl

StageType shot_noise_stage() { return stage_type<shot_noise_impl::ShotNoise>(&shot_noise_impl::shot_noise_spec); }

}  // namespace aug
