// iso_noise: Albumentations' ISONoise (docs/stages/noise.md#iso_noise).
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/noise/iso_noise.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace iso_noise_impl {
namespace {

const Param<NumberPair> kColorShift{{.name = "color_shift",
                                     .doc = "range of the hue noise's scale, drawn per image (the hue noise has "
                                            "standard deviation color_shift * intensity, in degrees)",
                                     .default_value = {0.01, 0.05},
                                     .min = Bound{0},
                                     .max = Bound{1},
                                     .ordered = true,
                                     .elements = "[lo, hi]"}};
const Param<NumberPair> kIntensity{{.name = "intensity",
                                    .doc = "range of the noise's strength, drawn per image",
                                    .default_value = {0.1, 0.5},
                                    .min = Bound{0},
                                    .max = Bound{2},
                                    .ordered = true,
                                    .elements = "[lo, hi]"}};

const StageSpec& iso_noise_spec() {
  static const StageSpec spec{
      .name = "iso_noise",
      .family = "noise",
      .summary = "Camera sensor noise: Poisson luminance noise and Gaussian hue noise in HLS (Albumentations "
                 "ISONoise).",
      .notes = {"As Albumentations 2.x's ISONoise (color_shift (0.01, 0.05), intensity (0.1, 0.5), p 0.5) on 8-bit "
                "RGB(A): the image to HLS with OpenCV's float conversion, a Poisson count k of mean sigma(L) "
                "intensity per pixel lightening L by k intensity (1 - L), a normal hue shift of standard deviation "
                "color_shift intensity degrees, back to RGB with OpenCV's float conversion, rounded. The HLS "
                "conversions equal cv::cvtColor's (OpenCV 4.6, vector path, FMA) bit for bit; the counts and "
                "shifts come from the keyed counter-based generator, so every backend draws the same. 1.x's "
                "larger noise (x255 luminance, x360 hue, hue wrapped, truncation) is not reproduced. Alpha is "
                "left alone."},
      .params = {kColorShift, kIntensity},
      .dtypes = {DType::U8},
      .channels = {3, 4},
      .default_p = 0.5,
      .tolerance = {.reason = "integer histogram, one-thread statistics in double in a fixed order, and the same "
                              "binary32 operations and FMAs per pixel on every backend"},
      .example = {{"stage", "iso_noise"}, {"color_shift", {0.01, 0.05}}, {"intensity", {0.1, 0.5}}},
      .cases = {R"({})", R"({"color_shift": [0.5, 1], "intensity": [1, 2]})", R"({"color_shift": 0, "intensity": 2})"},
      .identity = R"({"intensity": 0})",
      .bench = {R"({})"},
      .arithmetic = R"md(
Albumentations 2.x's **ISONoise** (`color_shift` [0.01, 0.05], `intensity` [0.1, 0.5], `p` 0.5),
8-bit RGB(A). Draws `color_shift`, then `intensity`. 1.x scaled the luminance noise by 255 and the
hue noise by 360, wrapped the hue and truncated the result; 2.x (and this stage) does not.

- **To HLS**: `x = (float)(v / 255.0)` (Albumentations' float conversion), then OpenCV 4.6's float
  RGB2HLS as its vector path computes it: `mx`, `mn` the largest and smallest of r, g, b;
  `l = (mx + mn) * 0.5`; `s = (mx - mn) / (l < 0.5 ? mx + mn : 2 - (mx + mn))`;
  `h = fma(d, 60 / (mx - mn), base)` with `(d, base)` = `(g - b, g < b ? 360 : 0)` when r is
  largest, else `(b - r, 120)` when g is, else `(r - g, 240)`; `h = s = 0` unless
  `mx - mn > FLT_EPSILON`. All binary32; equal to `cv::cvtColor(COLOR_RGB2HLS)` on every colour.
- **sigma(L)**: the population standard deviation of `l` over the image (`cv::meanStdDev`):
  a histogram of `(mx, mn)` pairs (integer counts), then in double, bins in order,
  `mean = sum(c l) / N`, `sigma = sqrt(max(sum(c l^2) / N - mean^2, 0))`.
- **Luminance**: `lambda = sigma * intensity`; `T[j] = min(rne(CDF(j) 2^32), 2^32 - 1)` for
  `j < 32`, the Poisson CDF summed from `p(0) = 1 / sum_{i<=30} lambda^i / i!` by
  `p(j+1) = p(j) lambda / (j + 1)` (double, no libm; one thread). Pixel `i = y W + x` takes
  `block(i, purpose 1)`: `k = #{j : word0 >= T[j]}`, and
  `l = clamp01(l + ((float)k * intensity) * (1 - l))`.
- **Hue**: `h = h + (float)(color_shift * intensity) * z`, `z` the standard normal of word 1
  ([gaussian_noise](#gaussian_noise)'s table); no wrapping (as 2.x).
- **Back**: OpenCV 4.6's float HLS2RGB vector path: `e0 = l <= 0.5 ? l s : s - l s`,
  `q = h * (6 / 360)`, `f = q - trunc(q)`, `sector = trunc(q) - 6 trunc(q / 6)`, `e1 = f + f`,
  `t0 = l + e0`, `t1 = l - e0`, `t2 = fma(-e0, e1, t0)`, `t3 = fma(e0, e1, t1)`; r, g, b chosen
  from them by the sector as OpenCV does; equal to `cv::cvtColor(COLOR_HLS2RGB)` (widths that are
  multiples of 8: OpenCV's scalar tail computes otherwise). `out = rne(clamp01(c) * 255)`.
  Alpha is copied. The round trip gives every 8-bit colour back, so `intensity` 0 is the identity.
)md",
      .imports = {{.name = "ISONoise",
                   .how = "color_shift and intensity as is (2.x's noise scales; 1.x's larger ones are noted)",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "iso_noise"}};
                     const auto [c0, c1] = t.limit("color_shift", {0.01, 0.05}, false);
                     const auto [i0, i1] = t.limit("intensity", {0.1, 0.5}, false);
                     s["color_shift"] = ojson::array({c0, c1});
                     s["intensity"] = ojson::array({i0, i1});
                     if (t.has("always_apply"))
                       t.note("ISONoise (1.x): its noise was 255 (luminance) and 360 (hue) times larger; iso_noise "
                              "computes 2.x's");
                     return s;
                   },
                   .python = {{"ISONoise", "color_shift intensity always_apply p", "color_shift intensity p", 0.5}}}},
      .counterpart = {.call = "cv::cvtColor RGB2HLS and HLS2RGB (float), cv::meanStdDev, two convertTo",
                      .how = "the OpenCV calls Albumentations makes, without its noise draws",
                      .make = [](const nlohmann::json&, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        if (src.channels() != 3) return {};
                        return [&dst, src] {
                          cv::Mat f, hls, rgb;
                          src.convertTo(f, CV_32F, 1.0 / 255);
                          cv::cvtColor(f, hls, cv::COLOR_RGB2HLS);
                          cv::Scalar mean, sd;
                          cv::meanStdDev(hls, mean, sd);
                          cv::cvtColor(hls, rgb, cv::COLOR_HLS2RGB);
                          rgb.convertTo(dst, CV_8U, 255);
                        };
                      }},
  };
  return spec;
}

const std::vector<float>& unit_table() {
  static const std::vector<float> t = [] {
    std::vector<float> v(256);
    for (int i = 0; i < 256; ++i) v[i] = static_cast<float>(i / 255.0);
    return v;
  }();
  return t;
}

class IsoOp final : public Op {
 public:
  IsoOp(const Shape& s, double shift, double intensity, const k::KeyedStream& stream)
      : Op(s, s), shift_(shift), intensity_(intensity), stream_(stream) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::IsoArgs a;
    a.stream = stream_;
    a.unit = ctx.table(unit_table());
    a.normal = ctx.table(normal_table());
    a.hue_sigma = static_cast<float>(shift_ * intensity_);
    a.intensity = static_cast<float>(intensity_);
    a.lambda_scale = intensity_;
    a.color_channels = 3;
    k::iso_noise(in.view<const std::uint8_t>(), out.view<std::uint8_t>(), a, ctx, ctx.exec());
  }

  nlohmann::json params() const override { return {{kColorShift.name, shift_}, {kIntensity.name, intensity_}}; }

 private:
  double shift_, intensity_;
  k::KeyedStream stream_;
};

class IsoNoise final : public Stage {
 public:
  explicit IsoNoise(const StageConfig& c) : shift_(c.get(kColorShift)), intensity_(c.get(kIntensity)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double shift = d.uniform(shift_[0], shift_[1]), intensity = d.uniform(intensity_[0], intensity_[1]);
    return std::make_unique<IsoOp>(in, shift, intensity, d.stream());  // per pixel: sub-stream 1
  }

 private:
  NumberPair shift_, intensity_;
};

}  // namespace
}  // namespace iso_noise_impl

StageType iso_noise_stage() { return stage_type<iso_noise_impl::IsoNoise>(&iso_noise_impl::iso_noise_spec); }

}  // namespace aug
