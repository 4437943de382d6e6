// thin_plate_spline: Albumentations' ThinPlateSpline (2.x, from 1.4.22): a grid of control points
// moved by normal jitter, a thin-plate spline fitted through them (cv::solve), evaluated at every
// pixel, then the warp engine's remap (8-bit: cv::remap with the same maps).
#include <array>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "lib/core/error.hpp"
#include "lib/stages/geometry/remap_op.hpp"
#include "lib/stages/geometry/warp_op.hpp"
#include "lib/stages/noise/normal_table.hpp"  // normal_quantile

namespace aug {

namespace thin_plate_spline_impl {
namespace {

const Param<NumberParam> kScaleRange{{.name = "scale_range",
                                      .doc = "the jitter's size s, drawn per image: the control points move by N(0, "
                                             "s / 10) in units of the image's width and height",
                                      .default_value = {0.2, 0.4},
                                      .random = true,
                                      .min = Bound{0},
                                      .max = Bound{1}}};
const Param<IntegerParam> kControlPoints{{.name = "num_control_points",
                                          .doc = "control points along each side (an n x n grid; 2 is the four "
                                                 "corners and the centre)",
                                          .default_value = 4,
                                          .min = Bound{2},
                                          .max = Bound{12}}};
const Choice<Interp> kInterpolation = warp_interpolation_param();
const Choice<Border> kBorder = warp_border_param();
const Param<std::vector<double>> kFill = fill_param();

// Albumentations' generate_control_points in the unit square, float32, (x, y) per point: n = 2 is
// the corners (0,0), (0,1), (1,0), (1,1) and the centre; otherwise the n x n grid of
// linspace(0, 1, n) in row-major order (y outer).
std::vector<float> tps_control_points(int n) {
  if (n == 2) return {0.f, 0.f, 0.f, 1.f, 1.f, 0.f, 1.f, 1.f, 0.5f, 0.5f};
  std::vector<float> g(static_cast<std::size_t>(n));
  numpy_linspace(g.data(), 0.0, 1.0, n);
  std::vector<float> p;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      p.push_back(g[static_cast<std::size_t>(c)]);
      p.push_back(g[static_cast<std::size_t>(r)]);
    }
  return p;
}

// The fitted spline: for each control point (x, y) its weights (wx, wy), then the affine rows
// (constant, x, y) of (ax, ay); all float32 as cv::solve returns them.
struct TpsWeights {
  std::vector<float> src;  // control points, (x, y) per point
  std::vector<float> wx, wy;
  std::array<float, 3> ax{}, ay{};
};

// Squared distance as Albumentations' compute_pairwise_distances computes it in float32:
// (p.p + q.q) - 2 (p . q), the dot product accumulated in double (cv::gemm) and stored as float32.
float tps_squared_distance(float px, float py, float qx, float qy) {
  const float pp = px * px + py * py, qq = qx * qx + qy * qy;
  const float dot = static_cast<float>(static_cast<double>(px) * qx + static_cast<double>(py) * qy);
  return (pp + qq) - 2.f * dot;
}

// compute_tps_weights: the kernel matrix d^2 log(d + 1e-6) (d the squared distance; 0 where d <= 0,
// logarithm cv::log's), the system [[K, P], [P^T, 0]] with P = [1, x, y], and the targets (the moved
// points, float32; zeros below), solved by cv::solve with DECOMP_LU in float32.
TpsWeights tps_fit(const std::vector<float>& src, const std::vector<float>& dst) {
  const int n = static_cast<int>(src.size() / 2);
  cv::Mat d(1, n * n, CV_32F), l;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      d.at<float>(a * n + b) = tps_squared_distance(src[2 * a], src[2 * a + 1], src[2 * b], src[2 * b + 1]);
  cv::Mat shifted = d + 1e-6f;
  cv::log(shifted, l);
  cv::Mat system = cv::Mat::zeros(n + 3, n + 3, CV_32F), target = cv::Mat::zeros(n + 3, 2, CV_32F), solution;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      const float v = d.at<float>(a * n + b);
      system.at<float>(a, b) = v > 0 ? v * v * l.at<float>(a * n + b) : 0.f;
    }
    system.at<float>(a, n) = 1.f;
    system.at<float>(a, n + 1) = src[2 * a];
    system.at<float>(a, n + 2) = src[2 * a + 1];
    system.at<float>(n, a) = 1.f;
    system.at<float>(n + 1, a) = src[2 * a];
    system.at<float>(n + 2, a) = src[2 * a + 1];
    target.at<float>(a, 0) = dst[2 * a];
    target.at<float>(a, 1) = dst[2 * a + 1];
  }
  cv::solve(system, target, solution, cv::DECOMP_LU);
  TpsWeights w;
  w.src = src;
  for (int a = 0; a < n; ++a) {
    w.wx.push_back(solution.at<float>(a, 0));
    w.wy.push_back(solution.at<float>(a, 1));
  }
  for (int r = 0; r < 3; ++r) {
    w.ax[static_cast<std::size_t>(r)] = solution.at<float>(n + r, 0);
    w.ay[static_cast<std::size_t>(r)] = solution.at<float>(n + r, 1);
  }
  return w;
}

