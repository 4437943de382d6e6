// color_jitter: torchvision's ColorJitter: brightness, contrast, saturation and hue, in a random order.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "kernels/color/color_jitter.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace color_jitter_impl {
namespace {

Param<std::vector<double>> factor_param(const char* name, const char* what) {
  return Param<std::vector<double>>(
      {.name = name,
       .doc = std::string(what) + " factor: b means [max(0, 1 - b), 1 + b], [lo, hi] is used as is; 0 (or [1, 1]) "
                                  "leaves it out; at most 10^6 (a factor past 255 already saturates every 8-bit "
                                  "value, and the binary32 arithmetic must stay finite)",
       .default_value = 0.0,
       .min = Bound{0},
       .max = Bound{1e6}});
}

const Param<std::vector<double>> kBrightness = factor_param("brightness", "brightness"),
                                 kContrast = factor_param("contrast", "contrast"),
                                 kSaturation = factor_param("saturation", "saturation");
const Param<std::vector<double>> kHue({.name = "hue",
                                       .doc = "hue shift (a fraction of the colour wheel): h means [-h, h], "
                                              "[lo, hi] is used as is; 0 leaves it out",
                                       .default_value = 0.0,
                                       .min = Bound{-0.5},
                                       .max = Bound{0.5}});

const char* const kNames[4] = {"brightness", "contrast", "saturation", "hue"};

const StageSpec& color_jitter_spec() {
  static const StageSpec spec{
      .name = "color_jitter",
      .family = "color",
      .summary = "Randomly change brightness, contrast, saturation and hue, in a random order (torchvision's "
                 "ColorJitter).",
      .notes = {"As torchvision's ColorJitter (transforms.v2 functional arithmetic): per image a random order of the "
                "four adjustments (torch.randperm(4), here a Fisher-Yates shuffle of the keyed draws), then each "
                "enabled factor uniformly in its range, in the order brightness, contrast, saturation, hue. The "
                "manifest records the order and the factors (null for those left out). Factors are drawn as binary32, "
                "as torch draws them.",
                "Each adjustment is torchvision's binary32 formula, and 8- and 16-bit images are truncated back to "
                "the sample type after each (as torchvision's .to(uint8)): brightness x*f; contrast x*f + (1-f)*mean "
                "of the grayscale image (0.2989 R + 0.587 G + 0.114 B, floored); saturation x*f + (1-f)*gray; hue "
                "through torchvision's RGB/HSV formulas. Saturation and hue leave gray images alone; alpha is "
                "copied. The products and sums are rounded separately (no FMA); torchvision's add_(alpha=...) may "
                "fuse them on some CPUs, which can move a truncated value by 1 in rare cases "
                "(docs/stages/color.md).",
                "A single number for brightness, contrast or saturation b means [max(0, 1 - b), 1 + b]; for hue h "
                "means [-|h|, |h|] (torchvision rejects a negative h); a list of two is the range itself."},
      .params = {kBrightness, kContrast, kSaturation, kHue},
      .tolerance = {.reason = "the same binary32 operations in the same order on every backend (no FMA), the "
                              "contrast mean from an exact integer sum (a double sum in a fixed order for float)"},
      .example = {{"stage", "color_jitter"}, {"brightness", 0.4}, {"contrast", 0.4}, {"saturation", 0.4}, {"hue", 0.1}},
      .cases = {R"({"brightness": 0.5, "contrast": 0.5, "saturation": 0.5, "hue": 0.2})",
                R"({"brightness": [1.3, 1.6]})", R"({"contrast": [0.2, 0.6]})",
                R"({"saturation": [0.0, 2.5]})", R"({"hue": [-0.5, 0.5]})",
                R"({"contrast": [1.5, 2.0], "hue": 0.4})"},
      .identity = R"({"brightness": 0, "contrast": 0, "saturation": 0, "hue": 0})",
      .bench = {R"({"brightness": 0.4, "contrast": 0.4, "saturation": 0.4, "hue": 0.1})"},
      .arithmetic = R"md(
torchvision's ColorJitter, with the arithmetic of `torchvision.transforms.v2.functional`
(`kernels/color/color_jitter.hpp`).

- **Draws.** The order: a Fisher–Yates shuffle of (brightness, contrast, saturation, hue) with
  `Draws::integer(0, i)` for i = 3, 2, 1 (a uniform permutation, as `torch.randperm(4)`); then each
  enabled factor `uniform(lo, hi)` in the order brightness, contrast, saturation, hue, rounded to
  binary32 (torch draws `torch.empty(1).uniform_` in binary32). A number b gives
  `[max(0, 1 - b), 1 + b]`, a hue h gives `[-|h|, |h|]`, a pair is the range; an adjustment whose range
  is its neutral value alone (1, or 0 for hue) is left out and recorded as null, as torchvision's
  `_check_input` returns None. The manifest records `order` (all four names) and the four factors.
- **Per adjustment** (binary32, each product and sum rounded on its own; `f` = (float)factor,
  `rest` = (float)(1 - factor) with the difference in double; `settle(y)` = clamp to [0, max], then
  truncation toward zero for u8/u16, as `.clamp_(0, bound).to(dtype)`):
  - brightness: `settle(x * f)`;
  - grayscale (contrast, saturation): `gray = ((r * 0.2989f) + g * 0.587f) + b * 0.114f`, floored for
    u8/u16 (the constants are the doubles rounded to binary32);
  - contrast: `settle(x * f + rest * mean)`; `mean` over every pixel of the current image of `gray`
    (RGB) or of the value (gray images);
  - saturation (RGB only): `settle(x * f + rest * gray)`;
  - hue (RGB only): u8/u16 go to [0, 1] as `x * (float)(1 / max)`; `_rgb_to_hsv`: `maxc`, `minc`,
    `s = (maxc - minc) / (eq ? 1 : maxc)`, `rc, gc, bc = (maxc - c) / (eq ? 1 : maxc - minc)`,
    `h = bc - gc` (maxc == r), `(rc + 2) - bc` (maxc == g), `(gc + 4) - rc` (otherwise) — torchvision's
    masked sum of the three, whose masked-out terms are zeros — then `fmod(h * (float)(1/6) + 1, 1)`;
    `h = remainder(h + hue, 1)` (fmod, plus 1 when negative); `_hsv_to_rgb`: `i = floor(h * 6)`,
    `f = h * 6 - i`, `p = clamp01((1 - s) * v)`, `q = clamp01((1 - s*f) * v)`,
    `t = clamp01((s*f + (1 - s)) * v)`, picked by `i mod 6`; back to u8/u16 by
    `trunc(y * (float)(max + 1 - 0.001))` (saturated: for u16 this constant rounds to 65536).
  Gray images take brightness and contrast only; alpha is copied. 8- and 16-bit images are truncated
  back after each adjustment, as torchvision's returns the input dtype from each kernel.
- **The contrast mean** is computed the same way on every backend: a kernel over the pixels runs the
  adjustments before contrast; one item per row sums that row's floored gray values as uint64
  (doubles for float images, left to right) into scratch; one item adds the rows in order and writes
  `mean = (float)sum / (float)n` (float images: `(float)(sum / n)` in double); a last kernel runs
  contrast and the adjustments after it in place. torch sums a binary32 tensor (vectorised, pairwise):
  equal to the exact sum while every partial sum stays below 2^24 (e.g. u8 images up to 65 793 pixels);
  above that torch's binary32 sum may differ from the exact one in its last bits, and so may the mean,
  which moves a truncated output by 1 only where `x * f + rest * mean` lies within that error of an
  integer.
- **Where torchvision may differ by 1.** torchvision v2 writes `r.mul(0.2989).add_(g, alpha=0.587)` and
  `image1.mul(f).add_(image2, alpha=1 - f)`; PyTorch's vectorised `add` with `alpha` computes
  `fmadd(other, alpha, self)`, fused on CPUs with FMA and in CUDA builds. Here the product is rounded
  before the sum (torchvision v1's `ratio * img1 + (1 - ratio) * img2`, bit for bit), so a result within
  half an ulp of an integer may truncate to the other side of it in rare cases. Hue and brightness have
  no such sum and follow v2 exactly (torchvision v1's hue divides by 6 and writes
  `t = v * (1 - s * (1 - f))`, which rounds differently; this follows v2).
- **u16 and f32**: the same formulas with max 65535 or 1 (float images clamped to [0, 1] by each
  blend, as torchvision's `_max_value(float) = 1`).
)md",
      .imports = {
          {.name = "ColorJitter",
           .how = "brightness, contrast, saturation, hue as ranges; torchvision's arithmetic, not Albumentations' "
                  "OpenCV one",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "color_jitter"}};
            for (const char* k : {"brightness", "contrast", "saturation"}) {
              const double fallback_b = 0.2;
              if (!t.has(k)) {
                s[k] = ojson::array({1 - fallback_b, 1 + fallback_b});
                continue;
              }
              const nlohmann::json& v = t.saved().at(k);
              if (v.is_number()) s[k] = ojson::array({std::max(0.0, 1 - v.get<double>()), 1 + v.get<double>()});
              else s[k] = ojson::array({v.at(0), v.at(1)});
            }
            const auto [hlo, hhi] = t.limit("hue", {-0.2, 0.2}, true);
            s["hue"] = ojson::array({hlo, hhi});
            t.note("ColorJitter follows torchvision's formulas here; Albumentations' OpenCV-based ones differ slightly");
            return s;
          },
           .python = {
               {"ColorJitter",
                "brightness contrast saturation hue always_apply p",
                "brightness contrast saturation hue p",
                0.5}}}},
      .counterpart = {.none = "torchvision's four adjustments in a drawn order; OpenCV has no such call"},
  };
  return spec;
}

