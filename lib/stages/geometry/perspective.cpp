// perspective: torchvision's RandomPerspective (four corners moved inwards by integer offsets drawn
// in border bands) or, given `scale`, Albumentations' Perspective (corners moved by folded normal
// draws, the quad stretched to the image) on the warp engine; 8-bit images equal
// cv::warpPerspective with the recorded matrix.
#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <utility>

#include "lib/stages/geometry/warp_op.hpp"
#include "lib/stages/noise/normal_table.hpp"  // normal_quantile

namespace aug {

namespace perspective_impl {
namespace {

const Param<NumberParam> kDistortion{{.name = "distortion_scale",
                                      .doc = "how far the corners may move, as a fraction of half the width and "
                                             "height; [lo, hi] draws one per image",
                                      .default_value = 0.5,
                                      .random = true,
                                      .min = Bound{0},
                                      .max = Bound{1}}};
const Param<NumberParam> kScale{{.name = "scale",
                                 .doc = "Albumentations' Perspective instead of torchvision's draw: the standard "
                                        "deviation of the corner offsets, as fractions of the width and height; "
                                        "[lo, hi] draws one per image (uniform); not with distortion_scale",
                                 .optional = true,
                                 .random = true,
                                 .min = Bound{0},
                                 .max = Bound{1}}};
const Param<bool> kKeepSize{{.name = "keep_size",
                             .doc = "with scale: warp to the input's size (default true) instead of the quad's "
                                    "longest sides (max_w, max_h)",
                             .optional = true}};
const Param<bool> kFitOutput{{.name = "fit_output",
                              .doc = "with scale: move and size the output so that the whole warped image fits "
                                     "(default false)",
                              .optional = true}};
const Choice<Interp> kInterpolation = warp_interpolation_param();
const Choice<Border> kBorder = warp_border_param();
const Param<std::vector<double>> kFill = fill_param();

// Albumentations' Perspective (1.x and 2.x) and 1.x's IAAPerspective as the stage's `scale` draw.
ojson albumentations_perspective(const TransformReader& t, bool imgaug) {
  ojson s{{"stage", "perspective"}};
  std::pair<double, double> scale{0.05, 0.1};
  if (t.has("scale")) scale = t.limit("scale", scale, false);
  if (scale.first < 0) t.fail("scale " + t.saved().at("scale").dump() + " is negative");
  s["scale"] = span(scale.first, scale.second);
  s["keep_size"] = t.flag("keep_size", true);
  if (imgaug) {
    t.note("IAAPerspective: imgaug's corner draw (folded normal offsets) is reproduced by Albumentations' Perspective "
           "draw, written to replace it; the quad is warped to the image in one step as Albumentations 2.x does");
    return s;
  }
  s["fit_output"] = t.flag("fit_output", false);
  s["interpolation"] = t.warp_interpolation();
  if (t.has("pad_mode") || t.has("pad_val") || t.has("mask_pad_val")) {  // 1.x's names
    const nlohmann::json& m = t.has("pad_mode") ? t.saved().at("pad_mode") : nlohmann::json(0);
    if (!m.is_number_integer()) t.fail("\"pad_mode\" must be a cv2.BORDER_* code, not " + m.dump());
    static const char* const kBorders[] = {"constant", "replicate", "reflect", "wrap", "reflect101"};
    const int v = m.get<int>();
    if (v < 0 || v > 4) t.fail("pad_mode " + std::to_string(v) + " has no stage equivalent");
    s["border"] = kBorders[v];
    if (t.has("pad_val")) {
      const nlohmann::json& f = t.saved().at("pad_val");
      const bool numbers = f.is_number() || (f.is_array() && std::all_of(f.begin(), f.end(), [](const nlohmann::json& e) {
                                               return e.is_number();
                                             }));
      if (!numbers) t.fail("\"pad_val\" must be a number or a list of numbers, not " + f.dump());
      s["fill"] = f;
    }
    if (t.has("mask_pad_val"))
      t.note("mask_pad_val is unused by Albumentations 1.x's Perspective (its masks are padded with pad_val); the "
             "masks' fill is the pipeline's");
  } else {
    s["border"] = t.border(0);
    t.fill(s);
    t.mask_fill();
  }
  if (t.has("pad_mode") || t.has("pad_val") || t.has("mask_pad_val") || t.release().first == 1)
    t.note("Perspective (1.x): drawn as 2.x draws it (offsets mod 0.32, one warp to the image) instead of 1.x's warp "
           "to (max_w, max_h) then resize");
  return s;
}

const StageSpec& perspective_spec() {
  static const StageSpec spec{
      .name = "perspective",
      .family = "geometry",
      .summary = "Random perspective as torchvision's RandomPerspective (distortion_scale: the corners move inwards by "
                 "integer offsets) or, given scale, as Albumentations 2.x's Perspective (normal corner offsets, the "
                 "quad stretched to the image); 8-bit equals cv::warpPerspective with the recorded matrix.",
      .notes = {"Draws as torchvision v2's RandomPerspective.get_params: bw = int(d * (W // 2)) + 1 and bh = int(d * "
                "(H // 2)) + 1; the corners top-left, top-right, bottom-right, bottom-left, x before y, each an "
                "integer uniform in its band: top-left ([0, bw), [0, bh)), top-right ([W-bw, W), [0, bh)), "
                "bottom-right ([W-bw, W), [H-bh, H)), bottom-left ([0, bw), [H-bh, H)). The input corners (0, 0), "
                "(W-1, 0), (W-1, H-1), (0, H-1) go to them.",
                "The forward matrix (input corners -> drawn corners) is solved on the host in double (the 8x8 system "
                "of cv::getPerspectiveTransform, Gaussian elimination with partial pivoting, h33 = 1). An image less "
                "than 2 pixels wide or high, and distortion_scale 0, give the identity. When three drawn corners fall on a "
                "line the matrix is singular (as cv::getPerspectiveTransform's) and the output is what "
                "cv::warpPerspective makes of it.",
                "Given `scale` (instead of distortion_scale), the draw and matrix are Albumentations 2.x's Perspective: "
                "s ~ U(scale), then eight offsets |N(0, s)| mod 0.32 (tl x, tl y, tr x, tr y, br x, br y, bl x, bl y) "
                "give the points (a, b), (1 - a, b), (1 - a, 1 - b), (a, 1 - b) times (W, H), ordered tl, tr, br, bl "
                "(sorted by x, each pair by y) and held in binary32; a side shorter than 2 pixels is widened to 2 by "
                "Albumentations' nudges; max_w = int(longer of top and bottom), max_h = int(longer of the sides). "
                "M sends the quad to the image rectangle (0, 0), (W, 0), (W, H), (0, H), solved as "
                "cv::getPerspectiveTransform solves it on binary32 points (reproduced operation for operation, so "
                "the matrix is OpenCV's to the bit). With fit_output, the image "
                "rectangle goes through M, is shifted to start at 0 and rounded (half to even), M is solved again "
                "from the rectangle to it and max_w, max_h are its extents. keep_size (default): one warp with "
                "diag(W / max_w, H / max_h) * M and size (W, H); otherwise M and size (max_w, max_h). The normal "
                "draws are Phi^-1 of uniform draws of the keyed generator.",
                "Albumentations 1.x's Perspective (and the imgaug PerspectiveTransform that 1.x's IAAPerspective "
                "wrapped, which 1.x's Perspective was written to replace) draw the same folded normal offsets, "
                "modulo 1 instead of 0.32 (the same draw unless an offset passes 0.32, 3.2 standard deviations at "
                "the default 0.1), but send the quad to (max_w, max_h) and resize that to (W, H) with keep_size; "
                "here the 2.x single warp is used for every release.",
                "The manifest records the drawn `corners` and the forward 3x3 `matrix` (what cv::warpPerspective "
                "takes without WARP_INVERSE_MAP), `width`, `height`, `interpolation`, `border` and `fill` (with "
                "scale also `scale`, `max_width`, `max_height`); 8-bit images equal cv::warpPerspective with them to "
                "the bit. torchvision's and Albumentations' default p is 0.5; here 1."},
      .params = {kDistortion, kScale, kKeepSize, kFitOutput, kInterpolation, kBorder, kFill},
      .at_most_one_of = {{"distortion_scale", "scale"}},
      .tolerance = {.reason = "integer images: the per-pixel projection in IEEE double without contraction, then "
                              "integer arithmetic; float images: the same binary32 operations in the same order on "
                              "every backend"},
      .example = {{"stage", "perspective"}, {"distortion_scale", 0.5}, {"p", 0.5}},
      .cases = {R"({})",
                R"({"distortion_scale": 0.2, "interpolation": "nearest", "border": "replicate"})",
                R"({"distortion_scale": 0.05, "interpolation": "bicubic", "border": "reflect"})",
                R"({"distortion_scale": [0.3, 0.9], "border": "reflect101"})",
                R"({"distortion_scale": 1, "border": "wrap", "interpolation": "nearest"})",
                R"({"distortion_scale": 0.7, "fill": [0, 255, 40], "interpolation": "bicubic"})",
                R"({"scale": [0.05, 0.1]})",
                R"({"scale": 0.3, "keep_size": false, "interpolation": "nearest", "border": "reflect101"})",
                R"({"scale": [0.1, 0.2], "fit_output": true, "fill": [0, 255, 40], "interpolation": "bicubic"})",
                R"({"scale": 0.2, "fit_output": true, "keep_size": false, "border": "replicate"})"},
      .identity = R"({"distortion_scale": 0, "interpolation": "bicubic"})",
      .bench = {R"({"distortion_scale": 0.5})", R"({"distortion_scale": 0.3, "interpolation": "nearest"})",
                R"({"scale": [0.05, 0.1]})"},
      .arithmetic = R"md(
torchvision's corner draws (`bw = int(d*(W//2)) + 1`, integer uniforms in the
bands, tl, tr, br, bl, x then y); the 8x8 system of `cv::getPerspectiveTransform` solved in double
by Gaussian elimination with partial pivoting (`h33 = 1`); identity when the corners do not move
or the image is under 2 pixels wide or high.

With `scale` (Albumentations 2.x's Perspective): `s ~ U(scale)`; eight offsets
`o = fmod(|s * Phi^-1(u)|, 0.32)` in the order tl x, tl y, tr x, tr y, br x, br y, bl x, bl y; the
points `(a, b)`, `(1 - a, b)`, `(1 - a, 1 - b)`, `(a, 1 - b)` scaled by `(W, H)` in double; ordered
by a stable sort on x, the two left ones by y (tl above bl), the two right ones likewise, then rounded
to binary32. Side lengths in binary32 (`sqrt(dx*dx + dy*dy)`); a side shorter than 2 is nudged
apart by `(2 - size)/2` on each coordinate in Albumentations' order (top, bottom, right, left:
`(tr, tl)`, `(br, bl)`, `(br, tr)`, `(bl, tl)`), and counts 2; `max_w = int(max(top, bottom))`,
`max_h = int(max(right, left))`. `M` sends the quad to `(0,0), (W,0), (W,H), (0,H)`, solved as
`cv::getPerspectiveTransform` does on binary32 points, operation for operation: the products `-x*u`
of the 8x8 system formed in binary32, then OpenCV's LU (partial pivoting, each row updated by
`alpha = a[j][i] * (-1/pivot)`, back substitution divided by the pivot).
`fit_output`: that rectangle through `M` (in double, stored in binary32), minus its minimum per axis,
rounded half to even; `M` solved again from the rectangle to it; `max_w`, `max_h` its largest x and y,
truncated. `keep_size`: the rows of `M` times `W/max_w`, `H/max_h`, output `(W, H)`; otherwise `M`
and `(max_w, max_h)`.

The matrix is resolved on the host; the pixels are the [warp engine](../arithmetic.md#warp-engine)'s, so 8-bit outputs equal `cv::warpAffine` / `cv::warpPerspective` run with the `matrix`, `width`, `height`, `interpolation`, `border` and `fill` the manifest records.
)md",
      .imports = {
          {.name = "Perspective",
           .how = "scale (a number s is [0, s]), keep_size, fit_output, interpolation, pad_mode / border_mode, "
                  "pad_val / fill, mask_pad_val / fill_mask; the 2.x draw and single warp",
           .convert = [](const TransformReader& t) { return albumentations_perspective(t, false); },
           .python = {
               {"Perspective",
                "scale keep_size pad_mode pad_val mask_pad_val fit_output interpolation always_apply p",
                "scale keep_size fit_output interpolation mask_interpolation border_mode fill fill_mask p",
                0.5}}},
          {.name = "IAAPerspective",
           .how = "imgaug's PerspectiveTransform as 1.x wrapped it: scale (default [0.05, 0.1]), keep_size; "
                  "Albumentations' corner draw, which reproduces imgaug's",
           .convert = [](const TransformReader& t) { return albumentations_perspective(t, true); },
           .python = {{"IAAPerspective", "scale keep_size always_apply p", "-", 0.5}}}},
      .counterpart = warp_counterpart(),
  };
  return spec;
}

using Point = std::array<double, 2>;

// The forward matrix sending src[i] to dst[i]: cv::getPerspectiveTransform's 8x8 system, solved by
// Gaussian elimination with partial pivoting in double. False when it is singular.
bool perspective_matrix(const std::array<Point, 4>& src, const std::array<Point, 4>& dst, std::array<double, 9>& m) {
  double a[8][9] = {};
  for (int i = 0; i < 4; ++i) {
    const double x = src[i][0], y = src[i][1], u = dst[i][0], v = dst[i][1];
    double* r = a[i];
    r[0] = x, r[1] = y, r[2] = 1, r[6] = -x * u, r[7] = -y * u, r[8] = u;
    r = a[i + 4];
    r[3] = x, r[4] = y, r[5] = 1, r[6] = -x * v, r[7] = -y * v, r[8] = v;
  }
  for (int col = 0; col < 8; ++col) {
    int pivot = col;
    for (int r = col + 1; r < 8; ++r)
      if (std::fabs(a[r][col]) > std::fabs(a[pivot][col])) pivot = r;
    if (std::fabs(a[pivot][col]) < 1e-12) return false;
    if (pivot != col)
      for (int k = 0; k < 9; ++k) std::swap(a[col][k], a[pivot][k]);
    for (int r = col + 1; r < 8; ++r) {
      const double f = a[r][col] / a[col][col];
      if (f == 0.0) continue;
      for (int k = col; k < 9; ++k) a[r][k] -= f * a[col][k];
    }
  }
  double h[8];
  for (int r = 7; r >= 0; --r) {
    double s = a[r][8];
    for (int k = r + 1; k < 8; ++k) s -= a[r][k] * h[k];
    h[r] = s / a[r][r];
  }
  for (int i = 0; i < 8; ++i) m[static_cast<std::size_t>(i)] = h[i];
  m[8] = 1.0;
  for (double v : m)
    if (!std::isfinite(v)) return false;
  return true;
}

using PointF = std::array<float, 2>;

// cv::getPerspectiveTransform on binary32 points, operation for operation: the 8x8 system with the
// products -x*u formed in binary32, solved as cv::solve's DECOMP_LU does (OpenCV's LUImpl: partial
// pivoting, rows updated by alpha = a[j][i] * (-1 / pivot), back substitution divided by the pivot;
// singular below 100 DBL_EPSILON). False when singular.
bool opencv_perspective_transform(const std::array<PointF, 4>& src, const std::array<PointF, 4>& dst,
                                  std::array<double, 9>& m) {
  double a[8][8] = {}, b[8];
  for (int i = 0; i < 4; ++i) {
    a[i][0] = a[i + 4][3] = src[i][0];
    a[i][1] = a[i + 4][4] = src[i][1];
    a[i][2] = a[i + 4][5] = 1;
    a[i][6] = -src[i][0] * dst[i][0];
    a[i][7] = -src[i][1] * dst[i][0];
    a[i + 4][6] = -src[i][0] * dst[i][1];
    a[i + 4][7] = -src[i][1] * dst[i][1];
    b[i] = dst[i][0];
    b[i + 4] = dst[i][1];
  }
  for (int i = 0; i < 8; ++i) {
    int k = i;
    for (int j = i + 1; j < 8; ++j)
      if (std::fabs(a[j][i]) > std::fabs(a[k][i])) k = j;
    if (std::fabs(a[k][i]) < DBL_EPSILON * 100) return false;
    if (k != i) {
      for (int j = i; j < 8; ++j) std::swap(a[i][j], a[k][j]);
      std::swap(b[i], b[k]);
    }
    const double d = -1 / a[i][i];
    for (int j = i + 1; j < 8; ++j) {
      const double alpha = a[j][i] * d;
      for (int c = i + 1; c < 8; ++c) a[j][c] += alpha * a[i][c];
      b[j] += alpha * b[i];
    }
  }
  for (int i = 7; i >= 0; --i) {
    double s = b[i];
    for (int k = i + 1; k < 8; ++k) s -= a[i][k] * b[k];
    b[i] = s / a[i][i];
  }
  for (int i = 0; i < 8; ++i) m[static_cast<std::size_t>(i)] = b[i];
  m[8] = 1.0;
  for (double v : m)
    if (!std::isfinite(v)) return false;
  return true;
}

// Albumentations 2.x's minimum-side fix of one side (a, b) in binary32, in place: the side's length,
// or 2 after nudging a shorter side apart (numpy's masked updates, one statement after the other).
float albumentations_side(PointF& a, PointF& b) {
  const float dx = a[0] - b[0], dy = a[1] - b[1];
  const float size = std::sqrt(dx * dx + dy * dy);
  if (!(size < 2.0f)) return size;
  const float step = (2.0f - size) / 2.0f;
  for (int k = 0; k < 2; ++k)
    if (a[k] > b[k]) a[k] += step;
  for (int k = 0; k < 2; ++k)
    if (a[k] > b[k]) b[k] -= step;
  for (int k = 0; k < 2; ++k)
    if (a[k] <= b[k]) a[k] -= step;
  for (int k = 0; k < 2; ++k)
    if (a[k] <= b[k]) b[k] += step;
  return 2.0f;
}

class Perspective final : public Stage {
 public:
  explicit Perspective(const StageConfig& c)
      : distortion_(c.get(kDistortion)),
        interp_(c.get(kInterpolation)),
        border_(c.get(kBorder)),
        fill_(warp_fill(c.get(kFill))) {
    albumentations_ = c.has(kScale);
    if (albumentations_) {
      scale_ = c.get(kScale);
      if (c.has(kKeepSize)) keep_size_ = c.get(kKeepSize);
      if (c.has(kFitOutput)) fit_output_ = c.get(kFitOutput);
    } else {
      if (c.has(kKeepSize)) c.fail(kKeepSize, "applies to Albumentations' draw only: give scale, not distortion_scale");
      if (c.has(kFitOutput))
        c.fail(kFitOutput, "applies to Albumentations' draw only: give scale, not distortion_scale");
    }
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    return albumentations_ ? resolve_albumentations(d, in) : resolve_torchvision(d, in);
  }