// tps_transform at every pixel, a row at a time: the pixel (j, i) as (float32(j / W), float32(i / H));
// per control point k the squared distance d_k (as above) and the kernel d_k log(d_k + 1e-6) (0 where
// d_k <= 0; cv::log over the row's n W values at once); the non-linear part sum_k kernel_k w_k and
// the affine part 1 a0 + x a1 + y a2, each accumulated in double in that order and stored as float32
// (cv::gemm), added in float32, then times W (x) and H (y).
void tps_maps(RemapField& f, const TpsWeights& t) {
  const int w = f.out_width, h = f.out_height, n = static_cast<int>(t.wx.size());
  const std::size_t sw = static_cast<std::size_t>(w);
  std::vector<float> tx(sw), txx(sw);
  for (int j = 0; j < w; ++j) {
    tx[static_cast<std::size_t>(j)] = static_cast<float>(static_cast<double>(j) / w);
    txx[static_cast<std::size_t>(j)] = tx[static_cast<std::size_t>(j)] * tx[static_cast<std::size_t>(j)];
  }
  std::vector<float> cqq(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) cqq[static_cast<std::size_t>(k)] = t.src[2 * k] * t.src[2 * k] + t.src[2 * k + 1] * t.src[2 * k + 1];
  cv::Mat dist(1, n * w, CV_32F), shifted(1, n * w, CV_32F), logs(1, n * w, CV_32F);
  std::vector<double> sx(sw), sy(sw);
  f.separable = false;
  f.map_x.resize(sw * static_cast<std::size_t>(h));
  f.map_y.resize(f.map_x.size());
  const float fw = static_cast<float>(w), fh = static_cast<float>(h);
  for (int i = 0; i < h; ++i) {
    const float ty = static_cast<float>(static_cast<double>(i) / h);
    const float tyy = ty * ty;
    const double dty = ty;
    float* dd = dist.ptr<float>();
    float* sh = shifted.ptr<float>();
    for (int k = 0; k < n; ++k) {
      const float qx = t.src[2 * k], qy = t.src[2 * k + 1], qq = cqq[static_cast<std::size_t>(k)];
      const double dqx = qx, yq = dty * qy;
      float* dk = dd + static_cast<std::size_t>(k) * sw;
      float* sk = sh + static_cast<std::size_t>(k) * sw;
      for (int j = 0; j < w; ++j) {
        const float pp = txx[static_cast<std::size_t>(j)] + tyy;
        const float dot = static_cast<float>(static_cast<double>(tx[static_cast<std::size_t>(j)]) * dqx + yq);
        const float v = (pp + qq) - 2.f * dot;
        dk[j] = v;
        sk[j] = v + 1e-6f;
      }
    }
    cv::log(shifted, logs);
    const float* lg = logs.ptr<float>();
    for (int j = 0; j < w; ++j) sx[static_cast<std::size_t>(j)] = sy[static_cast<std::size_t>(j)] = 0.0;
    for (int k = 0; k < n; ++k) {
      const double wxk = t.wx[static_cast<std::size_t>(k)], wyk = t.wy[static_cast<std::size_t>(k)];
      const float* dk = dd + static_cast<std::size_t>(k) * sw;
      const float* lk = lg + static_cast<std::size_t>(k) * sw;
      for (int j = 0; j < w; ++j) {
        const float v = dk[j];
        const double kern = v > 0 ? static_cast<double>(v * lk[j]) : 0.0;
        sx[static_cast<std::size_t>(j)] += kern * wxk;
        sy[static_cast<std::size_t>(j)] += kern * wyk;
      }
    }
    const double ax0 = t.ax[0], ax1 = t.ax[1], ax2 = t.ax[2], ay0 = t.ay[0], ay1 = t.ay[1], ay2 = t.ay[2];
    const double yx = dty * ax2, yy = dty * ay2;
    float* mx = f.map_x.data() + static_cast<std::size_t>(i) * sw;
    float* my = f.map_y.data() + static_cast<std::size_t>(i) * sw;
    for (int j = 0; j < w; ++j) {
      const double x = tx[static_cast<std::size_t>(j)];
      const float affx = static_cast<float>((ax0 + x * ax1) + yx), affy = static_cast<float>((ay0 + x * ay1) + yy);
      mx[j] = (static_cast<float>(sx[static_cast<std::size_t>(j)]) + affx) * fw;
      my[j] = (static_cast<float>(sy[static_cast<std::size_t>(j)]) + affy) * fh;
    }
  }
}

