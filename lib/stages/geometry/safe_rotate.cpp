// safe_rotate: Albumentations' SafeRotate (the whole rotated image scaled into the input's frame) on
// the warp engine; 8-bit nearest/bilinear/bicubic equal cv::warpAffine with the recorded matrix.
#include <algorithm>
#include <array>
#include <cmath>

#include "lib/stages/geometry/warp_op.hpp"

namespace aug {

namespace safe_rotate_impl {
namespace {

const Param<NumberParam> kLimit{{.name = "limit",
                                 .doc = "rotation in degrees, positive counter-clockwise on screen (OpenCV's "
                                        "getRotationMatrix2D, as Albumentations); [lo, hi] draws one per image "
                                        "(uniform); Albumentations' limit=d is [-d, d]",
                                 .default_value = {-90.0, 90.0},
                                 .random = true,
                                 .min = Bound{-360},
                                 .max = Bound{360}}};
const Choice<Interp> kInterpolation = warp_interpolation_param();
const Choice<Border> kBorder = warp_border_param();
const Param<std::vector<double>> kFill = fill_param();
const Param<bool> kLegacy{{.name = "legacy_1x",
                           .doc = "Albumentations up to 1.3's matrix: rotation about (W/2, H/2) and the enclosing "
                                  "size rounded up (ceil), where 1.4 and 2.x rotate about ((W-1)/2, (H-1)/2) and "
                                  "truncate it (int)",
                           .default_value = false}};

const StageSpec& safe_rotate_spec() {
  static const StageSpec spec{
      .name = "safe_rotate",
      .family = "geometry",
      .summary = "Rotate by a drawn angle and scale the whole rotated image into the input's frame, so that no "
                 "corner is cut (Albumentations SafeRotate); 8-bit equals cv::warpAffine with the recorded matrix.",
      .notes = {"As Albumentations 2.x (a subclass of Affine with fit_output): the angle is drawn uniformly from "
                "limit, the rotation is OpenCV's getRotationMatrix2D about ((W-1)/2, (H-1)/2), the rotated image's "
                "enclosing size new_w = int(H|sin| + W|cos|), new_h = int(H|cos| + W|sin|) is centred and then "
                "scaled by (W/new_w, H/new_h) back to W x H. legacy_1x gives Albumentations 1.3's matrix (centre "
                "(W/2, H/2), ceil).",
                "Albumentations 2.x's default border is constant with fill 0 (here too); 1.x's was reflect101, which "
                "`augment import albumentations` writes for a 1.x pipeline that names no border_mode. Albumentations' "
                "border_mode, value / fill are border and fill here; its mask fill is the pipeline's.",
                "The manifest records the forward 3x3 `matrix`, `width`, `height`, `interpolation`, `border` and "
                "`fill`; 8-bit images equal cv::warpAffine with them to the bit (docs/arithmetic.md, the warp "
                "engine). Boxes, points, polygons and masks move through the same matrix (Albumentations 2.x moves "
                "boxes by the matrix about (W/2, H/2), half a pixel's rotation apart, and offers an 'ellipse' box "
                "method, not reproduced)."},
      .params = {kLimit, kInterpolation, kBorder, kFill, kLegacy},
      .tolerance = {.reason = "integer images: integer arithmetic on coordinate and weight tables computed once on "
                              "the host; float images: the same binary32 operations in the same order without FMA "
                              "contraction on every backend"},
      .example = {{"stage", "safe_rotate"}, {"limit", {-45, 45}}, {"p", 0.5}},
      .cases = {R"({"limit": 30})",
                R"({"limit": [-45, 45], "interpolation": "nearest", "border": "replicate"})",
                R"({"limit": -75, "interpolation": "bicubic", "border": "reflect101", "legacy_1x": true})",
                R"({"limit": [90, 90], "border": "wrap"})",
                R"({"limit": 12, "border": "constant", "fill": [255, 0, 128]})"},
      .identity = R"({"limit": 0, "legacy_1x": true, "interpolation": "bicubic"})",
      .bench = {R"({"limit": 30, "interpolation": "bilinear"})", R"({"limit": -45, "interpolation": "nearest"})"},
      .arithmetic = R"md(
Albumentations' SafeRotate: with `θ = uniform(limit)` (degrees, counter-clockwise on screen) and the
centre `(cx, cy) = ((W-1)/2, (H-1)/2)`,

- `R = getRotationMatrix2D((cx, cy), θ, 1)` = `[[a, b, (1-a)cx - b cy], [-b, a, b cx + (1-a)cy]]`,
  `a = cos θ`, `b = sin θ`;
- `new_w = int(H|b| + W|a|)`, `new_h = int(H|a| + W|b|)` (at least 1); `R[0][2] += new_w/2 - cx`,
  `R[1][2] += new_h/2 - cy`;
- `M = diag(W/new_w, H/new_h) · R`, the output `W x H`.

`legacy_1x` (Albumentations up to 1.3): the centre `(W/2, H/2)` and `new_w = ceil(...)`,
`new_h = ceil(...)`.

At `θ = 0` the 2.x matrix is not the identity: `new_w = W`, and the centre `(W-1)/2` is moved
to `new_w/2`, half a pixel right (and down): Albumentations shifts the image by half a pixel there,
and so does this stage. The 1.3 matrix at `θ = 0` is the identity (the image is copied).

The matrix is resolved on the host; the pixels are the [warp engine](../arithmetic.md#warp-engine)'s, so 8-bit outputs equal `cv::warpAffine` run with the `matrix`, `width`, `height`, `interpolation`, `border` and `fill` the manifest records.
)md",
      .imports = {
          {.name = "SafeRotate",
           .how = "limit l is [-l, l]; interpolation; border_mode (default reflect101 for 1.x, constant for 2.x); "
                  "value / fill; 1.3's matrix for a 1.3 or older file, or one of unknown release with no 1.4+ parameter",
           .convert = [](const TransformReader& t) {
            // fill / fill_mask are 2.x's names; rotate_method and mask_interpolation came with 1.4's Affine-based
            // SafeRotate. Without any of them the transform reads as 1.3's (value / mask_value, reflect101).
            // The release, where the file says it (A.save's __version__, or the Python's 2.x-only names).
            const auto [major, minor] = t.release();
            const bool v2 = major >= 2 || t.has("fill") || t.has("fill_mask");
            const bool v14 = v2 || (major == 1 && minor >= 4) || t.has("rotate_method") || t.has("mask_interpolation");
            if (t.has("rotate_method") && t.saved().at("rotate_method") != "largest_box")
              t.note("rotate_method " + t.saved().at("rotate_method").dump() +
                     ": boxes move by their corners (largest_box)");
            const auto [lo, hi] = t.limit("limit", {-90, 90}, true);
            ojson s{{"stage", "safe_rotate"}};
            s["limit"] = span(lo, hi);
            s["interpolation"] = t.warp_interpolation();
            s["border"] = t.border(v2 ? 0 : 4);
            t.fill(s);
            t.mask_fill();
            if (!v14) s["legacy_1x"] = true;
            return s;
          },
           .python = {
               {"SafeRotate",
                "limit interpolation border_mode value mask_value always_apply p",
                "limit interpolation border_mode rotate_method mask_interpolation fill fill_mask p",
                0.5}}}},
      .counterpart = warp_counterpart(),
  };
  return spec;
}

// Albumentations' _create_safe_rotate_matrix (1.3's safe-rotate parameters with `legacy`): the
// forward matrix, input pixel -> output pixel.
std::array<double, 9> safe_rotate_matrix(double angle, int width, int height, bool legacy) {
  constexpr double kPi = 3.14159265358979323846;
  // getRotationMatrix2D takes the centre as a Point2f.
  const double cx = static_cast<float>(legacy ? width / 2.0 : (width - 1) / 2.0);
  const double cy = static_cast<float>(legacy ? height / 2.0 : (height - 1) / 2.0);
  const double rad = angle * (kPi / 180);
  const double a = std::cos(rad), b = std::sin(rad);
  std::array<double, 3> r0{a, b, (1 - a) * cx - b * cy};
  std::array<double, 3> r1{-b, a, b * cx + (1 - a) * cy};
  const double ac = std::fabs(a), as = std::fabs(b);
  const double ew = height * as + width * ac, eh = height * ac + width * as;
  const double new_w = std::max(1.0, legacy ? std::ceil(ew) : std::trunc(ew));
  const double new_h = std::max(1.0, legacy ? std::ceil(eh) : std::trunc(eh));
  r0[2] += new_w / 2 - cx;
  r1[2] += new_h / 2 - cy;
  const double sx = width / new_w, sy = height / new_h;
  return {sx * r0[0], sx * r0[1], sx * r0[2], sy * r1[0], sy * r1[1], sy * r1[2], 0, 0, 1};
}

class SafeRotate final : public Stage {
 public:
  explicit SafeRotate(const StageConfig& c)
      : limit_(c.get(kLimit)),
        interp_(c.get(kInterpolation)),
        border_(c.get(kBorder)),
        fill_(warp_fill(c.get(kFill))),
        legacy_(c.get(kLegacy)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double angle = limit_.sample(d);
    const Interp interp = interp_.sample(d);
    const Border border = border_.sample(d);
    Warp w;
    w.interp = interp;
    w.border = border;
    w.fill = fill_;
    w.out_width = in.width;
    w.out_height = in.height;
    // Always the formula: at angle 0 Albumentations 2.x's matrix still shifts by half a pixel.
    w.matrix = safe_rotate_matrix(angle, in.width, in.height, legacy_);
    return std::make_unique<WarpOp>(in, w, nlohmann::json{{"angle", angle}});
  }

 private:
  NumberParam limit_;
  Drawn<Interp> interp_;
  Drawn<Border> border_;
  std::array<double, 4> fill_;
  bool legacy_;
};

}  // namespace
}  // namespace safe_rotate_impl

StageType safe_rotate_stage() { return stage_type<safe_rotate_impl::SafeRotate>(&safe_rotate_impl::safe_rotate_spec); }

}  // namespace aug
