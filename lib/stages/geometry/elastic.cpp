// elastic: Kornia's RandomElasticTransform (docs/stages/geometry.md#elastic), identity-preserving grid.
#include <cmath>

#include "kernels/geometry/elastic.hpp"
#include "lib/stages/engines/vocabulary.hpp"
#include "lib/stages/engines/gaussian_weights.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace elastic_impl {
namespace {

const Param<IntPair> kKernelSize{{.name = "kernel_size",
                                   .doc = "smoothing kernel sizes",
                                   .default_value = {63, 63},
                                   .min = Bound{1},
                                   .max = Bound{401},
                                   .odd = true,
                                   .elements = "[y, x]"}};
const Param<NumberPair> kSigma{{.name = "sigma",
                                .doc = "smoothing standard deviations in pixels (larger: smoother, smaller displacements)",
                                .default_value = {32.0, 32.0},
                                .min = Bound{0, true},
                                .max = Bound{1000},
                                .elements = "[y, x]"}};
const Param<NumberPair> kAlpha{{.name = "alpha",
                                .doc = "displacement scales",
                                .default_value = {1.0, 1.0},
                                .min = Bound{0},
                                .max = Bound{1000},
                                .elements = "[x, y]"}};
const Choice<Interp> kInterpolation =
    interpolation_param({Interp::Bilinear, Interp::Nearest}, Interp::Bilinear, "bilinear or nearest", false);
const Choice<Border> kBorder = border_param({Border::Constant, Border::Replicate, Border::Reflect},
                                            "what is sampled outside the image: constant (zeros; the default), "
                                            "replicate (the edge) or reflect");
// Kornia's name for the same choice, in Kornia's words.
const Words<Border> kPaddings{{{Border::Constant, "zeros"}, {Border::Replicate, "border"}, {Border::Reflect, "reflection"}}};
const Choice<Border> kPadding{kPaddings,
                              {},
                              {.name = "padding",
                               .doc = "Kornia's name for border: zeros, border or reflection",
                               .optional = true}};

const StageSpec& elastic_spec() {
  static const StageSpec spec{
      .name = "elastic",
      .family = "geometry",
      .summary = "Elastic deformation by a smoothed random displacement field (Kornia RandomElasticTransform); zero "
                 "displacement is the identity.",
      .notes = {"Per pixel a noise pair U(-1, 1) from the keyed generator (so every backend draws the same field), "
                "smoothed by a zero-padded separable Gaussian (along x with kernel_size[1], sigma[1], then along y "
                "with kernel_size[0], sigma[0]: Kornia's (y, x) order), scaled by alpha[0] along x and alpha[1] "
                "along y (Kornia's (x, y) order). Displacements are in normalised units: [-1, 1] spans the image.",
                "Grid convention: a pixel's own position is ((2j + 1) / W - 1), the one grid_sample uses with "
                "align_corners=False, so zero displacement is the identity (Kornia #4382; earlier Kornia used a "
                "corner-aligned base grid and shifted images even with alpha 0). Each coordinate is clamped to "
                "[-1, 1]. Bilinear sampling of integer images uses fixed-point weights (1/32 pixel); nearest "
                "rounds half to even."},
      .params = {kKernelSize, kSigma, kAlpha, kInterpolation, kBorder, kPadding},
      .default_p = 0.5,
      .tolerance = {.reason = "noise from the same counter-based generator, smoothing and coordinates in the same "
                              "binary32 operations and order on every backend; integer sampling in fixed point"},
      .example = {{"stage", "elastic"}, {"kernel_size", {63, 63}}, {"sigma", {32, 32}}, {"alpha", {1, 1}}},
      .cases = {R"({"kernel_size": [7, 5], "sigma": [2, 3], "alpha": [4, 2]})",
                R"({"kernel_size": 9, "sigma": 1.5, "alpha": [3, 3], "interpolation": "nearest"})",
                R"({"kernel_size": 5, "sigma": 1, "alpha": [8, 8], "padding": "border"})",
                R"({"kernel_size": 5, "sigma": 1, "alpha": [8, 8], "border": "reflect"})",
                R"({"kernel_size": [31, 21], "sigma": [8, 5], "alpha": [0.5, 0.5]})"},
      .identity = R"({"alpha": [0, 0], "kernel_size": 5, "sigma": 2})",
      .bench = {R"({})", R"({"kernel_size": [31, 31], "sigma": [8, 8]})"},
      .arithmetic = R"md(
Kornia's **RandomElasticTransform** with the identity-preserving grid of Kornia PR #4382 (zero
displacement is the identity; earlier Kornia used a corner-aligned base grid that shifted images even
with alpha 0); default `p` 0.5. `kernel_size` and `sigma` are [y, x] (defaults 63, 63 and 32, 32),
`alpha` is [x, y] (default 1, 1), as in Kornia; `border` constant / replicate / reflect is Kornia's
`padding` zeros / border / reflection.

- **Noise**: for pixel `i = y*W + x`, the stage's stream at purpose 1 gives `n_x = 2 uniform01f(v0) - 1`,
  `n_y = 2 uniform01f(v1) - 1` ([Random draws](../arithmetic.md#random-draws)); each backend generates it itself,
  nothing is uploaded. The field is not Kornia's torch noise.
- **Smoothing** (binary32): taps `kx = gaussian(kernel_size[1], sigma[1])`,
  `ky = gaussian(kernel_size[0], sigma[0])` (Kornia's sum-normalised kernel, double rounded to binary32;
  sizes are odd, so no half shift); a pass along x then along y, each summing in tap order only the taps
  inside the image (zero padding, no renormalisation at the edges); `dx = alpha_x * smooth(n_x)`,
  `dy = alpha_y * smooth(n_y)` in normalised units ([-1, 1] spans the image).
- **Source coordinate** of column `j`: `p = clamp((float)j + (dx * (float)W) / 2, -0.5, W - 0.5)`, i.e.
  `grid_sample`'s `((g + 1) W - 1) / 2` with `g = clamp((2j + 1)/W - 1 + dx, -1, 1)`, written so that
  `dx = 0` gives exactly `j`; rows likewise with `H`. `reflection` reflects `p` about -0.5 and `W - 0.5`
  (PyTorch's `reflect_coordinates`); `border` and `reflection` then clamp `p` to `[0, W - 1]`. As `p`
  is already within `[-0.5, W - 0.5]`, `reflection` only rounds it through `(p + 0.5) - 0.5`: in effect `border`.
- **Sampling**:
  - nearest: `ix = rne(px)`, `iy = rne(py)`; under zeros a pixel outside is 0;
  - float bilinear: `x0 = floor(px)`, `tx = px - x0` (likewise y); weights `(1-tx)(1-ty)`, `tx(1-ty)`,
    `(1-tx)ty`, `tx ty` on `(x0,y0)`, `(x0+1,y0)`, `(x0,y0+1)`, `(x0+1,y0+1)`, summed in that order;
    taps outside are skipped under zeros, clamped otherwise;
  - integer bilinear, fixed point as OpenCV's remap with float maps: `X = rne(32 px)`, `x0 = X >> 5`,
    `fx = X & 31` (likewise y), the [Warp engine](../arithmetic.md#warp-engine) weights (sum 32768),
    `out = sat_T(round_shift(sum w p, 15))`; taps outside dropped under zeros, clamped otherwise.
- The CPU driver streams rows through a ring of x-smoothed rows; its out-of-image x taps add `+0`.
)md",
      .no_import = "Kornia's RandomElasticTransform; Albumentations' ElasticTransform imports to "
                   "elastic_transform",
      .counterpart = {.none = "OpenCV has no elastic field; cv::remap would time the sampling without the field's "
                              "construction"},
  };
  return spec;
}

struct ElasticConfig {
  IntPair ksize;
  NumberPair sigma, alpha;
  bool nearest;
  Border border;
};

class ElasticOp final : public Op {
 public:
  ElasticOp(const Shape& s, const ElasticConfig& c, const k::KeyedStream& stream)
      : Op(s, s), c_(c), kx_(kornia_gaussian(static_cast<int>(c.ksize[1]), c.sigma[1], static_cast<double>(c.ksize[1] / 2))),
        ky_(kornia_gaussian(static_cast<int>(c.ksize[0]), c.sigma[0], static_cast<double>(c.ksize[0] / 2))) {
    args_.stream = stream;
    args_.kx_size = static_cast<int>(kx_.size());
    args_.ky_size = static_cast<int>(ky_.size());
    args_.alpha_x = static_cast<float>(c.alpha[0]);
    args_.alpha_y = static_cast<float>(c.alpha[1]);
    args_.nearest = c.nearest;
    args_.padding = c.border == Border::Constant ? k::kPadZeros
                    : (c.border == Border::Replicate ? k::kPadBorder : k::kPadReflection);
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::ElasticArgs a = args_;
    a.kx = ctx.table(kx_);
    a.ky = ctx.table(ky_);
    with_views(in, out, [&](auto src, auto dst) { k::elastic(src, dst, a, ctx, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{kKernelSize.name, c_.ksize},
            {kSigma.name, c_.sigma},
            {kAlpha.name, c_.alpha},
            {kInterpolation.name, interp_words().name(c_.nearest ? Interp::Nearest : Interp::Bilinear)},
            {kBorder.name, border_words().name(c_.border)}};
  }

  bool moves_by_field() const override { return true; }

  std::optional<Motion> motion() const override {
    // Where each output pixel samples: the same field run on an image of its own coordinates,
    // bilinear with the border replicated (a bilinear sample of a linear ramp is the position).
    const Shape& s = in_shape();
    const Shape coords{s.width, s.height, 3, DType::F32};
    Image ramp(coords), at(coords);
    for (int y = 0; y < s.height; ++y) {
      float* row = ramp.view<float>().row(y);
      for (int x = 0; x < s.width; ++x) {
        row[3 * x] = static_cast<float>(x);
        row[3 * x + 1] = static_cast<float>(y);
        row[3 * x + 2] = 0.f;
      }
    }
    ElasticConfig c = c_;
    c.nearest = false;
    c.border = Border::Replicate;
    ElasticOp probe(coords, c, args_.stream);
    HostKernelContext ctx;
    probe.run(ctx, ramp.ref(), at.ref());
    auto sources = std::make_shared<std::vector<float>>(2 * static_cast<std::size_t>(s.width) * s.height);
    for (int y = 0; y < s.height; ++y) {
      const float* row = at.view<float>().row(y);
      for (int x = 0; x < s.width; ++x) {
        (*sources)[2 * (static_cast<std::size_t>(y) * s.width + x)] = row[3 * x];
        (*sources)[2 * (static_cast<std::size_t>(y) * s.width + x) + 1] = row[3 * x + 1];
      }
    }
    return Motion{.sources = std::move(sources), .out_width = s.width, .out_height = s.height};
  }
  std::unique_ptr<Op> for_mask(const Shape& mask, double fill) const override {
    ElasticConfig c = c_;
    c.nearest = true;
    auto op = std::make_unique<ElasticOp>(mask, c, args_.stream);
    op->args_.fill = static_cast<float>(fill);
    return op;
  }

 private:
  ElasticConfig c_;
  std::vector<float> kx_, ky_;
  k::ElasticArgs args_;
};

class Elastic final : public Stage {
 public:
  explicit Elastic(const StageConfig& c) {
    c_.ksize = c.get(kKernelSize);
    c_.sigma = c.get(kSigma);
    c_.alpha = c.get(kAlpha);
    c_.nearest = c.get(kInterpolation).options[0] == Interp::Nearest;
    if (c.has(kBorder) && c.has(kPadding)) c.fail(kPadding, "is Kornia's name for border: give one of the two");
    c_.border = c.has(kBorder) ? c.get(kBorder).options[0]
                               : (c.has(kPadding) ? c.get(kPadding).options[0] : Border::Constant);
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    // The field's noise comes from this stage's own stream (sub-stream 1), per pixel.
    return std::make_unique<ElasticOp>(in, c_, d.stream());
  }

 private:
  ElasticConfig c_;
};

}  // namespace
}  // namespace elastic_impl

StageType elastic_stage() { return stage_type<elastic_impl::Elastic>(&elastic_impl::elastic_spec); }

}  // namespace aug
