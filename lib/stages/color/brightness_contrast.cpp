// brightness_contrast: Albumentations' RandomBrightnessContrast (2.x arithmetic), y = x * alpha + beta.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include <opencv2/core.hpp>

#include "kernels/color/brightness_contrast.hpp"
#include "lib/stages/engines/pointwise.hpp"  // color_channels
#include "lib/stages/stage.hpp"

namespace aug {

namespace brightness_contrast_impl {
namespace {

const Param<NumberParam> kBrightness{{.name = "brightness",
                                      .doc = "the brightness drawn per image, a fraction of the range (by max) or "
                                             "of the mean; [lo, hi] draws one per image (Albumentations' "
                                             "brightness_limit)",
                                      .default_value = {-0.2, 0.2},
                                      .random = true,
                                      .min = Bound{-1},
                                      .max = Bound{1}}};
const Param<NumberParam> kContrast{{.name = "contrast",
                                    .doc = "alpha = 1 + the contrast drawn per image; [lo, hi] draws one per image "
                                           "(Albumentations' contrast_limit)",
                                    .default_value = {-0.2, 0.2},
                                    .random = true,
                                    .min = Bound{-10},
                                    .max = Bound{10}}};
const Param<bool> kByMax{{.name = "brightness_by_max",
                          .doc = "beta = brightness * max (255, 65535 or 1); false: brightness * the mean of the "
                                 "image's colour channels",
                          .default_value = true}};
const Param<bool> kSafeRange{{.name = "ensure_safe_range",
                              .doc = "Albumentations' safe range: beta clipped to [0, max] and alpha lowered so that "
                                     "max stays within range (alpha <= 0: the mirror rule)",
                              .default_value = false}};

// The 8-bit table of resolved parameters (counterpart), as the kernels compute it.
std::vector<std::uint8_t> table_u8(const k::BrightnessContrastCoefficients& k) {
  std::vector<std::uint8_t> t(256);
  for (int v = 0; v < 256; ++v) t[v] = k::brightness_contrast_value(static_cast<std::uint8_t>(v), k);
  return t;
}

k::BrightnessContrastArgs args_of(const nlohmann::json& m, int color_channels) {
  return {.alpha = m.at("alpha").get<double>(),
          .brightness = m.at("brightness").get<double>(),
          .by_max = m.at("brightness_by_max").get<bool>() ? 1 : 0,
          .safe_range = m.at("ensure_safe_range").get<bool>() ? 1 : 0,
          .color_channels = color_channels};
}

const StageSpec& brightness_contrast_spec() {
  static const StageSpec spec{
      .name = "brightness_contrast",
      .family = "color",
      .summary = "Random brightness and contrast, y = x * alpha + beta (Albumentations RandomBrightnessContrast); "
                 "8-bit images equal Albumentations' table to the bit.",
      .notes = {"As Albumentations 2.x's RandomBrightnessContrast: alpha = 1 + contrast and the brightness are drawn "
                "in that order, beta = brightness * max (brightness_by_max) or brightness * the mean of the image, "
                "optionally brought into Albumentations' safe range; then y = x * alpha + beta, clipped to the "
                "range and truncated for integer images. Contrast scales around 0, not around the mean, as "
                "Albumentations' code does. Alpha is copied, and the mean is taken over the colour channels only "
                "(Albumentations averages every channel of the array; the same for RGB and gray images). Its "
                "default p is 0.5, as here.",
                "Albumentations 1.x differed only without brightness_by_max, adding alpha * brightness * mean."},
      .params = {kBrightness, kContrast, kByMax, kSafeRange},
      .default_p = 0.5,
      .tolerance = {.reason = "the same binary32 and double operations in the same order on every backend: a table "
                              "of every value for integer images, a per-value formula for float images; the mean is "
                              "a sum in a fixed order"},
      .example = {{"stage", "brightness_contrast"}, {"brightness", {-0.2, 0.2}}, {"contrast", {-0.2, 0.2}}, {"p", 0.5}},
      .cases = {R"({"brightness": 0.1, "contrast": 0.3})", R"({"brightness": [-0.4, 0.4], "contrast": [-0.5, 0.5]})",
                R"({"brightness": 0.3, "contrast": -0.2, "brightness_by_max": false})",
                R"({"brightness": [-0.9, 0.9], "contrast": [-1.5, 1.5], "ensure_safe_range": true})",
                R"({"brightness": -0.5, "contrast": -1.2, "brightness_by_max": false, "ensure_safe_range": true})"},
      .no_identity = "float images are clipped to [0, 1] even at alpha 1, beta 0 (integer images are unchanged "
                     "then)",
      .bench = {R"({"brightness": 0.2, "contrast": 0.2})",
                R"({"brightness": 0.2, "contrast": 0.2, "brightness_by_max": false})"},
      .arithmetic = R"md(
Albumentations 2.x's **RandomBrightnessContrast** (default `p` 0.5), through albucore's `multiply_add`.

- **Draws**, in Albumentations' order: `alpha = 1 + uniform(contrast)`, then `b = uniform(brightness)`.
- **beta**: `b * max` (max 255, 65535 or 1) with `brightness_by_max`, else `b * mean`, the mean of the
  colour channels over every pixel in double: per-row sums (exact integers; doubles for float images,
  each row left to right), then the rows in order, divided by the count.
- **Safe range** (`ensure_safe_range`), in double: `alpha > 0`: `beta = clip(beta, 0, max)`,
  `alpha = min(alpha, (max - beta) / max)`; otherwise `beta = min(beta, max)`,
  `alpha = max(alpha, -beta / max)`.
- **8 and 16 bits**, a table of every value (the pointwise engine): `s = (float)v * (float)alpha` in
  binary32; by max, `t = s + (float)beta` in binary32 (beta a Python float); by the mean,
  `t = (double)s + beta` in double (NumPy 2 promotes the sum for albucore's float64 beta); then
  `clip(t, 0, max)` and truncation toward zero (numpy's `astype`). 16-bit images take the same rule
  with max 65535 (albucore's uint8 table, widened).
- **Float**: `clip((double)v * (float)alpha + (float)beta, 0, 1)` in double, rounded to binary32
  (albucore's `cv2` path with `dtype=CV_64F`).
- Alpha is copied. Albumentations 1.x computes the same table by max; by the mean it adds
  `alpha * b * mean` instead, which the importer notes.
- **Checked** (`tests/stages/test_brightness_contrast.cpp`): every 8- and 16-bit value against the
  formula written out with numpy's promotions, photographs by max and by the mean, float images, the
  safe range, and the draws against uniform distributions.
)md",
      .imports =
          {{.name = "RandomBrightnessContrast",
            .how = "brightness_limit is brightness, contrast_limit is contrast (a number x: [-x, x]); "
                   "brightness_by_max, ensure_safe_range",
            .convert =
                [](const TransformReader& t) {
                  const auto [blo, bhi] = t.limit("brightness_limit", {-0.2, 0.2}, true);
                  const auto [clo, chi] = t.limit("contrast_limit", {-0.2, 0.2}, true);
                  ojson s{{"stage", "brightness_contrast"}, {"brightness", span(blo, bhi)}, {"contrast", span(clo, chi)}};
                  s["brightness_by_max"] = t.flag("brightness_by_max", true);
                  s["ensure_safe_range"] = t.flag("ensure_safe_range", false);
                  if (!s["brightness_by_max"].get<bool>())
                    t.note("brightness_by_max false: beta = brightness * mean, as Albumentations 2.x; 1.x added "
                           "alpha * brightness * mean");
                  return s;
                },
            .python = {
                {"RandomBrightnessContrast",
                 "brightness_limit contrast_limit brightness_by_max always_apply p",
                 "brightness_limit contrast_limit brightness_by_max ensure_safe_range p",
                 0.5}}},
           {.name = "RandomBrightness",
            .how = "(1.x) limit is brightness, contrast 0",
            .convert =
                [](const TransformReader& t) {
                  const auto [lo, hi] = t.limit("limit", {-0.2, 0.2}, true);
                  ojson s{{"stage", "brightness_contrast"}, {"brightness", span(lo, hi)}, {"contrast", 0.0}};
                  s["brightness_by_max"] = t.flag("brightness_by_max", true);
                  return s;
                },
            .python = {{"RandomBrightness", "limit always_apply p", "-", 0.5}}},
           {.name = "RandomContrast",
            .how = "(1.x) limit is contrast, brightness 0",
            .convert =
                [](const TransformReader& t) {
                  const auto [lo, hi] = t.limit("limit", {-0.2, 0.2}, true);
                  return ojson{{"stage", "brightness_contrast"}, {"brightness", 0.0}, {"contrast", span(lo, hi)}};
                },
            .python = {{"RandomContrast", "limit always_apply p", "-", 0.5}}}},
      .counterpart = {.call = "cv::LUT (after cv::mean without brightness_by_max)",
                      .how = "the table of the resolved alpha and brightness",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const int cn = src.channels();
                        const int cc = cn == 4 ? 3 : cn;
                        const k::BrightnessContrastArgs a = args_of(m, cc);
                        if (cc != cn) return {};  // cv::LUT would change alpha too
                        return [&dst, src, a, cc] {
                          double mean = 0;
                          if (!a.by_max) {
                            const cv::Scalar s = cv::mean(src);
                            for (int c = 0; c < cc; ++c) mean += s[c];
                            mean /= cc;
                          }
                          const std::vector<std::uint8_t> t =
                              table_u8(k::brightness_contrast_coefficients(a, 255.0, mean));
                          cv::LUT(src, cv::Mat(1, 256, CV_8U, const_cast<std::uint8_t*>(t.data())), dst);
                        };
                      }},
  };
  return spec;
}

class BrightnessContrastOp final : public Op {
 public:
  BrightnessContrastOp(const Shape& s, const k::BrightnessContrastArgs& a) : Op(s, s), a_(a) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    with_views(in, out, [&](auto src, auto dst) { k::brightness_contrast(src, dst, a_, ctx, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{"alpha", a_.alpha},
            {"brightness", a_.brightness},
            {kByMax.name, a_.by_max != 0},
            {kSafeRange.name, a_.safe_range != 0}};
  }

 private:
  k::BrightnessContrastArgs a_;
};

class BrightnessContrast final : public Stage {
 public:
  explicit BrightnessContrast(const StageConfig& c)
      : brightness_(c.get(kBrightness)), contrast_(c.get(kContrast)), by_max_(c.get(kByMax)),
        safe_range_(c.get(kSafeRange)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double alpha = 1.0 + contrast_.sample(d);
    const double brightness = brightness_.sample(d);
    return std::make_unique<BrightnessContrastOp>(in, k::BrightnessContrastArgs{.alpha = alpha,
                                                                                .brightness = brightness,
                                                                                .by_max = by_max_ ? 1 : 0,
                                                                                .safe_range = safe_range_ ? 1 : 0,
                                                                                .color_channels = color_channels(in)});
  }

 private:
  NumberParam brightness_, contrast_;
  bool by_max_, safe_range_;
};

}  // namespace
}  // namespace brightness_contrast_impl

StageType brightness_contrast_stage() { return stage_type<brightness_contrast_impl::BrightnessContrast>(&brightness_contrast_impl::brightness_contrast_spec); }

}  // namespace aug