 private:
  std::unique_ptr<Op> resolve_torchvision(Draws& d, const Shape& in) const {
    const double scale = distortion_.sample(d);
    const std::int64_t W = in.width, H = in.height;
    const std::int64_t bw = static_cast<std::int64_t>(scale * static_cast<double>(W / 2)) + 1;
    const std::int64_t bh = static_cast<std::int64_t>(scale * static_cast<double>(H / 2)) + 1;
    // torchvision: randint(lo, hi) excludes hi; Draws::integer includes it.
    std::array<Point, 4> end{};
    const std::int64_t tlx = d.integer(0, bw - 1), tly = d.integer(0, bh - 1);
    const std::int64_t trx = d.integer(W - bw, W - 1), try_ = d.integer(0, bh - 1);
    const std::int64_t brx = d.integer(W - bw, W - 1), bry = d.integer(H - bh, H - 1);
    const std::int64_t blx = d.integer(0, bw - 1), bly = d.integer(H - bh, H - 1);
    end[0] = {static_cast<double>(tlx), static_cast<double>(tly)};
    end[1] = {static_cast<double>(trx), static_cast<double>(try_)};
    end[2] = {static_cast<double>(brx), static_cast<double>(bry)};
    end[3] = {static_cast<double>(blx), static_cast<double>(bly)};
    const double w1 = static_cast<double>(W - 1), h1 = static_cast<double>(H - 1);
    const std::array<Point, 4> start{Point{0, 0}, Point{w1, 0}, Point{w1, h1}, Point{0, h1}};
    Warp w;
    w.interp = interp_.sample(d);
    w.border = border_.sample(d);
    w.fill = fill_;
    w.out_width = in.width;
    w.out_height = in.height;
    if (W >= 2 && H >= 2 && end != start) {
      std::array<double, 9> m{};
      if (perspective_matrix(start, end, m)) w.matrix = m;
    }
    nlohmann::json corners = nlohmann::json::array();
    for (const Point& p : end) corners.push_back({static_cast<long long>(p[0]), static_cast<long long>(p[1])});
    return std::make_unique<WarpOp>(in, w, nlohmann::json{{"distortion_scale", scale}, {"corners", corners}});
  }

