// perspective: torchvision's RandomPerspective (four corners moved inwards by integer offsets drawn
// in border bands) on the warp engine; 8-bit images equal cv::warpPerspective with the recorded matrix.
#include <array>
#include <cmath>
#include <utility>

#include "lib/stages/geometry/warp_op.hpp"

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
const Choice<Interp> kInterpolation = warp_interpolation_param();
const Choice<Border> kBorder = warp_border_param();
const Param<std::vector<double>> kFill = fill_param();

const StageSpec& perspective_spec() {
  static const StageSpec spec{
      .name = "perspective",
      .family = "geometry",
      .summary = "Random perspective as torchvision's RandomPerspective: the corners move inwards by integer "
                 "offsets; 8-bit equals cv::warpPerspective with the recorded matrix.",
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
                "The manifest records the drawn `corners` and the forward 3x3 `matrix` (what cv::warpPerspective "
                "takes without WARP_INVERSE_MAP), `width`, `height`, `interpolation`, `border` and `fill`; 8-bit "
                "images equal cv::warpPerspective with them to the bit. torchvision's default p is 0.5; here 1."},
      .params = {kDistortion, kInterpolation, kBorder, kFill},
      .tolerance = {.reason = "integer images: the per-pixel projection in IEEE double without contraction, then "
                              "integer arithmetic; float images: the same binary32 operations in the same order on "
                              "every backend"},
      .example = {{"stage", "perspective"}, {"distortion_scale", 0.5}, {"p", 0.5}},
      .cases = {R"({})",
                R"({"distortion_scale": 0.2, "interpolation": "nearest", "border": "replicate"})",
                R"({"distortion_scale": 0.05, "interpolation": "bicubic", "border": "reflect"})",
                R"({"distortion_scale": [0.3, 0.9], "border": "reflect101"})",
                R"({"distortion_scale": 1, "border": "wrap", "interpolation": "nearest"})",
                R"({"distortion_scale": 0.7, "fill": [0, 255, 40], "interpolation": "bicubic"})"},
      .identity = R"({"distortion_scale": 0, "interpolation": "bicubic"})",
      .bench = {R"({"distortion_scale": 0.5})", R"({"distortion_scale": 0.3, "interpolation": "nearest"})"},
      .arithmetic = R"md(
torchvision's corner draws (`bw = int(d*(W//2)) + 1`, integer uniforms in the
bands, tl, tr, br, bl, x then y); the 8x8 system of `cv::getPerspectiveTransform` solved in double
by Gaussian elimination with partial pivoting (`h33 = 1`); identity when the corners do not move
or the image is under 2 pixels wide or high.

The matrix is resolved on the host; the pixels are the [warp engine](../arithmetic.md#warp-engine)'s, so 8-bit outputs equal `cv::warpAffine` / `cv::warpPerspective` run with the `matrix`, `width`, `height`, `interpolation`, `border` and `fill` the manifest records.
)md",
      .no_import = "torchvision's RandomPerspective; Albumentations' Perspective moves the corners by normal "
                   "draws and is not available yet",
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

class Perspective final : public Stage {
 public:
  explicit Perspective(const StageConfig& c)
      : distortion_(c.get(kDistortion)),
        interp_(c.get(kInterpolation)),
        border_(c.get(kBorder)),
        fill_(warp_fill(c.get(kFill))) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
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

 private:
  NumberParam distortion_;
  Drawn<Interp> interp_;
  Drawn<Border> border_;
  std::array<double, 4> fill_;
};

}  // namespace
}  // namespace perspective_impl

StageType perspective_stage() { return stage_type<perspective_impl::Perspective>(&perspective_impl::perspective_spec); }

}  // namespace aug
