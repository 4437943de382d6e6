// rotate: torchvision's RandomRotation (counter-clockwise degrees, optional expand and centre) on
// the warp engine; 8-bit nearest/bilinear/bicubic equal cv::warpAffine with the recorded matrix.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "lib/stages/geometry/warp_op.hpp"

namespace aug {

namespace rotate_impl {
namespace {

const Param<NumberParam> kAngle{{.name = "angle",
                                 .doc = "rotation in degrees, positive counter-clockwise on screen (torchvision's "
                                        "rotate; affine's angle turns the other way); [lo, hi] draws one per image "
                                        "(uniform); torchvision's degrees=d is [-d, d]",
                                 .random = true,
                                 .min = Bound{-360},
                                 .max = Bound{360}}};
const Param<bool> kExpand{{.name = "expand",
                           .doc = "grow the canvas to hold the whole rotated image (torchvision's size formula)",
                           .default_value = false}};
const Param<NumberPair> kCenter = warp_center_param(
    "centre of rotation in input pixel coordinates (pixel centres at integers); "
    "default the image centre ((W-1)/2, (H-1)/2)");
const Choice<Interp> kInterpolation = warp_interpolation_param();
const Choice<Border> kBorder = warp_border_param();
const Param<std::vector<double>> kFill = fill_param();

const StageSpec& rotate_spec() {
  static const StageSpec spec{
      .name = "rotate",
      .family = "geometry",
      .summary = "Rotate by an angle (counter-clockwise degrees, fixed or drawn) about the centre or a given point, "
                 "optionally expanding the canvas; 8-bit equals cv::warpAffine with the recorded matrix.",
      .notes = {"As torchvision v2's RandomRotation: positive angles turn the image counter-clockwise on screen; the "
                "centre defaults to the image centre ((W-1)/2, (H-1)/2) in pixel coordinates with pixel centres at "
                "integers (torchvision's `center` is ours + 0.5). A single angle is used as is; torchvision's "
                "degrees=d is angle [-d, d].",
                "With expand the output size is torchvision's: the input's corners (pixel edges) through the inverse "
                "matrix in binary32, truncated to 1e-4, then ceil(max) - floor(min); the input centre goes to the "
                "output centre. Rotating 90 degrees with expand and nearest is cv::rotate's "
                "ROTATE_90_COUNTERCLOCKWISE when W - H is even; when it is odd torchvision's formula (which adds the "
                "input's W/2, H/2 to the turned corners) gives one more column and row, and the image sits half a "
                "pixel off, as in torchvision.",
                "The manifest records the forward 3x3 `matrix` (input pixel -> output pixel, the matrix cv::warpAffine "
                "takes without WARP_INVERSE_MAP), `width`, `height`, `interpolation`, `border` and `fill`; 8-bit "
                "images equal cv::warpAffine with them to the bit (docs/arithmetic.md, the warp engine).",
                "torchvision's default interpolation is nearest and its border constant; here bilinear and constant. "
                "torchvision's tensor path samples in binary32 through grid_sample, so its pixels may differ by one."},
      .params = {kAngle, kExpand, kCenter, kInterpolation, kBorder, kFill},
      .tolerance = {.reason = "integer images: integer arithmetic on coordinate and weight tables computed once on "
                              "the host; float images: the same binary32 operations in the same order without FMA "
                              "contraction on every backend"},
      .example = {{"stage", "rotate"}, {"angle", {-15, 15}}, {"interpolation", "bilinear"}, {"p", 0.5}},
      .cases = {R"({"angle": 30})",
                R"({"angle": -7.5, "interpolation": "nearest", "border": "replicate"})",
                R"({"angle": 2, "interpolation": "bicubic", "border": "reflect"})",
                R"({"angle": 45, "expand": true, "border": "reflect101", "interpolation": "bicubic"})",
                R"({"angle": [-20, 20], "border": "wrap", "center": [0, 0]})",
                R"({"angle": 90, "expand": true, "interpolation": "nearest"})",
                R"({"angle": 0.5, "border": "constant", "fill": [255, 0, 128]})"},
      .identity = R"({"angle": 0, "interpolation": "bicubic"})",
      .bench = {R"({"angle": 12.5, "interpolation": "bilinear"})", R"({"angle": 30, "interpolation": "nearest"})",
                R"({"angle": -20, "expand": true, "interpolation": "bicubic"})"},
      .arithmetic = R"md(
the same matrix with `-angle` (counter-clockwise, `cv::getRotationMatrix2D`). With
expand, the size is torchvision's `_compute_affine_output_size` (the inverse matrix and the corners
`(±W/2, ±H/2)` in binary32, `+W/2`, truncated to 1e-4, `ceil(max) - floor(min)`), and the
translation gains `(W'-1)/2 - (W-1)/2` (y likewise).

The matrix is resolved on the host; the pixels are the [warp engine](../arithmetic.md#warp-engine)'s, so 8-bit outputs equal `cv::warpAffine` / `cv::warpPerspective` run with the `matrix`, `width`, `height`, `interpolation`, `border` and `fill` the manifest records.
)md",
      .imports = {
          {.name = "Rotate",
           .how = "limit l is angle [-l, l] (counter-clockwise); interpolation, border_mode, value / fill",
           .convert = [](const TransformReader& t) {
            if (t.has("crop_border") && t.saved().at("crop_border").get<bool>()) t.fail("crop_border true has no stage equivalent");
            const auto [lo, hi] = t.limit(t.first_of({"limit", "angle_range"}), {-90, 90}, true);
            ojson s{{"stage", "rotate"}};
            s["angle"] = span(lo, hi);
            s["interpolation"] = t.warp_interpolation();
            s["border"] = t.border(t.release_2() ? 0 : 4);  // 2.x's default is constant, 1.x's reflect101
            t.fill(s);
            t.mask_fill();
            return s;
          },
           .python = {
               {"Rotate",
                "limit interpolation border_mode value mask_value rotate_method crop_border always_apply p",
                "limit interpolation border_mode rotate_method crop_border mask_interpolation fill fill_mask p",
                0.5}}}},
      .counterpart = warp_counterpart(),
  };
  return spec;
}

// torchvision's _compute_affine_output_size: the corners (±W/2, ±H/2) through the inverse matrix in
// binary32, shifted back by (W/2, H/2), truncated to 1e-4 and rounded outwards.
std::pair<int, int> expanded_size(const std::array<double, 9>& inverse, int w, int h) {
  const float hw = 0.5f * static_cast<float>(w), hh = 0.5f * static_cast<float>(h);
  const float pts[4][2] = {{-hw, -hh}, {-hw, hh}, {hw, hh}, {hw, -hh}};
  float t[6];
  for (int i = 0; i < 3; ++i) {
    t[i] = static_cast<float>(inverse[static_cast<std::size_t>(i)]);
    t[3 + i] = static_cast<float>(inverse[static_cast<std::size_t>(3 + i)]);
  }
  float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (const auto& p : pts)
    for (int k = 0; k < 2; ++k) {
      const float v = p[0] * t[3 * k] + p[1] * t[3 * k + 1] + t[3 * k + 2];
      lo[k] = std::min(lo[k], v);
      hi[k] = std::max(hi[k], v);
    }
  const float halfs[2] = {hw, hh}, tol = 1e-4f, inv_tol = 1.0f / tol;
  int size[2];
  for (int k = 0; k < 2; ++k) {
    const float cmax = std::ceil(std::trunc((hi[k] + halfs[k]) * inv_tol) * tol);
    const float cmin = std::floor(std::trunc((lo[k] + halfs[k]) * inv_tol) * tol);
    size[k] = std::max(1, static_cast<int>(cmax - cmin));
  }
  return {size[0], size[1]};
}

class Rotate final : public Stage {
 public:
  explicit Rotate(const StageConfig& c)
      : angle_(c.get(kAngle)),
        expand_(c.get(kExpand)),
        interp_(c.get(kInterpolation)),
        border_(c.get(kBorder)),
        fill_(warp_fill(c.get(kFill))) {
    if (c.has(kCenter)) center_ = c.get(kCenter);
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double angle = angle_.sample(d);
    const Interp interp = interp_.sample(d);
    const Border border = border_.sample(d);
    const double icx = (in.width - 1) * 0.5, icy = (in.height - 1) * 0.5;
    const double cx = center_ ? (*center_)[0] : icx, cy = center_ ? (*center_)[1] : icy;
    Warp w;
    w.interp = interp;
    w.border = border;
    w.fill = fill_;
    w.out_width = in.width;
    w.out_height = in.height;
    if (angle != 0.0) {
      // torchvision's rotate: the affine matrix of -angle (its affine turns clockwise).
      w.matrix = torchvision_affine_forward(cx, cy, -angle, 0, 0, 1, 0, 0);
      if (expand_) {
        const auto [ow, oh] = expanded_size(torchvision_affine_inverse(cx - icx, cy - icy, -angle, 0, 0, 1, 0, 0),
                                            in.width, in.height);
        w.out_width = ow;
        w.out_height = oh;
        // The input centre goes to the output centre.
        w.matrix[2] += (ow - 1) * 0.5 - icx;
        w.matrix[5] += (oh - 1) * 0.5 - icy;
      }
    }
    return std::make_unique<WarpOp>(in, w, nlohmann::json{{"angle", angle}});
  }

 private:
  NumberParam angle_;
  bool expand_;
  Drawn<Interp> interp_;
  Drawn<Border> border_;
  std::array<double, 4> fill_;
  std::optional<NumberPair> center_;
};

}  // namespace
}  // namespace rotate_impl

StageType rotate_stage() { return stage_type<rotate_impl::Rotate>(&rotate_impl::rotate_spec); }

}  // namespace aug