const StageSpec& thin_plate_spline_spec() {
  static const StageSpec spec{
      .name = "thin_plate_spline",
      .family = "geometry",
      .summary = "Thin-plate spline warp (Albumentations ThinPlateSpline): a grid of control points moved by normal "
                 "jitter, a spline fitted through them and evaluated at every pixel; 8-bit equals cv::remap with the "
                 "same maps.",
      .notes = {"As Albumentations (2.x, and 1.4.22 on): control points on an n x n grid of the unit square (n = 2: "
                "the corners and the centre), each moved by N(0, s / 10) per axis with s drawn from scale_range; the "
                "spline is fitted with Albumentations' kernel d^2 log(d + 1e-6) (d the squared distance) and "
                "cv::solve in float32, and evaluated with the kernel d log(d + 1e-6), as Albumentations does (the "
                "two kernels differ there); every step in float32 with OpenCV's logarithm and double-accumulated "
                "products, as Albumentations' calls of cv2.log and cv2.gemm compute them.",
                "Building the maps costs n^2 logarithms per pixel (16 by default), computed a row at a time with "
                "cv::log's vector code.",
                "Labels move through the map (points through its inverse, boxes from the moved outline), masks are "
                "sampled nearest through the same map on the run's device."},
      .params = {kScaleRange, kControlPoints, kInterpolation, kBorder, kFill},
      .default_p = 0.5,
      .tolerance = {.reason = "the maps are built once on the host; integer images: cv::remap's fixed-point "
                              "arithmetic; float images: the same binary32 operations in the same order"},
      .example = {{"stage", "thin_plate_spline"}, {"scale_range", {0.2, 0.4}}, {"num_control_points", 4}, {"p", 0.5}},
      .cases = {R"({"scale_range": [0.2, 0.4]})",
                R"({"scale_range": [0.1, 0.5], "num_control_points": 2, "interpolation": "nearest", "border": "reflect101"})",
                R"({"scale_range": 0.3, "num_control_points": 3, "border": "replicate"})",
                R"({"scale_range": [0.2, 0.6], "num_control_points": 5, "interpolation": "bicubic", "fill": [255, 128, 0]})",
                R"({"scale_range": 0.5, "border": "wrap"})"},
      .no_identity = "no jitter is not the identity: the spline's fit and its evaluation use different kernels, so "
                     "unmoved control points still bend the image a little (as in Albumentations)",
      .bench = {R"({})", R"({"num_control_points": 6, "interpolation": "nearest"})"},
      .arithmetic = R"md(
Albumentations' **ThinPlateSpline** (2.x; 1.4.22 and later 1.4 releases); `p` 0.5, border constant.

- **Control points** (float32, unit square): `n = num_control_points`; the `n × n` grid of
  `linspace(0, 1, n)` in row-major order (`y` outer), or for `n = 2` the five points (0,0), (0,1),
  (1,0), (1,1), (0.5,0.5).
- **Draws**: `s = U(scale_range)`, `sigma = s / 10`; then per control point two normal values
  (`x`, then `y`), each `sigma Φ⁻¹(u)`; the moved point `dst = src + noise` in double, stored as float32.
- **Fit** (float32 throughout): squared distances `d = (p·p + q·q) − 2 (p·q)` with the dot product
  accumulated in double and stored as float32 (cv::gemm); kernel `K = d d log(d + 1e-6)` where
  `d > 0`, else 0, with `cv::log`'s logarithm; the system `[[K, P], [Pᵀ, 0]]`, `P = [1, x, y]`,
  right-hand side the moved points over three zero rows, solved by `cv::solve(…, DECOMP_LU)`.
- **Maps**: output pixel `(j, i)` is the point `(float32(j / W), float32(i / H))`; its squared
  distance `d_k` to each control point as above, the kernel `d_k log(d_k + 1e-6)` (0 where
  `d_k ≤ 0`) — not the fit's kernel, as in Albumentations; the non-linear part `Σ_k kernel_k w_k` and
  the affine part `a0 + x a1 + y a2`, each summed in double in that order and stored as float32,
  added in float32, times `W` (x) and `H` (y), stored as float32. Built on the host once per image,
  a row at a time (the row's logarithms in one `cv::log` call), and used by every backend.
- **Sampling**: the [warp engine](../arithmetic.md#warp-engine)'s remap, so 8-bit outputs equal
  `cv::remap` with these maps.
- The manifest records `control_points` (n), `scale` (the drawn s), `dst` (the moved points, float32,
  `x, y` per point), and `interpolation`, `border`, `fill`.
)md",
      .imports = {{.name = "ThinPlateSpline",
                   .how = "scale_range, num_control_points, interpolation, border_mode / fill (2.x; 1.4's is "
                          "constant 0), fill_mask; a map_resolution_range below 1 is noted (the maps are evaluated "
                          "at every pixel)",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "thin_plate_spline"}};
                     const auto [lo, hi] = t.limit("scale_range", {0.2, 0.4}, false);
                     s["scale_range"] = span(lo, hi);
                     s["num_control_points"] = static_cast<int>(t.number("num_control_points", 4));
                     s["interpolation"] = t.warp_interpolation();
                     s["border"] = t.border(0);
                     t.fill(s);
                     t.mask_fill();
                     if (t.has("map_resolution_range") &&
                         t.saved().at("map_resolution_range") != nlohmann::json::array({1.0, 1.0}))
                       t.note("map_resolution_range: thin_plate_spline evaluates the spline at every pixel (the "
                              "default, 1.0), not on a smaller grid resized up");
                     return s;
                   },
                   .python = {
                       {"ThinPlateSpline",
                        "scale_range num_control_points interpolation mask_interpolation p always_apply",
                        "scale_range num_control_points interpolation mask_interpolation keypoint_remapping_method p "
                        "border_mode fill fill_mask map_resolution_range",
                        0.5}}}},
      .counterpart = {.call = "cv::remap",
                      .how = "the maps of the recorded moved points as Albumentations computes them with OpenCV: "
                             "cv::solve for the fit, then whole-image cv::gemm (distances), cv::log and cv::gemm "
                             "(kernel and affine parts)",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const int n = m.at("control_points").get<int>();
                        const auto moved = m.at("dst").get<std::vector<float>>();
                        const RemapField settings = recorded_remap_settings(m, src.cols, src.rows);
                        return [&dst, src, n, moved, settings] {
                          const TpsWeights t = tps_fit(tps_control_points(n), moved);
                          const int w = settings.out_width, h = settings.out_height, np = static_cast<int>(t.wx.size());
                          // Albumentations' tps_transform over all pixels at once.
                          cv::Mat pts(w * h, 2, CV_32F), ctrl(2, np, CV_32F), wts(np, 2, CV_32F), aff(3, 2, CV_32F);
                          for (int i = 0; i < h; ++i)
                            for (int j = 0; j < w; ++j) {
                              pts.at<float>(i * w + j, 0) = static_cast<float>(static_cast<double>(j) / w);
                              pts.at<float>(i * w + j, 1) = static_cast<float>(static_cast<double>(i) / h);
                            }
                          for (int k = 0; k < np; ++k) {
                            ctrl.at<float>(0, k) = t.src[2 * k];
                            ctrl.at<float>(1, k) = t.src[2 * k + 1];
                            wts.at<float>(k, 0) = t.wx[static_cast<std::size_t>(k)];
                            wts.at<float>(k, 1) = t.wy[static_cast<std::size_t>(k)];
                          }
                          for (int r = 0; r < 3; ++r) {
                            aff.at<float>(r, 0) = t.ax[static_cast<std::size_t>(r)];
                            aff.at<float>(r, 1) = t.ay[static_cast<std::size_t>(r)];
                          }
                          cv::Mat sq, p2, ones = cv::Mat::ones(w * h, 1, CV_32F), dot, d, l, kern, nl, af, terms;
                          cv::reduce(pts.mul(pts), sq, 1, cv::REDUCE_SUM);
                          cv::reduce(ctrl.mul(ctrl), p2, 0, cv::REDUCE_SUM);
                          cv::gemm(pts, ctrl, 1, cv::noArray(), 0, dot);
                          d = (cv::repeat(sq, 1, np) + cv::repeat(p2, w * h, 1)) - 2 * dot;
                          cv::log(d + 1e-6f, l);
                          kern = d.mul(l);
                          kern.setTo(0, d <= 0);
                          cv::hconcat(ones, pts, terms);
                          cv::gemm(kern, wts, 1, cv::noArray(), 0, nl);
                          cv::gemm(terms, aff, 1, cv::noArray(), 0, af);
                          nl += af;
                          RemapField r = settings;
                          r.map_x.resize(static_cast<std::size_t>(w) * h);
                          r.map_y.resize(r.map_x.size());
                          for (std::size_t q = 0; q < r.map_x.size(); ++q) {
                            r.map_x[q] = nl.at<float>(static_cast<int>(q), 0) * static_cast<float>(w);
                            r.map_y[q] = nl.at<float>(static_cast<int>(q), 1) * static_cast<float>(h);
                          }
                          remap_with_opencv(src, dst, r);
                        };
                      }},
  };
  return spec;
}

