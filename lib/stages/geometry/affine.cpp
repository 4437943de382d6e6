// affine: torchvision's RandomAffine (angle, translate, scale, shear about a centre) on the warp
// engine; 8-bit images equal cv::warpAffine with the recorded matrix.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include "lib/stages/geometry/warp_op.hpp"

namespace aug {

namespace affine_impl {
namespace {

const Param<NumberParam> kAngle{{.name = "angle",
                                 .doc = "rotation in degrees, positive clockwise on screen (torchvision's affine; "
                                        "rotate's angle turns the other way); [lo, hi] draws one per image (uniform); "
                                        "torchvision's degrees=d is [-d, d]",
                                 .default_value = 0.0,
                                 .random = true,
                                 .min = Bound{-360},
                                 .max = Bound{360}}};
const Param<std::vector<double>> kTranslate{
    {.name = "translate",
     .doc = "shift as fractions of the width and height (default none): [fx, fy] draws tx = "
            "round(U(-fx*W, fx*W)) and ty likewise (torchvision's draw, fx and fy in [0, 1]); one number f is "
            "[|f|, |f|]; [xlo, xhi, ylo, yhi] draws tx = round(U(xlo*W, xhi*W)) and ty = round(U(ylo*H, yhi*H)) "
            "(an asymmetric range, as Albumentations' translate_percent)",
     .optional = true,
     .min = Bound{-1},
     .max = Bound{1},
     .elements = "[fx, fy] or [xlo, xhi, ylo, yhi]"}};
const Param<std::vector<std::int64_t>> kTranslatePx{
    {.name = "translate_px",
     .doc = "shift in whole pixels instead of translate: [lo, hi] draws tx and ty each uniformly among the "
            "integers of [lo, hi]; one number n is [-|n|, |n|]; [xlo, xhi, ylo, yhi] gives each axis its own "
            "range (Albumentations' translate_px)",
     .optional = true,
     .min = Bound{-65536},
     .max = Bound{65536},
     .elements = "[lo, hi] or [xlo, xhi, ylo, yhi]"}};
const Param<std::vector<double>> kScale{{.name = "scale",
                                         .doc = "scale factor drawn uniformly in [lo, hi] (both axes alike); "
                                                "[xlo, xhi, ylo, yhi] draws the x and y factors apart",
                                         .default_value = std::vector<double>{1.0, 1.0},
                                         .min = Bound{0, true},
                                         .max = Bound{16},
                                         .elements = "[lo, hi] or [xlo, xhi, ylo, yhi]"}};
const Param<std::vector<double>> kShear{{.name = "shear",
                                         .doc = "shear in degrees: s (x-shear in [-|s|, |s|]), [lo, hi] (x only) or "
                                                "[xlo, xhi, ylo, yhi]",
                                         .default_value = 0.0,
                                         .min = Bound{-89, false},
                                         .max = Bound{89, false}}};
const Param<NumberPair> kCenter = warp_center_param(
    "centre of the rotation, scale and shear in input pixel coordinates (pixel "
    "centres at integers); default the image centre ((W-1)/2, (H-1)/2)");
const Param<bool> kFitOutput{{.name = "fit_output",
                              .doc = "grow and move the output so that the whole warped image fits (Albumentations' "
                                     "Affine fit_output); default false: the output keeps the input's size",
                              .default_value = false}};
const Param<bool> kRoundTranslate{{.name = "round_translate",
                                   .doc = "translate's shift rounded to whole pixels (torchvision's draw, the "
                                          "default); false keeps the fraction (Albumentations' ShiftScaleRotate and "
                                          "Affine translate_percent)",
                                   .default_value = true}};
const Choice<Interp> kInterpolation = warp_interpolation_param();
const Choice<Border> kBorder = warp_border_param();
const Param<std::vector<double>> kFill = fill_param();

const StageSpec& affine_spec() {
  static const StageSpec spec{
      .name = "affine",
      .family = "geometry",
      .summary = "Random affine transform as torchvision's RandomAffine: angle, integer translation, scale and "
                 "x/y shear about a centre; 8-bit equals cv::warpAffine with the recorded matrix.",
      .notes = {"Draws as torchvision v2's RandomAffine, in its order: angle ~ U(angle), tx = round(U(-fx*W, fx*W)) "
                "and ty = round(U(-fy*H, fy*H)) (half to even, as Python's round), scale ~ U(scale), shear_x ~ "
                "U(shear x range), shear_y ~ U(shear y range) (0 unless four values are given). One shear number s "
                "means [-|s|, |s|] (torchvision rejects a negative s); a single angle is used as is (torchvision's degrees=d is angle [-d, d]).",
                "The forward matrix is torchvision's _get_inverse_affine_matrix(inverted=False): translate · centre · "
                "rotate · scale · shear · centre⁻¹, with torchvision's affine sign: a positive angle turns the image "
                "clockwise on screen (the rotate stage, like torchvision's rotate, is counter-clockwise), shears in "
                "degrees. The centre defaults to ((W-1)/2, (H-1)/2) in pixel coordinates with pixel centres at "
                "integers (torchvision's `center` is ours + 0.5). The output keeps the input's size; with fit_output "
                "(Albumentations' Affine fit_output=True) it is moved and grown to hold the whole warped image.",
                "The manifest records the drawn values and the forward 3x3 `matrix` (what cv::warpAffine takes without "
                "WARP_INVERSE_MAP), `width`, `height`, `interpolation`, `border` and `fill`; 8-bit images equal "
                "cv::warpAffine with them to the bit.",
                "torchvision's default interpolation is nearest; here bilinear."},
      .params = {kAngle, kTranslate, kTranslatePx, kScale, kShear, kCenter, kFitOutput, kRoundTranslate, kInterpolation,
                 kBorder, kFill},
      .at_most_one_of = {{"translate", "translate_px"}},
      .tolerance = {.reason = "integer images: integer arithmetic on coordinate and weight tables computed once on "
                              "the host; float images: the same binary32 operations in the same order without FMA "
                              "contraction on every backend"},
      .example = {{"stage", "affine"},
                  {"angle", {-10, 10}},
                  {"translate", {0.1, 0.1}},
                  {"scale", {0.9, 1.1}},
                  {"shear", 5},
                  {"p", 0.5}},
      .cases = {R"({"angle": 20, "translate": [0.1, 0.2], "scale": [0.8, 1.2], "shear": 10})",
                R"({"angle": -3, "shear": [-5, 5, -3, 3], "interpolation": "nearest", "border": "replicate"})",
                R"({"angle": 1.5, "scale": [1.3, 1.3], "interpolation": "bicubic", "border": "reflect"})",
                R"({"angle": [-45, 45], "translate": [0.3, 0.3], "border": "reflect101"})",
                R"({"scale": [0.5, 0.6], "shear": [10, 20], "border": "wrap", "center": [1, 2]})",
                R"({"angle": 7, "translate": [0.5, 0.5], "fill": [255, 64, 0], "interpolation": "bicubic"})",
                R"({"translate": [-0.2, 0.1, 0, 0.3], "scale": [0.8, 1.0, 1.1, 1.3], "shear": [-4, 4, 0, 6]})",
                R"({"angle": [-5, 5], "translate_px": [-5, 9, 2, 4], "border": "reflect"})",
                R"({"angle": [-40, 40], "scale": [0.7, 1.3], "shear": 8, "fit_output": true, "fill": [9, 80, 200]})",
                R"({"angle": 90, "translate": [0.1, 0.1], "fit_output": true, "interpolation": "nearest"})",
                R"({"angle": [-15, 15], "translate": [0.07, 0.05], "scale": [0.9, 1.1], "round_translate": false})"},
      .identity = R"({"angle": 0, "translate": [0, 0], "scale": [1, 1], "shear": 0, "interpolation": "bicubic"})",
      .bench = {R"({"angle": 10, "translate": [0.1, 0.1], "scale": [1.1, 1.1], "shear": 5})",
                R"({"angle": -10, "shear": [-5, 5, -5, 5], "interpolation": "nearest"})",
                R"({"angle": 30, "scale": [0.9, 0.9], "fit_output": true})"},
      .arithmetic = R"md(
torchvision v2's RandomAffine draws, in its order: `angle ~ U`, `tx = rne(U(-fx*W, fx*W))`,
`ty = rne(U(-fy*H, fy*H))`, `scale ~ U`, `shear_x ~ U`, `shear_y ~ U`; the forward matrix is
`_get_inverse_affine_matrix(inverted=False)` in double: with `r`, `sx`, `sy` in radians,
`a = cos(r-sy)/cos(sy)`, `b = -cos(r-sy)*tan(sx)/cos(sy) - sin(r)`, `c = sin(r-sy)/cos(sy)`,
`d = -sin(r-sy)*tan(sx)/cos(sy) + cos(r)`, times the scale, then `m2 = m0*(-cx) + m1*(-cy) + cx + tx`
(`m5` likewise): T·C·R·S·SHy·SHx·C⁻¹. A positive angle turns clockwise on screen, as torchvision's affine.

Beyond torchvision, for pipelines imported from Albumentations' Affine:
- `translate: [xlo, xhi, ylo, yhi]` draws `tx = rne(U(xlo*W, xhi*W))`, `ty = rne(U(ylo*H, yhi*H))`
  (an asymmetric range); `translate_px: [xlo, xhi, ylo, yhi]` (or `[lo, hi]` for both) draws each
  shift uniformly among the integers of its range. Either takes the place of the two shift draws.
- `scale: [xlo, xhi, ylo, yhi]` draws `scale_x`, then `scale_y`, in the place of the one scale draw,
  and S becomes `diag(scale_x, scale_y)` applied first (the columns of R·SHy·SHx scaled: `a*scale_x`,
  `b*scale_y`, `c*scale_x`, `d*scale_y`); with one scale this is the matrix above, entry for entry.

`fit_output` (Albumentations' Affine `fit_output=True`): the corners `(0, 0)`, `(0, H-1)`,
`(W-1, H-1)`, `(W-1, 0)` go through the matrix in double (`(m0 x + m1 y) + m2`, the y row likewise);
with their minima `minc`, `minr` and maxima `maxc`, `maxr` the output is
`ceil(maxc - minc + 1)` wide and `ceil(maxr - minr + 1)` high (at least 1), and the matrix's
translation becomes `m2 - minc`, `m5 - minr` (the shift that puts the warped image's top-left corner
at 0, applied after the matrix). Labels and masks move with the same matrix onto the same canvas.

The matrix is resolved on the host; the pixels are the [warp engine](../arithmetic.md#warp-engine)'s, so 8-bit outputs equal `cv::warpAffine` / `cv::warpPerspective` run with the `matrix`, `width`, `height`, `interpolation`, `border` and `fill` the manifest records.
)md",
      .imports = {
          {.name = "ShiftScaleRotate",
           .how = "rotate_limit r is angle [-r, r]; scale_limit l is scale [1 - l, 1 + l]; shift_limit f is "
                  "translate f with round_translate false (fractions of a pixel kept); border_mode (default "
                  "reflect101), value",
           .convert = [](const TransformReader& t) {
            // Albumentations' later 2.x releases name the limits *_range.
            const auto [rlo, rhi] = t.limit(t.first_of({"rotate_limit", "rotate_range"}), {-45, 45}, true);
            const auto [slo, shi] = t.limit(t.first_of({"scale_limit", "scale_range"}), {-0.1, 0.1}, true);
            const auto [tlo, thi] = t.limit(t.first_of({"shift_limit", "shift_range"}), {-0.0625, 0.0625}, true);
            double fx = std::max(std::fabs(tlo), std::fabs(thi)), fy = fx;
            if (const char* k = t.first_of({"shift_limit_x", "shift_range_x"}); t.has(k))
              fx = std::fabs(t.limit(k, {0, 0}, true).second);
            if (const char* k = t.first_of({"shift_limit_y", "shift_range_y"}); t.has(k))
              fy = std::fabs(t.limit(k, {0, 0}, true).second);
            if (tlo != -thi) t.note("shift range made symmetric: translate " + std::to_string(fx));
            ojson s{{"stage", "affine"}};
            s["angle"] = span(-rhi, -rlo);  // counter-clockwise there, clockwise here
            s["translate"] = ojson::array({fx, fy});
            s["round_translate"] = false;
            // From 1.4 ShiftScaleRotate is Affine with keep_ratio false: x and y scales drawn apart.
            const auto [major, minor] = t.release();
            if (major >= 2 || (major == 1 && minor >= 4)) s["scale"] = ojson::array({1 + slo, 1 + shi, 1 + slo, 1 + shi});
            else s["scale"] = ojson::array({1 + slo, 1 + shi});
            s["interpolation"] = t.warp_interpolation();
            s["border"] = t.border(t.release_2() ? 0 : 4);  // 2.x's default is constant, 1.x's reflect101
            t.fill(s);
            t.mask_fill();
            return s;
          },
           .python = {
               {"ShiftScaleRotate",
                "shift_limit scale_limit rotate_limit interpolation border_mode value mask_value shift_limit_x "
                "shift_limit_y rotate_method always_apply p",
                "shift_limit scale_limit rotate_limit interpolation border_mode shift_limit_x shift_limit_y "
                "rotate_method mask_interpolation fill fill_mask p",
                0.5}}},
          {.name = "Affine",
           .how = "scale (per axis too, keep_ratio), translate_percent and translate_px (asymmetric and per axis "
                  "too), rotate, shear: a number is that value for every image, a pair a range, as Albumentations "
                  "reads them; fit_output, interpolation, mode / border_mode, cval / fill",
           .convert = [](const TransformReader& t) {
            // Albumentations reads each of these as to_tuple(v, v): a number is that value for every
            // image (not a range around 0), a pair a range; a dict {x, y} per axis, an axis it leaves
            // out taking `missing` (1 for scale and, as Albumentations' code has it, for shear; 0 for
            // the translations).
            using Range = std::pair<double, double>;
            auto range_of = [&](const nlohmann::json& v, const std::string& what) -> Range {
              if (v.is_number()) return {v.get<double>(), v.get<double>()};
              if (v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number())
                return {std::min(v[0].get<double>(), v[1].get<double>()), std::max(v[0].get<double>(), v[1].get<double>())};
              t.fail("\"" + what + "\" must be a number, a pair of numbers or {\"x\": ..., \"y\": ...}, not " + v.dump());
            };
            auto axis_pair = [&](const char* key, Range fallback, double missing) {
              if (!t.has(key)) return std::pair{fallback, fallback};
              const nlohmann::json& v = t.saved().at(key);
              if (!v.is_object()) return std::pair{range_of(v, key), range_of(v, key)};
              const Range m{missing, missing};
              const Range x = v.contains("x") && !v.at("x").is_null() ? range_of(v.at("x"), std::string(key) + ".x") : m;
              const Range y = v.contains("y") && !v.at("y").is_null() ? range_of(v.at("y"), std::string(key) + ".y") : m;
              return std::pair{x, y};
            };
            ojson s{{"stage", "affine"}};
            // 1.x (before 2.0): with none of the five given, Affine drew from its own defaults.
            const bool none_given = !t.has("scale") && !t.has("translate_percent") && !t.has("translate_px") &&
                                    !t.has("rotate") && !t.has("shear");
            if (none_given && !t.release_2()) {
              s["scale"] = ojson::array({0.9, 1.1, 0.9, 1.1});
              s["translate"] = ojson::array({0.1, 0.1});
              s["round_translate"] = false;
              s["angle"] = ojson::array({-15.0, 15.0});
              s["shear"] = ojson::array({-10.0, 10.0, -10.0, 10.0});
              t.note("Affine with none of scale, translate, rotate and shear: 1.x's defaults (scale 0.9-1.1 per axis, "
                     "translate 0.1, rotate 15, shear 10; 2.x's are the identity, --release 2)");
            } else {
              const auto [sx, sy] = axis_pair("scale", {1, 1}, 1);
              // The two axes' scales are drawn apart unless keep_ratio ties them (or they are one value).
              if (t.flag("keep_ratio", false) || (sx == sy && sx.first == sx.second)) {
                if (sx != sy) t.note("keep_ratio: the y scale is the x scale, as Albumentations draws it");
                s["scale"] = ojson::array({sx.first, sx.second});
              } else {
                s["scale"] = ojson::array({sx.first, sx.second, sy.first, sy.second});
              }
              if (t.has("translate_px")) {
                if (t.has("translate_percent")) t.fail("translate_percent and translate_px are both given");
                const auto [px, py] = axis_pair("translate_px", {0, 0}, 0);
                s["translate_px"] = ojson::array({std::lround(px.first), std::lround(px.second), std::lround(py.first),
                                                  std::lround(py.second)});
              } else {
                const auto [tx, ty] = axis_pair("translate_percent", {0, 0}, 0);
                if (tx.first == -tx.second && ty.first == -ty.second)
                  s["translate"] = ojson::array({tx.second, ty.second});
                else
                  s["translate"] = ojson::array({tx.first, tx.second, ty.first, ty.second});
                if (tx != std::pair{0.0, 0.0} || ty != std::pair{0.0, 0.0})
                  s["round_translate"] = false;
              }
              const auto [rlo, rhi] = axis_pair("rotate", {0, 0}, 0).first;
              s["angle"] = span(rlo, rhi);
              if (rlo != -rhi) t.note("rotate range used as is: affine's angle is clockwise; check the direction");
              const auto [shx, shy] = axis_pair("shear", {0, 0}, 1);
              s["shear"] = ojson::array({shx.first, shx.second, shy.first, shy.second});
              if (t.flag("fit_output", false)) s["fit_output"] = true;
            }
            s["interpolation"] = t.warp_interpolation();
            s["border"] = t.border(0);
            t.fill(s);
            t.mask_fill();
            return s;
          },
           .python = {
               {"Affine",
                "scale translate_percent translate_px rotate shear interpolation mask_interpolation cval cval_mask "
                "mode fit_output keep_ratio rotate_method always_apply p",
                "scale translate_percent translate_px rotate shear interpolation mask_interpolation fit_output "
                "keep_ratio rotate_method balanced_scale border_mode fill fill_mask p",
                0.5}}}},
      .counterpart = warp_counterpart(),
  };
  return spec;
}

// [lo, hi] from a list of 2 (or [v, v] from one number), for the axis `axis` (0 x, 1 y) of a list of 4.
template <class T>
std::array<T, 2> axis_range(const std::vector<T>& v, int axis) {
  if (v.size() == 1) return {v[0], v[0]};
  if (v.size() == 2) return {v[0], v[1]};
  return {v[2 * axis], v[2 * axis + 1]};
}

// Albumentations' compute_affine_warp_output_shape: the input's corners (0, 0), (0, H-1), (W-1, H-1),
// (W-1, 0) through the matrix in double; the output is ceil(max - min + 1) per axis and the matrix is
// followed by the shift (-min x, -min y).
void fit_affine_output(Warp& w, int width, int height) {
  const double xs[4] = {0, 0, width - 1.0, width - 1.0}, ys[4] = {0, height - 1.0, height - 1.0, 0};
  const std::array<double, 9>& m = w.matrix;
  double minc = 0, minr = 0, maxc = 0, maxr = 0;
  for (int i = 0; i < 4; ++i) {
    const double c = (m[0] * xs[i] + m[1] * ys[i]) + m[2], r = (m[3] * xs[i] + m[4] * ys[i]) + m[5];
    minc = i == 0 ? c : std::min(minc, c), maxc = i == 0 ? c : std::max(maxc, c);
    minr = i == 0 ? r : std::min(minr, r), maxr = i == 0 ? r : std::max(maxr, r);
  }
  w.out_width = std::max(1, static_cast<int>(std::ceil(maxc - minc + 1)));
  w.out_height = std::max(1, static_cast<int>(std::ceil(maxr - minr + 1)));
  w.matrix[2] = m[2] + -minc;
  w.matrix[5] = m[5] + -minr;
}

class Affine final : public Stage {
 public:
  explicit Affine(const StageConfig& c)
      : angle_(c.get(kAngle)),
        interp_(c.get(kInterpolation)),
        border_(c.get(kBorder)),
        fill_(warp_fill(c.get(kFill))),
        fit_output_(c.get(kFitOutput)), round_translate_(c.get(kRoundTranslate)) {
    if (c.has(kCenter)) center_ = c.get(kCenter);
    const std::vector<double>& s = c.get(kShear);
    if (s.size() == 1) {
      shear_x_ = {-std::fabs(s[0]), std::fabs(s[0])};
    } else if (s.size() == 2 || s.size() == 4) {
      shear_x_ = {s[0], s[1]};
      if (s.size() == 4) shear_y_ = {s[2], s[3]};
      if (shear_x_[0] > shear_x_[1] || shear_y_[0] > shear_y_[1])
        c.fail(kShear, "ranges must be [lo, hi] with lo <= hi");
    } else {
      c.fail(kShear, "takes 1, 2 or 4 numbers, not " + std::to_string(s.size()));
    }

    const std::vector<double>& sc = c.get(kScale);
    if (sc.size() != 1 && sc.size() != 2 && sc.size() != 4)
      c.fail(kScale, "takes 1, 2 or 4 numbers, not " + std::to_string(sc.size()));
    per_axis_scale_ = sc.size() == 4;
    scale_x_ = axis_range(sc, 0), scale_y_ = axis_range(sc, 1);
    if (scale_x_[0] > scale_x_[1] || scale_y_[0] > scale_y_[1]) c.fail(kScale, "ranges must be [lo, hi] with lo <= hi");

    if (c.has(kTranslatePx)) {
      const std::vector<std::int64_t>& t = c.get(kTranslatePx);
      if (t.size() != 1 && t.size() != 2 && t.size() != 4)
        c.fail(kTranslatePx, "takes 1, 2 or 4 integers, not " + std::to_string(t.size()));
      px_x_ = axis_range(t, 0), px_y_ = axis_range(t, 1);
      if (t.size() == 1) px_x_ = px_y_ = {-std::abs(t[0]), std::abs(t[0])};
      if (px_x_[0] > px_x_[1] || px_y_[0] > px_y_[1]) c.fail(kTranslatePx, "ranges must be [lo, hi] with lo <= hi");
      pixels_ = true;
    } else if (c.has(kTranslate)) {
      const std::vector<double>& t = c.get(kTranslate);
      if (t.size() == 1) {
        translate_x_ = translate_y_ = {-std::fabs(t[0]), std::fabs(t[0])};
      } else if (t.size() == 2) {
        const double fx = t[0], fy = t[1];
        if (fx < 0 || fy < 0)
          c.fail(kTranslate, "[fx, fy] are the largest shifts and cannot be negative; [xlo, xhi, ylo, yhi] takes "
                             "an asymmetric range");
        translate_x_ = {-fx, fx}, translate_y_ = {-fy, fy};
      } else if (t.size() == 4) {
        translate_x_ = {t[0], t[1]}, translate_y_ = {t[2], t[3]};
        if (t[0] > t[1] || t[2] > t[3]) c.fail(kTranslate, "ranges must be [lo, hi] with lo <= hi");
      } else {
        c.fail(kTranslate, "takes 1, 2 or 4 numbers, not " + std::to_string(t.size()));
      }
    }
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    // torchvision v2 RandomAffine._get_params, in its order (the per-axis forms draw x, then y, in
    // the same places).
    const double angle = angle_.sample(d);
    double tx, ty;
    if (pixels_) {
      tx = static_cast<double>(d.integer(px_x_[0], px_x_[1]));
      ty = static_cast<double>(d.integer(px_y_[0], px_y_[1]));
    } else {
      tx = d.uniform(translate_x_[0] * in.width, translate_x_[1] * in.width);
      ty = d.uniform(translate_y_[0] * in.height, translate_y_[1] * in.height);
      if (round_translate_) tx = std::nearbyint(tx), ty = std::nearbyint(ty);
    }
    const double scale_x = d.uniform(scale_x_[0], scale_x_[1]);
    const double scale_y = per_axis_scale_ ? d.uniform(scale_y_[0], scale_y_[1]) : scale_x;
    const double shear_x = d.uniform(shear_x_[0], shear_x_[1]);
    const double shear_y = d.uniform(shear_y_[0], shear_y_[1]);
    Warp w;
    w.interp = interp_.sample(d);
    w.border = border_.sample(d);
    w.fill = fill_;
    w.out_width = in.width;
    w.out_height = in.height;
    const double cx = center_ ? (*center_)[0] : (in.width - 1) * 0.5;
    const double cy = center_ ? (*center_)[1] : (in.height - 1) * 0.5;
    if (angle != 0.0 || tx != 0.0 || ty != 0.0 || scale_x != 1.0 || scale_y != 1.0 || shear_x != 0.0 ||
        shear_y != 0.0)
      w.matrix = torchvision_affine_forward(cx, cy, angle, tx, ty, scale_x, scale_y, shear_x, shear_y);
    if (fit_output_) fit_affine_output(w, in.width, in.height);
    nlohmann::json drawn{{"angle", angle},
                         {"translate", {static_cast<long long>(tx), static_cast<long long>(ty)}},

                         {"scale", scale_x},
                         {"shear", {shear_x, shear_y}}};
    if (per_axis_scale_) drawn["scale"] = {scale_x, scale_y};
    if (!round_translate_ && !pixels_) drawn["translate"] = {tx, ty};
    return std::make_unique<WarpOp>(in, w, drawn);
  }

 private:
  NumberParam angle_;
  NumberPair translate_x_{0, 0}, translate_y_{0, 0};
  IntPair px_x_{0, 0}, px_y_{0, 0};
  bool pixels_ = false;
  NumberPair scale_x_{1, 1}, scale_y_{1, 1};
  bool per_axis_scale_ = false;
  NumberPair shear_x_{0, 0}, shear_y_{0, 0};
  Drawn<Interp> interp_;
  Drawn<Border> border_;
  std::array<double, 4> fill_;
  std::optional<NumberPair> center_;
  bool fit_output_;
  bool round_translate_;
};

}  // namespace
}  // namespace affine_impl

StageType affine_stage() { return stage_type<affine_impl::Affine>(&affine_impl::affine_spec); }

}  // namespace aug