struct Range {
  double lo = 0, hi = 0;
};

class JitterOp final : public Op {
 public:
  JitterOp(const Shape& s, const int (&order)[4], const std::optional<double> (&factor)[4])
      : Op(s, s), order_{order[0], order[1], order[2], order[3]} {
    for (int i = 0; i < 4; ++i) factor_[i] = factor[i];
    args_.color_channels = color_channels(s);
    for (int k = 0; k < 4; ++k) {
      const int op = order[k];
      if (!factor[op]) continue;
      // Saturation and hue do nothing to a gray image.
      if (args_.color_channels == 1 && (op == k::kJitterSaturation || op == k::kJitterHue)) continue;
      args_.op[args_.count++] = op;
    }
    for (int op = 0; op < 4; ++op) {
      const double f = factor[op].value_or(op == k::kJitterHue ? 0.0 : 1.0);
      args_.ratio[op] = static_cast<float>(f);
      args_.rest[op] = static_cast<float>(1.0 - f);
    }
    args_.hue = args_.ratio[k::kJitterHue];
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (args_.count == 0) return copy_image(ctx, in, out);
    with_views(in, out, [&](auto src, auto dst) { k::color_jitter(src, dst, args_, ctx, ctx.exec()); });
  }

  nlohmann::json params() const override {
    nlohmann::json j;
    nlohmann::json order = nlohmann::json::array();
    for (int op : order_) order.push_back(kNames[op]);
    j["order"] = order;
    for (int op = 0; op < 4; ++op) j[kNames[op]] = factor_[op] ? nlohmann::json(*factor_[op]) : nlohmann::json();
    return j;
  }