class ThinPlateSpline final : public Stage {
 public:
  explicit ThinPlateSpline(const StageConfig& c)
      : scale_(c.get(kScaleRange)),
        n_(static_cast<int>(c.get(kControlPoints).lo)),
        interp_(c.get(kInterpolation)),
        border_(c.get(kBorder)),
        fill_(warp_fill(c.get(kFill))) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double s = scale_.sample(d);
    const double sigma = s / 10.0;
    const std::vector<float> src = tps_control_points(n_);
    std::vector<float> moved(src.size());
    for (std::size_t q = 0; q < src.size(); ++q) {
      double u = d.uniform();
      if (u <= 0.0) u = 0x1p-54;  // Phi^-1(0) is -inf; the smallest draw above it
      moved[q] = static_cast<float>(static_cast<double>(src[q]) + sigma * normal_quantile(u));
    }
    const RemapField f = remap_settings(in, d, interp_, border_, fill_);
    auto fit = std::make_shared<const TpsWeights>(tps_fit(src, moved));
    auto maps = std::make_shared<const FieldMaps>([fit](RemapField& r) { tps_maps(r, *fit); });
    return std::make_unique<RemapOp>(in, f, std::move(maps),
                                     nlohmann::json{{"control_points", n_}, {"scale", s}, {"dst", moved}});
  }

 private:
  NumberParam scale_;
  int n_;
  Drawn<Interp> interp_;
  Drawn<Border> border_;
  std::array<double, 4> fill_;
};

}  // namespace
}  // namespace thin_plate_spline_impl

StageType thin_plate_spline_stage() {
  return stage_type<thin_plate_spline_impl::ThinPlateSpline>(&thin_plate_spline_impl::thin_plate_spline_spec);
}

}  // namespace aug
