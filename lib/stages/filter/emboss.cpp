// emboss: Albumentations' Emboss (and 1.x's IAAEmboss): the 3x3 kernel
// (1 - alpha) * identity + alpha * [[-1 - s, -s, 0], [-s, 1, s], [0, s, 1 + s]] in binary32,
// applied as cv::filter2D applies it (reflect101 border), by the filter2d engine.
#include <vector>

#include "lib/stages/engines/filter2d.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace emboss_impl {
namespace {

const Param<NumberParam> kAlpha{{.name = "alpha",
                                 .doc = "visibility of the embossed image: 0 keeps the original, 1 is the embossed "
                                        "image alone; [lo, hi] draws one per image",
                                 .default_value = {0.2, 0.5},
                                 .random = true,
                                 .min = Bound{0},
                                 .max = Bound{1}}};
const Param<NumberParam> kStrength{{.name = "strength",
                                    .doc = "strength of the relief (the kernel's off-centre weights); [lo, hi] draws "
                                           "one per image",
                                    .default_value = {0.2, 0.7},
                                    .random = true,
                                    .min = Bound{0}}};

// The kernel as Albumentations builds it in NumPy: the float32 arrays [[0,0,0],[0,1,0],[0,0,0]] and
// [[-1-s, -s, 0], [-s, 1, s], [0, s, 1+s]] (each entry computed in double, then rounded), each scaled
// by a Python float rounded to float32 ((1 - a) and a), and the two summed, all in float32.
std::vector<float> emboss_kernel(double alpha, double s) {
  const float keep = static_cast<float>(1.0 - alpha), a = static_cast<float>(alpha);
  const float effect[9] = {static_cast<float>(-1.0 - s), static_cast<float>(0.0 - s), 0.0f,
                           static_cast<float>(0.0 - s),  1.0f,                         static_cast<float>(0.0 + s),
                           0.0f,                         static_cast<float>(0.0 + s), static_cast<float>(1.0 + s)};
  std::vector<float> w(9);
  for (int i = 0; i < 9; ++i) {
    const float p = keep * (i == 4 ? 1.0f : 0.0f), q = a * effect[i];
    w[static_cast<std::size_t>(i)] = p + q;
  }
  return w;
}

const StageSpec& emboss_spec() {
  static const StageSpec spec{
      .name = "emboss",
      .family = "filter",
      .summary = "Emboss with a 3x3 relief kernel blended with the identity (Albumentations Emboss); equal to "
                 "cv::filter2D with the same kernel to the bit.",
      .notes = {"As Albumentations' Emboss (1.x and 2.x) and 1.x's IAAEmboss: the kernel (1 - alpha) I + alpha "
                "[[-1 - s, -s, 0], [-s, 1, s], [0, s, 1 + s]] (s the strength) built in float32 as NumPy builds it, "
                "applied like cv::filter2D (BORDER_REFLECT_101) to every channel, alpha too. Defaults (alpha 0.2 to "
                "0.5, strength 0.2 to 0.7, p 0.5) are Albumentations'.",
                "Float results are clamped to [0, 1] as Albumentations 2.x clamps them (1.x does not) "
                "(docs/stages/filter.md)."},
      .params = {kAlpha, kStrength},
      .default_p = 0.5,
      .tolerance = {.reason = "the same taps and binary32 fused multiply-adds in the same order on every backend"},
      .example = {{"stage", "emboss"}, {"alpha", {0.2, 0.5}}, {"strength", {0.2, 0.7}}, {"p", 0.5}},
      .cases = {R"({})", R"({"alpha": 1, "strength": 0})", R"({"alpha": 0.45, "strength": 3.5})",
                R"({"alpha": [0, 1], "strength": [0, 2]})"},
      .identity = R"({"alpha": 0})",
      .bench = {R"({})"},
      .arithmetic = R"md(
Albumentations' **Emboss** (1.x and 2.x; default `p` 0.5) and 1.x's **IAAEmboss** (imgaug's Emboss,
the same kernel and defaults): a 3x3 kernel applied as `cv::filter2D(img, -1, M)` applies it, by the
[filter2d engine](../arithmetic.md#filter2d-engine).

- **Draws**: `alpha` (default `[0.2, 0.5]`, within `[0, 1]`), then `strength` `s` (default
  `[0.2, 0.7]`). The manifest records both and the kernel.
- **Kernel** `M = (1 - a) I + a E`, `I` the identity, `E = [[-1 - s, -s, 0], [-s, 1, s], [0, s, 1 + s]]`,
  as Albumentations builds it in NumPy: each entry of `E` computed in double and rounded to binary32,
  the scalars `f = (float)(1 - a)` and `g = (float)a`, then in binary32 `M = f * I + g * E`
  elementwise: the centre `f + g`, the others `0 + g * E_i` (two roundings each). The two zero corners
  (and every entry when `a = 0`, but the centre, which is then 1: the identity) are left out of the
  sums, as OpenCV leaves them out.
- **Sum**: the engine's, over the non-zero taps in row-major order: `acc = fma(v, w, acc)` from 0 in
  binary32, reflect101 border; 8/16-bit `sat(rne(acc))`, float `clamp01(acc)` (Albumentations 2.x clips
  float results to [0, 1]; 1.x does not). Every channel, alpha included, as Albumentations.
- **Checked** (`tests/stages/test_emboss.cpp`): `KernelIsAlbumentationsFloat32Matrix`,
  `EqualsCvFilter2DOnPhotographsAndOddSizes` (0 differing values against `cv::filter2D` with the
  recorded kernel, 8- and 16-bit, 1, 3 and 4 channels; float: then clamped),
  `DrawsAreUniformOverAlbumentationsRanges` (Kolmogorov-Smirnov over 4000 images, the p gate).
)md",
      .imports = {{.name = "Emboss",
                   .aliases = {"IAAEmboss"},
                   .how = "alpha, strength (a number x is [0, x], as to_tuple)",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "emboss"}};
                     const auto [a, b] = t.limit("alpha", {0.2, 0.5}, false);
                     s["alpha"] = span(a, b);
                     const auto [l, h] = t.limit("strength", {0.2, 0.7}, false);
                     s["strength"] = span(l, h);
                     return s;
                   },
                   .python = {
                       {"Emboss", "alpha strength always_apply p", "alpha strength p", 0.5},
                       {"IAAEmboss", "alpha strength always_apply p", "-", 0.5}}}},
      .counterpart = {.call = "cv::filter2D",
                      .how = "the recorded 3x3 kernel (float32), BORDER_REFLECT_101",
                      .make = filter2d_counterpart},
  };
  return spec;
}

class Emboss final : public DrawnKernel3x3Stage {
 public:
  explicit Emboss(const StageConfig& c) : DrawnKernel3x3Stage(c, kAlpha, kStrength, emboss_kernel) {}
};

}  // namespace
}  // namespace emboss_impl

StageType emboss_stage() { return stage_type<emboss_impl::Emboss>(&emboss_impl::emboss_spec); }

}  // namespace aug
