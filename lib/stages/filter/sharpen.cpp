// sharpen: Albumentations' Sharpen (and 1.x's IAASharpen): the 3x3 kernel
// (1 - alpha) * identity + alpha * [[-1, -1, -1], [-1, 8 + lightness, -1], [-1, -1, -1]] in binary32,
// applied as cv::filter2D applies it (reflect101 border), by the filter2d engine.
#include <vector>

#include "lib/stages/engines/filter2d.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace sharpen_impl {
namespace {

const Param<NumberParam> kAlpha{{.name = "alpha",
                                 .doc = "visibility of the sharpened image: 0 keeps the original, 1 is the sharpened "
                                        "image alone; [lo, hi] draws one per image",
                                 .default_value = {0.2, 0.5},
                                 .random = true,
                                 .min = Bound{0},
                                 .max = Bound{1}}};
const Param<NumberParam> kLightness{{.name = "lightness",
                                     .doc = "added to the kernel's centre (8 + lightness): higher is brighter; "
                                            "[lo, hi] draws one per image",
                                     .default_value = {0.5, 1.0},
                                     .random = true,
                                     .min = Bound{0}}};

// The kernel as Albumentations builds it in NumPy: float32 arrays [[0,0,0],[0,1,0],[0,0,0]] and
// [[-1,-1,-1],[-1,8+l,-1],[-1,-1,-1]] (8 + l in double, then rounded), each scaled by a Python
// float rounded to float32 ((1 - a) and a), and the two summed, every operation in float32.
std::vector<float> sharpen_kernel(double alpha, double lightness) {
  const float keep = static_cast<float>(1.0 - alpha), a = static_cast<float>(alpha);
  const float centre = static_cast<float>(8.0 + lightness);
  std::vector<float> w(9);
  for (int i = 0; i < 9; ++i) {
    const float nochange = i == 4 ? 1.0f : 0.0f, effect = i == 4 ? centre : -1.0f;
    const float p = keep * nochange, q = a * effect;
    w[static_cast<std::size_t>(i)] = p + q;
  }
  return w;
}

const StageSpec& sharpen_spec() {
  static const StageSpec spec{
      .name = "sharpen",
      .family = "filter",
      .summary = "Sharpen with a 3x3 kernel blended with the identity (Albumentations Sharpen); equal to "
                 "cv::filter2D with the same kernel to the bit.",
      .notes = {"As Albumentations' Sharpen (method \"kernel\", 1.x and 2.x) and 1.x's IAASharpen: the kernel (1 - "
                "alpha) I + alpha [[-1, -1, -1], [-1, 8 + lightness, -1], [-1, -1, -1]] built in float32 as NumPy "
                "builds it, applied like cv::filter2D (BORDER_REFLECT_101) to every channel, alpha too. Defaults "
                "(alpha 0.2 to 0.5, lightness 0.5 to 1.0, p 0.5) are Albumentations'.",
                "Float results are clamped to [0, 1] as Albumentations 2.x clamps them (1.x does not). "
                "Albumentations 2.x's method \"gaussian\" is not reproduced (docs/stages/filter.md)."},
      .params = {kAlpha, kLightness},
      .default_p = 0.5,
      .tolerance = {.reason = "the same taps and binary32 fused multiply-adds in the same order on every backend"},
      .example = {{"stage", "sharpen"}, {"alpha", {0.2, 0.5}}, {"lightness", {0.5, 1.0}}, {"p", 0.5}},
      .cases = {R"({})", R"({"alpha": 1, "lightness": 0})", R"({"alpha": 0.35, "lightness": 7.5})",
                R"({"alpha": [0, 1], "lightness": [0, 2]})"},
      .identity = R"({"alpha": 0})",
      .bench = {R"({})"},
      .arithmetic = R"md(
Albumentations' **Sharpen** with its `kernel` method (1.x and 2.x; default `p` 0.5) and 1.x's
**IAASharpen** (imgaug's Sharpen, the same formula and defaults): a 3x3 kernel applied as
`cv::filter2D(img, -1, M)` applies it, by the [filter2d engine](../arithmetic.md#filter2d-engine).

- **Draws**: `alpha` (default `[0.2, 0.5]`, within `[0, 1]`), then `lightness` (default `[0.5, 1.0]`).
  The manifest records both and the kernel.
- **Kernel** `M = (1 - a) I + a E`, `I` the identity (1 at the centre), `E` all -1 with `8 + l` at the
  centre, as Albumentations builds it in NumPy: `8 + l` in double rounded to binary32, the scalars
  `f = (float)(1 - a)` and `g = (float)a`, then in binary32 `M = f * I + g * E` elementwise. The
  centre is `f + g * (float)(8 + l)` (two roundings), each neighbour `0 + g * -1 = -g`. With `a = 0`
  the neighbours are 0, which OpenCV leaves out of its sums, and the centre is 1: the identity.
- **Sum**: the engine's, over the 9 taps in row-major order: `acc = fma(v, w, acc)` from 0 in
  binary32, reflect101 border; 8/16-bit `sat(rne(acc))` (cv::filter2D's saturate_cast), float
  `clamp01(acc)` (Albumentations 2.x clips float results to [0, 1]; 1.x does not). Every channel,
  alpha included, as Albumentations.
- **Not reproduced**: 2.x's `method: "gaussian"` (`img + a (img - GaussianBlur(img))`, whose
  8-bit difference wraps modulo 256 in Albumentations); the importer refuses it.
- **Checked** (`tests/stages/test_sharpen.cpp`): `KernelIsAlbumentationsFloat32Matrix` (the kernel
  against the float32 NumPy arithmetic written out), `EqualsCvFilter2DOnPhotographsAndOddSizes`
  (8-bit and 16-bit, 1, 3 and 4 channels: 0 differing values against `cv::filter2D` with the recorded
  kernel; float: `cv::filter2D` then clamped), `DrawsAreUniformOverAlbumentationsRanges`
  (Kolmogorov-Smirnov over 4000 images, the p gate).
)md",
      .imports = {{.name = "Sharpen",
                   .aliases = {"IAASharpen"},
                   .how = "alpha, lightness (a number x is [0, x], as to_tuple); method \"gaussian\" is refused",
                   .convert = [](const TransformReader& t) {
                     if (t.has("method") && t.saved().at("method") != "kernel")
                       t.fail("method " + t.saved().at("method").dump() +
                              " has no stage equivalent (sharpen reproduces the \"kernel\" method; Albumentations' "
                              "\"gaussian\" method wraps 8-bit differences modulo 256)");
                     ojson s{{"stage", "sharpen"}};
                     const auto [a, b] = t.limit("alpha", {0.2, 0.5}, false);
                     s["alpha"] = span(a, b);
                     const auto [l, h] = t.limit("lightness", {0.5, 1.0}, false);
                     s["lightness"] = span(l, h);
                     return s;
                   },
                   .python = {
                       {"Sharpen", "alpha lightness always_apply p", "alpha lightness method kernel_size sigma p", 0.5},
                       {"IAASharpen", "alpha lightness always_apply p", "-", 0.5}}}},
      .counterpart = {.call = "cv::filter2D",
                      .how = "the recorded 3x3 kernel (float32), BORDER_REFLECT_101",
                      .make = filter2d_counterpart},
  };
  return spec;
}

class Sharpen final : public DrawnKernel3x3Stage {
 public:
  explicit Sharpen(const StageConfig& c) : DrawnKernel3x3Stage(c, kAlpha, kLightness, sharpen_kernel) {}
};

}  // namespace
}  // namespace sharpen_impl

StageType sharpen_stage() { return stage_type<sharpen_impl::Sharpen>(&sharpen_impl::sharpen_spec); }

}  // namespace aug
