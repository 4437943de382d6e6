// piecewise_affine: Albumentations 2.x's PiecewiseAffine: a grid of control points moved by normal
// jitter, a map interpolated between them by inverse-distance weights, then the warp engine's remap
// (8-bit: cv::remap with the same maps).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/stages/geometry/remap_op.hpp"
#include "lib/stages/geometry/warp_op.hpp"
#include "lib/stages/noise/normal_table.hpp"  // normal_quantile

namespace aug {

namespace piecewise_affine_impl {
namespace {

const Param<NumberParam> kScale{{.name = "scale",
                                 .doc = "the jitter's size s, drawn per image: the control points move by N(0, s "
                                        "min(W, H) / 3) pixels (N(0, s / 3) with absolute_scale)",
                                 .default_value = {0.03, 0.05},
                                 .random = true,
                                 .min = Bound{0, true},
                                 .max = Bound{1000}}};
const Param<IntegerParam> kRows{{.name = "nb_rows",
                                 .doc = "rows of control points; [lo, hi] draws one count per image",
                                 .default_value = {4, 4},
                                 .random = true,
                                 .min = Bound{2},
                                 .max = Bound{64}}};
const Param<IntegerParam> kCols{{.name = "nb_cols",
                                 .doc = "columns of control points; [lo, hi] draws one count per image",
                                 .default_value = {4, 4},
                                 .random = true,
                                 .min = Bound{2},
                                 .max = Bound{64}}};
const Param<bool> kAbsoluteScale{{.name = "absolute_scale",
                                  .doc = "scale is in pixels, not a fraction of the image's shorter side",
                                  .default_value = false}};
const Choice<Interp> kInterpolation = warp_interpolation_param();
const Choice<Border> kBorder = warp_border_param();
const Param<std::vector<double>> kFill = fill_param();

// numpy's pairwise float32 sum (np.sum of a contiguous array), evaluated for `w` columns at once:
// term k of column j is t[k * stride + j]. Below 8 terms a running sum; up to 128 eight running
// sums combined as ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), then the rest one by one;
// above 128 the two halves (the first a multiple of 8 terms) summed alike and added.
// `acc` holds 8 * w floats.
void pairwise_columns(const float* t, std::size_t stride, int n, int w, float* out, float* acc) {
  if (n < 8) {
    for (int j = 0; j < w; ++j) out[j] = 0.f;
    for (int k = 0; k < n; ++k) {
      const float* r = t + static_cast<std::size_t>(k) * stride;
      for (int j = 0; j < w; ++j) out[j] += r[j];
    }
    return;
  }
  if (n > 128) {
    int n2 = n / 2;
    n2 -= n2 % 8;
    std::vector<float> second(static_cast<std::size_t>(w));
    pairwise_columns(t, stride, n2, w, out, acc);
    pairwise_columns(t + static_cast<std::size_t>(n2) * stride, stride, n - n2, w, second.data(), acc);
    for (int j = 0; j < w; ++j) out[j] += second[static_cast<std::size_t>(j)];
    return;
  }
  const std::size_t sw = static_cast<std::size_t>(w);
  for (int m = 0; m < 8; ++m) std::copy_n(t + static_cast<std::size_t>(m) * stride, w, acc + m * sw);
  int i = 8;
  for (; i < n - (n % 8); i += 8)
    for (int m = 0; m < 8; ++m) {
      const float* r = t + static_cast<std::size_t>(i + m) * stride;
      float* a = acc + m * sw;
      for (int j = 0; j < w; ++j) a[j] += r[j];
    }
  for (int j = 0; j < w; ++j) {
    const float* a = acc + j;
    out[j] = ((a[0] + a[sw]) + (a[2 * sw] + a[3 * sw])) + ((a[4 * sw] + a[5 * sw]) + (a[6 * sw] + a[7 * sw]));
  }
  for (; i < n; ++i) {
    const float* r = t + static_cast<std::size_t>(i) * stride;
    for (int j = 0; j < w; ++j) out[j] += r[j];
  }
}

// Albumentations' create_piecewise_affine_maps from the drawn jitter (rows x cols x (dy, dx), float32),
// in float32 as numpy evaluates it. Control point k = r * cols + c sits at (linspace(0, W-1, cols)[c],
// linspace(0, H-1, rows)[r]) and moves to the jittered point clipped to the image. For pixel (j, i):
// w_k = 1 / ((j - x_k)^2 + (i - y_k)^2 + 1e-8), w /= sum(w), map = (sum(w dst_x), sum(w dst_y)) with
// numpy's pairwise sums, each map clipped to the image. Computed a row at a time, column-vectorised.
void piecewise_maps(RemapField& f, int rows, int cols, const std::vector<float>& jitter) {
  const int w = f.out_width, h = f.out_height, n = rows * cols;
  std::vector<float> gx(static_cast<std::size_t>(cols)), gy(static_cast<std::size_t>(rows));
  numpy_linspace(gx.data(), 0.0, w - 1.0, cols);
  numpy_linspace(gy.data(), 0.0, h - 1.0, rows);
  const float wmax = static_cast<float>(w - 1), hmax = static_cast<float>(h - 1);
  std::vector<float> sx(static_cast<std::size_t>(n)), sy(sx.size()), dx(sx.size()), dy(sx.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const std::size_t k = static_cast<std::size_t>(r) * cols + c;
      sx[k] = gx[static_cast<std::size_t>(c)];
      sy[k] = gy[static_cast<std::size_t>(r)];
      dy[k] = std::clamp(sy[k] + jitter[2 * k], 0.f, hmax);
      dx[k] = std::clamp(sx[k] + jitter[2 * k + 1], 0.f, wmax);
    }
  const std::size_t sw = static_cast<std::size_t>(w);
  std::vector<float> weights(static_cast<std::size_t>(n) * sw), terms(weights.size()), sum(sw), acc(8 * sw), cols_f(sw);
  for (int j = 0; j < w; ++j) cols_f[static_cast<std::size_t>(j)] = static_cast<float>(j);
  f.separable = false;
  f.map_x.assign(sw * static_cast<std::size_t>(h), 0.f);
  f.map_y.assign(f.map_x.size(), 0.f);
  for (int i = 0; i < h; ++i) {
    const float fi = static_cast<float>(i);
    for (int k = 0; k < n; ++k) {
      const float ddy = fi - sy[static_cast<std::size_t>(k)];
      const float dyy = ddy * ddy, x0 = sx[static_cast<std::size_t>(k)];
      float* wk = weights.data() + static_cast<std::size_t>(k) * sw;
      for (int j = 0; j < w; ++j) {
        const float ddx = cols_f[static_cast<std::size_t>(j)] - x0;
        const float dist = ddx * ddx + dyy;
        wk[j] = 1.f / (dist + 1e-8f);
      }
    }
    pairwise_columns(weights.data(), sw, n, w, sum.data(), acc.data());
    for (int k = 0; k < n; ++k) {
      float* wk = weights.data() + static_cast<std::size_t>(k) * sw;
      for (int j = 0; j < w; ++j) wk[j] /= sum[static_cast<std::size_t>(j)];
    }
    float* mx = f.map_x.data() + static_cast<std::size_t>(i) * sw;
    float* my = f.map_y.data() + static_cast<std::size_t>(i) * sw;
    for (int pass = 0; pass < 2; ++pass) {
      const std::vector<float>& dst = pass == 0 ? dx : dy;
      float* out = pass == 0 ? mx : my;
      const float hi = pass == 0 ? wmax : hmax;
      for (int k = 0; k < n; ++k) {
        const float* wk = weights.data() + static_cast<std::size_t>(k) * sw;
        float* tk = terms.data() + static_cast<std::size_t>(k) * sw;
        const float v = dst[static_cast<std::size_t>(k)];
        for (int j = 0; j < w; ++j) tk[j] = wk[j] * v;
      }
      pairwise_columns(terms.data(), sw, n, w, out, acc.data());
      for (int j = 0; j < w; ++j) out[j] = std::min(std::max(out[j], 0.f), hi);
    }
  }
}

// Albumentations 1.x's interpolation was an skimage order (0, 1 or 3).
std::string skimage_order(const TransformReader& t, const char* key) {
  const double o = t.number(key, 1);
  if (o == 0) return "nearest";
  if (o == 1) return "bilinear";
  if (o == 3) return "bicubic";
  t.fail(std::string(key) + " (skimage order) " + std::to_string(static_cast<int>(o)) +
         " is not available (0, 1 and 3 are)");
}

// 1.x's skimage modes as border words.
std::string skimage_mode(const TransformReader& t) {
  const std::string m = t.saved().at("mode").get<std::string>();
  if (m == "constant") return "constant";
  if (m == "edge") return "replicate";
  if (m == "symmetric") return "reflect";
  if (m == "reflect") return "reflect101";
  if (m == "wrap") return "wrap";
  t.fail("mode \"" + m + "\" is not available");
}

// A count or a [lo, hi] pair, each end at least 2 (Albumentations clips the drawn count to >= 2).
ojson count_range(const TransformReader& t, const char* key) {
  if (!t.has(key)) return ispan(4, 4);
  const nlohmann::json& v = t.saved().at(key);
  if (v.is_array() && v.size() == 2)
    return ispan(std::max(2.0, v[0].get<double>()), std::max(2.0, v[1].get<double>()));
  const double x = std::max(2.0, t.number(key, 4));
  return ispan(x, x);
}

ojson convert_piecewise(const TransformReader& t) {
  const bool v2 = t.release_2() || t.has("fill") || t.has("fill_mask") || t.has("border_mode");
  ojson s{{"stage", "piecewise_affine"}};
  if (t.has("scale") && t.saved().at("scale").is_array() && t.saved().at("scale").size() == 2)
    s["scale"] = span(t.saved().at("scale")[0].get<double>(), t.saved().at("scale")[1].get<double>());
  else
    s["scale"] = span(t.number("scale", 0.03), t.has("scale") ? t.number("scale", 0.03) : 0.05);
  s["nb_rows"] = count_range(t, "nb_rows");
  s["nb_cols"] = count_range(t, "nb_cols");
  s["absolute_scale"] = t.flag("absolute_scale", false);
  if (v2) {
    s["interpolation"] = t.warp_interpolation();
    s["border"] = t.border(0);
  } else {
    s["interpolation"] = skimage_order(t, t.has("order") ? "order" : "interpolation");
    s["border"] = t.has("mode") && t.saved().at("mode").is_string() ? skimage_mode(t) : std::string("constant");
    t.note("Albumentations 1.x's piecewise affine warp (skimage's triangulation) is reproduced by 2.x's "
           "inverse-distance maps: the same kind of warp, not the same pixels");
  }
  t.fill(s);
  t.mask_fill();
  return s;
}

const StageSpec& piecewise_affine_spec() {
  static const StageSpec spec{
      .name = "piecewise_affine",
      .family = "geometry",
      .summary = "Piecewise affine warp (Albumentations 2.x PiecewiseAffine): a grid of control points moved by "
                 "normal jitter, the map interpolated by inverse-distance weights; 8-bit equals cv::remap with the "
                 "same maps.",
      .notes = {"As Albumentations 2.x: nb_rows x nb_cols control points on linspace(0, H-1) x linspace(0, W-1), "
                "each moved by N(0, s min(W, H) / 3) per axis (s drawn from scale; s / 3 with absolute_scale) and "
                "clipped to the image; every output pixel samples the inverse-distance-weighted mean of the moved "
                "points, all in float32 with numpy's pairwise sums, as create_piecewise_affine_maps computes it.",
                "Albumentations 1.x (and imgaug's IAAPiecewiseAffine) warped through skimage's triangulated "
                "piecewise affine transform instead: imported pipelines get 2.x's maps, a similar warp but not the "
                "same pixels.",
                "Building the maps costs the number of control points per pixel (16 by default).",
                "Labels move through the map (points through its inverse, boxes from the moved outline), masks are "
                "sampled nearest through the same map on the run's device."},
      .params = {kScale, kRows, kCols, kAbsoluteScale, kInterpolation, kBorder, kFill},
      .default_p = 0.5,
      .tolerance = {.reason = "the maps are built once on the host; integer images: cv::remap's fixed-point "
                              "arithmetic; float images: the same binary32 operations in the same order"},
      .example = {{"stage", "piecewise_affine"}, {"scale", {0.03, 0.05}}, {"nb_rows", 4}, {"nb_cols", 4}, {"p", 0.5}},
      .cases = {R"({"scale": [0.03, 0.05]})",
                R"({"scale": [0.05, 0.1], "nb_rows": [3, 5], "nb_cols": [2, 6], "interpolation": "nearest", "border": "reflect101"})",
                R"({"scale": 4, "absolute_scale": true, "nb_rows": 3, "border": "replicate"})",
                R"({"scale": [0.02, 0.08], "interpolation": "bicubic", "fill": [255, 128, 0]})",
                R"({"scale": 0.06, "nb_rows": 5, "nb_cols": 3, "border": "wrap"})"},
      .no_identity = "no jitter gives the identity: even unmoved control points give an inverse-distance map that "
                     "pulls pixels towards the grid (Albumentations' maps)",
      .bench = {R"({})", R"({"nb_rows": 6, "nb_cols": 6, "interpolation": "nearest"})"},
      .arithmetic = R"md(
Albumentations 2.x's **PiecewiseAffine** (`create_piecewise_affine_maps`); `p` 0.5.

- **Draws**: `rows` from `nb_rows`, `cols` from `nb_cols` (integers, both ends included), `s` from
  `scale`; then `rows × cols × 2` normal values (per point `dy`, then `dx`), each
  `sigma Φ⁻¹(u)` with `sigma = s min(W, H) / 3` (`s / 3` with `absolute_scale`), stored as float32.
- **Control points** (float32): `x_c = linspace(0, W-1, cols)`, `y_r = linspace(0, H-1, rows)`
  (numpy's linspace in double, stored as float32); moved to
  `X = clip(x + dx, 0, W-1)`, `Y = clip(y + dy, 0, H-1)`.
- **Maps**, per output pixel `(j, i)`, in float32 in numpy's order: `d_k = (j - x_k)² + (i - y_k)²`,
  `w_k = 1 / (d_k + 1e-8)`, `w_k /= Σ w`, `map_x = Σ w_k X_k`, `map_y = Σ w_k Y_k`, each sum numpy's
  pairwise float32 sum (below 8 terms in order; else eight running sums combined as
  `((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))`, then the remaining terms; above 128 terms the two halves);
  finally `map_x` clipped to `[0, W-1]` and `map_y` to `[0, H-1]`.
- **Sampling**: the [warp engine](../arithmetic.md#warp-engine)'s remap, so 8-bit outputs equal
  `cv::remap` with these maps. The maps are built on the host once per image and used by every backend.
- The manifest records `rows`, `cols`, `scale` (the drawn s), `absolute_scale`, `jitter` (the float32
  values, per point `dy, dx`), and `interpolation`, `border`, `fill`.
)md",
      .imports = {{.name = "PiecewiseAffine",
                   .aliases = {"IAAPiecewiseAffine"},
                   .how = "scale, nb_rows, nb_cols (each count at least 2), absolute_scale, interpolation (1.x: an "
                          "skimage order 0 / 1 / 3; 2.x: cv2's), border_mode / fill (2.x) or mode / cval (1.x, "
                          "skimage's mode names); 1.x's triangulated warp becomes 2.x's maps",
                   .convert = &convert_piecewise,
                   .python = {
                       {"PiecewiseAffine",
                        "scale nb_rows nb_cols interpolation mask_interpolation cval cval_mask mode absolute_scale "
                        "always_apply keypoints_threshold p",
                        "scale nb_rows nb_cols interpolation mask_interpolation absolute_scale "
                        "keypoint_remapping_method p border_mode fill fill_mask",
                        0.5},
                       {"IAAPiecewiseAffine", "scale nb_rows nb_cols order cval mode always_apply p", "-", 0.5}}}},
      .counterpart = {.call = "cv::remap",
                      .how = "the maps of the recorded grid and jitter (Albumentations' inverse-distance formula, a "
                             "plain loop over pixels and control points), interpolation, border and fill",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const int rows = m.at("rows").get<int>(), cols = m.at("cols").get<int>();
                        const auto jitter = m.at("jitter").get<std::vector<float>>();
                        const RemapField settings = recorded_remap_settings(m, src.cols, src.rows);
                        return [&dst, src, rows, cols, jitter, settings] {
                          RemapField r = settings;
                          piecewise_maps(r, rows, cols, jitter);
                          remap_with_opencv(src, dst, r);
                        };
                      }},
  };
  return spec;
}

class PiecewiseAffine final : public Stage {
 public:
  explicit PiecewiseAffine(const StageConfig& c)
      : scale_(c.get(kScale)),
        rows_(c.get(kRows)),
        cols_(c.get(kCols)),
        absolute_(c.get(kAbsoluteScale)),
        interp_(c.get(kInterpolation)),
        border_(c.get(kBorder)),
        fill_(warp_fill(c.get(kFill))) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int rows = static_cast<int>(rows_.sample(d)), cols = static_cast<int>(cols_.sample(d));
    const double s = scale_.sample(d);
    const double sigma = absolute_ ? s / 3.0 : s * std::min(in.width, in.height) / 3.0;
    std::vector<float> jitter(2 * static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
    for (float& v : jitter) {
      double u = d.uniform();
      if (u <= 0.0) u = 0x1p-54;  // Phi^-1(0) is -inf; the smallest draw above it
      v = static_cast<float>(sigma * normal_quantile(u));
    }
    const RemapField f = remap_settings(in, d, interp_, border_, fill_);
    auto maps = std::make_shared<const FieldMaps>(
        [rows, cols, jitter](RemapField& r) { piecewise_maps(r, rows, cols, jitter); });
    return std::make_unique<RemapOp>(in, f, std::move(maps),
                                     nlohmann::json{{"rows", rows},
                                                    {"cols", cols},
                                                    {"scale", s},
                                                    {"absolute_scale", absolute_},
                                                    {"jitter", jitter}});
  }

 private:
  NumberParam scale_;
  IntegerParam rows_, cols_;
  bool absolute_;
  Drawn<Interp> interp_;
  Drawn<Border> border_;
  std::array<double, 4> fill_;
};

}  // namespace
}  // namespace piecewise_affine_impl

StageType piecewise_affine_stage() {
  return stage_type<piecewise_affine_impl::PiecewiseAffine>(&piecewise_affine_impl::piecewise_affine_spec);
}

}  // namespace aug