  // Albumentations 2.x's Perspective: get_params_dependent_on_data, generate_perspective_points,
  // order_points, compute_perspective_params, expand_transform and the keep_size scaling.
  std::unique_ptr<Op> resolve_albumentations(Draws& d, const Shape& in) const {
    const double s = scale_.sample(d);
    const double W = static_cast<double>(in.width), H = static_cast<double>(in.height);
    std::array<Point, 4> pts{};
    for (auto& p : pts)
      for (double& v : p) {
        double u = d.uniform();
        if (u <= 0.0) u = 0x1p-54;  // Phi^-1(0) is -inf; the smallest draw above it
        v = std::fmod(std::fabs(s * normal_quantile(u)), 0.32);
      }
    pts[1][0] = 1.0 - pts[1][0];
    pts[2][0] = 1.0 - pts[2][0];
    pts[2][1] = 1.0 - pts[2][1];
    pts[3][1] = 1.0 - pts[3][1];
    for (auto& p : pts) p[0] *= W, p[1] *= H;
    // order_points: a stable sort on x; the left pair and the right pair each ordered by y.
    std::stable_sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a[0] < b[0]; });
    const bool left_up = pts[0][1] < pts[1][1], right_up = pts[2][1] < pts[3][1];
    const Point tl = left_up ? pts[0] : pts[1], bl = left_up ? pts[1] : pts[0];
    const Point tr = right_up ? pts[2] : pts[3], br = right_up ? pts[3] : pts[2];
    std::array<PointF, 4> q{};
    const Point ordered[4] = {tl, tr, br, bl};
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 2; ++k) q[i][k] = static_cast<float>(ordered[i][k]);
    const float top = albumentations_side(q[1], q[0]), bottom = albumentations_side(q[2], q[3]);
    const float right = albumentations_side(q[2], q[1]), left = albumentations_side(q[3], q[0]);
    int max_w = static_cast<int>(std::max(top, bottom)), max_h = static_cast<int>(std::max(right, left));

    const float fw = static_cast<float>(in.width), fh = static_cast<float>(in.height);
    const std::array<PointF, 4> rect{PointF{0, 0}, PointF{fw, 0}, PointF{fw, fh}, PointF{0, fh}};
    std::array<double, 9> m{1, 0, 0, 0, 1, 0, 0, 0, 1};
    bool solved = opencv_perspective_transform(q, rect, m);
    if (solved && fit_output_) {
      // cv::perspectiveTransform on binary32 points: double arithmetic, binary32 results.
      std::array<PointF, 4> e{};
      for (int i = 0; i < 4; ++i) {
        const double x = rect[i][0], y = rect[i][1];
        const double w = m[6] * x + m[7] * y + m[8];
        if (std::fabs(w) > static_cast<double>(FLT_EPSILON)) {
          e[i][0] = static_cast<float>((m[0] * x + m[1] * y + m[2]) * (1.0 / w));
          e[i][1] = static_cast<float>((m[3] * x + m[4] * y + m[5]) * (1.0 / w));
        }
      }
      std::array<float, 2> lo{e[0][0], e[0][1]};
      for (int i = 1; i < 4; ++i)
        for (int k = 0; k < 2; ++k) lo[k] = std::min(lo[k], e[i][k]);
      std::array<PointF, 4> dst{};
      float hi_x = 0, hi_y = 0;
      for (int i = 0; i < 4; ++i) {
        const float x = std::nearbyint(e[i][0] - lo[0]), y = std::nearbyint(e[i][1] - lo[1]);
        dst[i] = {x, y};
        hi_x = i == 0 ? x : std::max(hi_x, x), hi_y = i == 0 ? y : std::max(hi_y, y);
      }
      solved = opencv_perspective_transform(rect, dst, m);
      max_w = static_cast<int>(hi_x), max_h = static_cast<int>(hi_y);
    }
    if (!solved) m = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    max_w = std::max(max_w, 1), max_h = std::max(max_h, 1);
    Warp w;
    w.interp = interp_.sample(d);
    w.border = border_.sample(d);
    w.fill = fill_;
    if (keep_size_) {
      const double sx = W / max_w, sy = H / max_h;
      for (int k = 0; k < 3; ++k) m[k] *= sx, m[3 + k] *= sy;
      w.out_width = in.width;
      w.out_height = in.height;
    } else {
      w.out_width = max_w;
      w.out_height = max_h;
    }
    w.matrix = m;
    nlohmann::json corners = nlohmann::json::array();
    for (const PointF& p : q) corners.push_back({static_cast<double>(p[0]), static_cast<double>(p[1])});
    return std::make_unique<WarpOp>(
        in, w, nlohmann::json{{"scale", s}, {"corners", corners}, {"max_width", max_w}, {"max_height", max_h}});
  }

  NumberParam distortion_;
  NumberParam scale_;
  bool albumentations_ = false;
  bool keep_size_ = true;
  bool fit_output_ = false;
  Drawn<Interp> interp_;
  Drawn<Border> border_;
  std::array<double, 4> fill_;
};

}  // namespace
}  // namespace perspective_impl

StageType perspective_stage() { return stage_type<perspective_impl::Perspective>(&perspective_impl::perspective_spec); }

}  // namespace aug
