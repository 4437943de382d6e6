// optical_distortion: Albumentations' OpticalDistortion: in camera mode OpenCV's undistortion maps of
// a camera with radial coefficients k1 = k2 = k, in fisheye mode 2.x's radial formula; then the warp
// engine's remap (8-bit: cv::remap).
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "lib/stages/geometry/remap_op.hpp"
#include "lib/stages/geometry/warp_op.hpp"

namespace aug {

namespace optical_distortion_impl {
namespace {

const Param<NumberParam> kDistortLimit{{.name = "distort_limit",
                                        .doc = "the radial coefficient k, drawn per image (Albumentations' "
                                               "distort_limit d is [-d, d])",
                                        .default_value = {-0.05, 0.05},
                                        .random = true,
                                        .min = Bound{-10},
                                        .max = Bound{10}}};
const Param<NumberParam> kShiftLimit{{.name = "shift_limit",
                                      .doc = "Albumentations 1.x: the principal point's shift in pixels, drawn per "
                                             "axis and rounded half to even (2.x has no shift)",
                                      .default_value = 0.0,
                                      .random = true,
                                      .min = Bound{-4096},
                                      .max = Bound{4096}}};
enum class LensMode { Camera, Fisheye };
const Words<LensMode> kLensModes{{{LensMode::Camera, "camera"}, {LensMode::Fisheye, "fisheye"}}};
const Choice<LensMode> kMode{kLensModes,
                             {},
                             LensMode::Camera,
                             {.name = "mode",
                              .doc = "camera (OpenCV's undistortion maps, 1.x's and 2.x's default) or fisheye (2.x's "
                                     "radial formula r (1 + k (r / R)^2)); a list draws one per image"}};
const Choice<Interp> kInterpolation = warp_interpolation_param();
const Choice<Border> kBorder = warp_border_param();
const Param<std::vector<double>> kFill = fill_param();

// Albumentations' camera model: fx = W, fy = H, principal point (W/2 + dx, H/2 + dy), distortion
// (k, k, 0, 0, 0), all float32, through cv::initUndistortRectifyMap's arithmetic without a
// rectification and with OpenCV's default new camera matrix (the same focal lengths, the principal
// point moved to ((W-1)/2, (H-1)/2)): for output pixel (j, i), in double,
//   (X, Y, Z) = inv(new camera) (j, i, 1)   (cv::invert's 3x3 cofactor form)
//   x = X / Z, y = Y / Z, r2 = x x + y y, kr = 1 + (k r2 + k) r2
//   map_x = fx (x kr) + cx, map_y = fy (y kr) + cy, stored as float32.
void camera_maps(RemapField& f, float k, double dx, double dy) {
  const int w = f.out_width, h = f.out_height;
  const double fx = static_cast<float>(w), fy = static_cast<float>(h);
  const double cx = static_cast<float>(w / 2.0 + dx), cy = static_cast<float>(h / 2.0 + dy);
  const double k1 = k, k2 = k;
  // The new camera matrix and its inverse as cv::invert computes a 3x3 one (DECOMP_LU).
  const double m[9] = {fx, 0, (w - 1) * 0.5, 0, fy, (h - 1) * 0.5, 0, 0, 1};
  auto M = [&](int r, int c) { return m[r * 3 + c]; };
  double det = M(0, 0) * (M(1, 1) * M(2, 2) - M(1, 2) * M(2, 1)) - M(0, 1) * (M(1, 0) * M(2, 2) - M(1, 2) * M(2, 0)) +
               M(0, 2) * (M(1, 0) * M(2, 1) - M(1, 1) * M(2, 0));
  det = 1.0 / det;
  const double ir[9] = {(M(1, 1) * M(2, 2) - M(1, 2) * M(2, 1)) * det, (M(0, 2) * M(2, 1) - M(0, 1) * M(2, 2)) * det,
                        (M(0, 1) * M(1, 2) - M(0, 2) * M(1, 1)) * det, (M(1, 2) * M(2, 0) - M(1, 0) * M(2, 2)) * det,
                        (M(0, 0) * M(2, 2) - M(0, 2) * M(2, 0)) * det, (M(0, 2) * M(1, 0) - M(0, 0) * M(1, 2)) * det,
                        (M(1, 0) * M(2, 1) - M(1, 1) * M(2, 0)) * det, (M(0, 1) * M(2, 0) - M(0, 0) * M(2, 1)) * det,
                        (M(0, 0) * M(1, 1) - M(0, 1) * M(1, 0)) * det};
  const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  f.separable = false;
  f.map_x.resize(n);
  f.map_y.resize(n);
  for (int i = 0; i < h; ++i) {
    const double X0 = i * ir[1] + ir[2], Y0 = i * ir[4] + ir[5], Z0 = i * ir[7] + ir[8];
    float* mx = f.map_x.data() + static_cast<std::size_t>(i) * w;
    float* my = f.map_y.data() + static_cast<std::size_t>(i) * w;
    for (int j = 0; j < w; ++j) {
      const double X = j * ir[0] + X0, Y = j * ir[3] + Y0, Z = j * ir[6] + Z0;
      const double iz = 1.0 / Z, x = X * iz, y = Y * iz;
      const double r2 = x * x + y * y;
      const double kr = 1 + (k2 * r2 + k1) * r2;
      mx[j] = static_cast<float>(fx * (x * kr) + cx);
      my[j] = static_cast<float>(fy * (y * kr) + cy);
    }
  }
}

// Albumentations 2.x's fisheye maps (get_fisheye_distortion_maps), in float32 as numpy computes them:
// with c = (W/2, H/2) and R = sqrt(max(cx, W - cx)^2 + max(cy, H - cy)^2) (double, then float32), for
// output pixel (j, i): x = j - cx, y = i - cy, r = sqrt(x x + y y), t = atan2(y, x),
// r' = r (1 + (k (r / R)) (r / R)), map_x = r' cos(t) + cx, map_y = r' sin(t) + cy; the C library's
// float32 atan2, cos and sin.
void fisheye_maps(RemapField& f, float k) {
  const int w = f.out_width, h = f.out_height;
  const double cxd = w / 2.0, cyd = h / 2.0;
  const float cx = static_cast<float>(cxd), cy = static_cast<float>(cyd);
  const double ex = std::max(cxd, w - cxd), ey = std::max(cyd, h - cyd);
  const float radius = static_cast<float>(std::sqrt(ex * ex + ey * ey));
  const std::size_t sw = static_cast<std::size_t>(w);
  f.separable = false;
  f.map_x.resize(sw * static_cast<std::size_t>(h));
  f.map_y.resize(f.map_x.size());
  for (int i = 0; i < h; ++i) {
    const float y = static_cast<float>(i) - cy, yy = y * y;
    float* mx = f.map_x.data() + static_cast<std::size_t>(i) * sw;
    float* my = f.map_y.data() + static_cast<std::size_t>(i) * sw;
    for (int j = 0; j < w; ++j) {
      const float x = static_cast<float>(j) - cx;
      const float r = std::sqrt(x * x + yy);
      const float t = std::atan2(y, x);
      const float rn = r / radius;
      const float rd = r * (1.f + k * rn * rn);
      mx[j] = rd * std::cos(t) + cx;
      my[j] = rd * std::sin(t) + cy;
    }
  }
}

const StageSpec& optical_distortion_spec() {
  static const StageSpec spec{
      .name = "optical_distortion",
      .family = "geometry",
      .summary = "Lens distortion (Albumentations OpticalDistortion): OpenCV's undistortion maps of a camera with "
                 "radial coefficients k1 = k2 = k, or 2.x's fisheye formula; 8-bit equals cv::remap with the same "
                 "maps.",
      .notes = {"As Albumentations: k = U(distort_limit) per image; the camera matrix [[W, 0, W/2 + dx], [0, H, H/2 "
                "+ dy], [0, 0, 1]] and the coefficients (k, k, 0, 0, 0) in float32; the maps follow "
                "cv::initUndistortRectifyMap's formula (computed once on the host, in double, stored as float32), "
                "sampled by cv::remap's arithmetic. dx and dy are 1.x's shift (round(U(shift_limit)) per axis), 0 by "
                "default as in 2.x. mode fisheye: 2.x's radial formula r (1 + k (r / R)^2) about the image's centre "
                "(R the distance to the farthest corner), in float32 as Albumentations computes it; it has no shift.",
                "Labels move through the map (points through its inverse, boxes from the moved outline), masks are "
                "sampled nearest through the same map on the run's device."},
      .params = {kDistortLimit, kShiftLimit, kMode, kInterpolation, kBorder, kFill},
      .default_p = 0.5,
      .tolerance = {.reason = "the maps are built once on the host; integer images: cv::remap's fixed-point "
                              "arithmetic; float images: the same binary32 operations in the same order"},
      .example = {{"stage", "optical_distortion"}, {"distort_limit", {-0.05, 0.05}}, {"p", 0.5}},
      .cases = {R"({"distort_limit": [-0.05, 0.05]})",
                R"({"distort_limit": [-0.6, 0.6], "interpolation": "nearest", "border": "reflect101"})",
                R"({"distort_limit": 0.3, "shift_limit": [-20, 20], "border": "replicate"})",
                R"({"distort_limit": -0.4, "interpolation": "bicubic", "fill": [255, 128, 0]})",
                R"({"distort_limit": [-1, 1], "border": "wrap"})",
                R"({"distort_limit": [-0.5, 0.5], "mode": "fisheye"})",
                R"({"distort_limit": 0.8, "mode": "fisheye", "interpolation": "bicubic", "border": "reflect101"})"},
      .no_identity = "k = 0 still moves the image by half a pixel: OpenCV's default new camera matrix puts the "
                     "principal point at ((W-1)/2, (H-1)/2), the distortion's at (W/2, H/2)",
      .bench = {R"({})", R"({"distort_limit": 0.5, "interpolation": "nearest"})", R"({"mode": "fisheye"})"},
      .arithmetic = R"md(
Albumentations' **OpticalDistortion** in its `camera` mode (1.x and 2.x) and 2.x's `fisheye` mode;
`p` 0.5, border constant (1.x: reflect101, which the importer sets for 1.x pipelines).

- **Draws**: `k = U(distort_limit)`, then (1.x) `dx = round(U(shift_limit))`, `dy = round(U(shift_limit))`
  (half to even; 0 when `shift_limit` is 0, the default, as in 2.x).
- **Maps**: the formula of `cv::initUndistortRectifyMap(K, D, none, none, (W, H), CV_32FC1)`, which
  Albumentations calls, with `K = [[W, 0, W/2 + dx], [0, H, H/2 + dy], [0, 0, 1]]` and
  `D = (k, k, 0, 0, 0)`, both float32. With no new camera matrix OpenCV uses K with the principal
  point moved to `((W-1)/2, (H-1)/2)`; its inverse `ir` is `cv::invert`'s 3x3 cofactor form. For
  output pixel `(j, i)`, in double: `X = j ir0 + (i ir1 + ir2)` (Y, Z likewise with ir3..5, ir6..8),
  `x = X (1/Z)`, `y = Y (1/Z)`, `r2 = x x + y y`, `kr = 1 + (k r2 + k) r2`,
  `map_x = fx (x kr) + cx`, `map_y = fy (y kr) + cy`, stored as float32. OpenCV steps X along a row
  by repeated addition (and may vectorise it), so its maps can differ from these in the last bit of
  a float; k = 0 is not the identity (a half-pixel shift, as in Albumentations). The maps are built
  on the host once per image and used by every backend.
- **Fisheye maps** (`mode: fisheye`, Albumentations 2.x), in float32: `cx = W/2`, `cy = H/2`,
  `R = sqrt(max(cx, W-cx)² + max(cy, H-cy)²)` (in double, then float32); for output pixel `(j, i)`:
  `x = j - cx`, `y = i - cy`, `r = sqrt(x x + y y)`, `t = atan2(y, x)`, `rn = r / R`,
  `r' = r (1 + (k rn) rn)`, `map_x = r' cos t + cx`, `map_y = r' sin t + cy` (the C library's float32
  `atan2f`, `cosf`, `sinf`; numpy may use other float32 routines, which can differ in the last bit).
  No shift (2.x has none).
- **Sampling**: the [warp engine](../arithmetic.md#warp-engine)'s remap, so 8-bit outputs equal
  `cv::remap` with these maps.
- The manifest records `k`, `dx`, `dy`, `mode`, and `interpolation`, `border`, `fill`.
)md",
      .imports = {{.name = "OpticalDistortion",
                   .how = "distort_limit d as [-d, d], shift_limit (1.x) s as [-s, s], mode (2.x: camera or "
                          "fisheye), interpolation, border_mode (1.x default reflect101), value / fill",
                   .convert = [](const TransformReader& t) {
                     std::string mode = "camera";
                     if (t.has("mode") && t.saved().at("mode").is_string()) {
                       mode = t.saved().at("mode").get<std::string>();
                       if (mode != "camera" && mode != "fisheye")
                         t.fail("mode \"" + mode + "\" is not available (camera and fisheye are)");
                     }
                     // 2.x: fill / fill_mask, or `mode` as a lens mode (1.x's `mode` was a border code).
                     const bool v2 = t.release_2() || t.has("fill") || t.has("fill_mask") ||
                                     (t.has("mode") && t.saved().at("mode").is_string());
                     ojson s{{"stage", "optical_distortion"}};
                     const auto [lo, hi] = t.limit("distort_limit", {-0.05, 0.05}, true);
                     s["distort_limit"] = ojson::array({lo, hi});
                     if (mode == "fisheye") s["mode"] = mode;
                     if (!v2 && mode == "camera" && t.has("shift_limit")) {
                       const auto [slo, shi] = t.limit("shift_limit", {-0.05, 0.05}, true);
                       s["shift_limit"] = ojson::array({slo, shi});
                     }
                     s["interpolation"] = t.warp_interpolation();
                     // `mode` is also 1.x's name for the border; only a number is a border there.
                     if (t.has("border_mode") || (t.has("mode") && t.saved().at("mode").is_number()))
                       s["border"] = t.border(v2 ? 0 : 4);
                     else
                       s["border"] = v2 ? "constant" : "reflect101";
                     t.fill(s);
                     t.mask_fill();
                     return s;
                   },
                   .python = {
                       {"OpticalDistortion",
                        "distort_limit shift_limit interpolation border_mode value mask_value always_apply p",
                        "distort_limit interpolation mask_interpolation mode keypoint_remapping_method p border_mode "
                        "fill fill_mask",
                        0.5}}}},
      .counterpart = {.call = "cv::remap",
                      .how = "the maps of the recorded k, dx, dy (cv::initUndistortRectifyMap's formula; fisheye: "
                             "Albumentations' formula; built by a plain loop), interpolation, border and fill",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const float k = m.at("k").get<float>();
                        const double dx = m.at("dx").get<double>(), dy = m.at("dy").get<double>();
                        const bool fisheye = m.value("mode", std::string("camera")) == "fisheye";
                        const RemapField settings = recorded_remap_settings(m, src.cols, src.rows);
                        return [&dst, src, k, dx, dy, fisheye, settings] {
                          RemapField r = settings;
                          if (fisheye)
                            fisheye_maps(r, k);
                          else
                            camera_maps(r, k, dx, dy);
                          remap_with_opencv(src, dst, r);
                        };
                      }},
  };
  return spec;
}

class OpticalDistortion final : public Stage {
 public:
  explicit OpticalDistortion(const StageConfig& c)
      : limit_(c.get(kDistortLimit)),
        shift_(c.get(kShiftLimit)),
        mode_(c.get(kMode)),
        interp_(c.get(kInterpolation)),
        border_(c.get(kBorder)),
        fill_(warp_fill(c.get(kFill))) {
    const bool fisheye = std::find(mode_.options.begin(), mode_.options.end(), LensMode::Fisheye) != mode_.options.end();
    if (fisheye && (shift_.lo != 0 || shift_.hi != 0))
      c.fail(kShiftLimit, "is 1.x's camera-mode shift; fisheye mode has none (set shift_limit 0)");
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const float k = static_cast<float>(limit_.sample(d));  // float32, as Albumentations' coefficient array
    const double dx = std::nearbyint(shift_.sample(d)), dy = std::nearbyint(shift_.sample(d));
    const LensMode mode = mode_.sample(d);
    const RemapField f = remap_settings(in, d, interp_, border_, fill_);
    auto maps = std::make_shared<const FieldMaps>([k, dx, dy, mode](RemapField& r) {
      if (mode == LensMode::Fisheye)
        fisheye_maps(r, k);
      else
        camera_maps(r, k, dx, dy);
    });
    return std::make_unique<RemapOp>(
        in, f, std::move(maps), nlohmann::json{{"k", k}, {"dx", dx}, {"dy", dy}, {"mode", kLensModes.name(mode)}});
  }

 private:
  NumberParam limit_, shift_;
  Drawn<LensMode> mode_;
  Drawn<Interp> interp_;
  Drawn<Border> border_;
  std::array<double, 4> fill_;
};

}  // namespace
}  // namespace optical_distortion_impl

StageType optical_distortion_stage() {
  return stage_type<optical_distortion_impl::OpticalDistortion>(&optical_distortion_impl::optical_distortion_spec);
}

}  // namespace aug