 private:
  int order_[4];
  std::optional<double> factor_[4];
  k::JitterArgs args_{};
};

class ColorJitter final : public Stage {
 public:
  explicit ColorJitter(const StageConfig& c) {
    const Param<std::vector<double>>* params[4] = {&kBrightness, &kContrast, &kSaturation, &kHue};
    for (int op = 0; op < 4; ++op) {
      const std::vector<double>& v = c.get(*params[op]);
      const double centre = op == k::kJitterHue ? 0.0 : 1.0;
      Range r;
      if (v.size() == 1) {
        const double b = std::fabs(v[0]);
        r = op == k::kJitterHue ? Range{-b, b} : Range{std::max(0.0, 1.0 - b), 1.0 + b};
      } else if (v.size() == 2) {
        if (v[0] > v[1]) c.fail(*params[op], "= [" + std::to_string(v[0]) + ", " + std::to_string(v[1]) +
                                                  "]: the range's low end exceeds its high end");
        r = Range{v[0], v[1]};
      } else {
        c.fail(*params[op], "takes a number or [lo, hi], not " + std::to_string(v.size()) + " numbers");
      }
      // torchvision leaves an adjustment out when its range is the single neutral value.
      if (!(r.lo == centre && r.hi == centre)) range_[op] = r;
    }
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    int order[4] = {0, 1, 2, 3};  // torch.randperm(4): a uniform permutation (Fisher-Yates)
    for (int i = 3; i > 0; --i) std::swap(order[i], order[d.integer(0, i)]);
    std::optional<double> factor[4];
    for (int op = 0; op < 4; ++op)
      if (range_[op]) factor[op] = static_cast<double>(static_cast<float>(d.uniform(range_[op]->lo, range_[op]->hi)));
    return std::make_unique<JitterOp>(in, order, factor);
  }

 private:
  std::optional<Range> range_[4];
};

}  // namespace
}  // namespace color_jitter_impl

StageType color_jitter_stage() { return stage_type<color_jitter_impl::ColorJitter>(&color_jitter_impl::color_jitter_spec); }

}  // namespace aug
