// advanced_blur: Albumentations' AdvancedBlur, a rotated, anisotropic generalised Gaussian kernel
// exp(-0.5 (v^T S^-1 v)^beta) times a k x k multiplicative noise, normalised by its sum, applied as
// cv::filter2D applies it (reflect101 border) by the filter2d engine.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "lib/stages/engines/filter2d.hpp"
#include "lib/stages/engines/vocabulary.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace advanced_blur_impl {
namespace {

// cv::filter2D sums kernels under 130 entries directly (k <= 11); larger ones go through the
// engine's host driver on the CPU too.
constexpr int kMaxKernel = 63;

const Param<IntegerParam> kKernelSize = odd_kernel_size_param("kernel", kMaxKernel);

Param<NumberParam> sigma_param(const char* name, const char* axis) {
  return Param<NumberParam>({.name = name,
                             .doc = std::string("standard deviation of the Gaussian along its ") + axis +
                                    " axis (before the rotation), pixels; [lo, hi] draws one per image",
                             .default_value = {0.2, 1.0},
                             .random = true,
                             .min = Bound{0},
                             .max = Bound{100}});
}
const Param<NumberParam> kSigmaX = sigma_param("sigma_x", "first");
const Param<NumberParam> kSigmaY = sigma_param("sigma_y", "second");
const Param<NumberParam> kRotate{{.name = "rotate",
                                  .doc = "rotation of the Gaussian's axes in degrees; [lo, hi] draws one per image",
                                  .default_value = {-90, 90},
                                  .random = true,
                                  .min = Bound{-360},
                                  .max = Bound{360}}};
const Param<NumberParam> kBeta{{.name = "beta",
                                .doc = "shape of the generalised Gaussian (1: a Gaussian, below 1: heavier tails, "
                                       "above: flatter top); a range [lo, hi] must contain 1: half the images "
                                       "draw in [lo, 1], half in [1, hi]",
                                .default_value = {0.5, 8.0},
                                .random = true,
                                .min = Bound{0},
                                .max = Bound{100}}};
const Param<NumberParam> kNoise{{.name = "noise",
                                 .doc = "range of the multiplicative noise, one factor drawn per kernel entry",
                                 .default_value = {0.9, 1.1},
                                 .random = true,
                                 .min = Bound{0},
                                 .max = Bound{100}}};

// Albumentations 2.x reads blur_limit as sample_odd_from_range does: each end raised to at least 3
// and made odd by adding 1 when even; a range whose ends cross collapses to its upper end.
std::pair<int, int> advanced_blur_odd_limits(double lo, double hi) {
  auto odd = [](double v) {
    int k = std::max(3, static_cast<int>(v));
    return k % 2 == 0 ? k + 1 : k;
  };
  const int a = odd(lo), b = odd(hi);
  return a > b ? std::pair{b, b} : std::pair{a, b};
}

const StageSpec& advanced_blur_spec() {
  static const StageSpec spec{
      .name = "advanced_blur",
      .family = "filter",
      .summary = "Blur with a rotated, anisotropic generalised Gaussian kernel times a multiplicative noise "
                 "(Albumentations AdvancedBlur); equal to cv::filter2D with the same kernel to the bit up to size "
                 "11 (16-bit: 7).",
      .notes = {"As Albumentations' AdvancedBlur (1.x and 2.x): on the grid -k/2..k/2 the kernel "
                "exp(-0.5 (v^T S^-1 v)^beta), S = R diag(sigma_x^2, sigma_y^2) R^T with R the rotation by the drawn "
                "angle, times a k x k noise of factors drawn in noise, normalised by its sum and rounded to float32, "
                "applied like cv::filter2D (BORDER_REFLECT_101) to every channel, alpha too. Defaults (kernel_size 3 "
                "to 7, sigma_x and sigma_y 0.2 to 1.0, rotate -90 to 90, beta 0.5 to 8, noise 0.9 to 1.1, p 0.5) are "
                "Albumentations'; its blur_limit is kernel_size, sigma_x_limit (1.x sigmaX_limit) sigma_x, and so on.",
                "Each output is a binary32 sum of the taps in row-major order, one fused multiply-add per tap: what "
                "cv::filter2D computes on CPUs with AVX2 for kernels under 130 entries (k <= 11; 16-bit images: under "
                "50, k <= 7). Beyond, OpenCV correlates through a DFT, within a level of this sum. Float results are "
                "clamped to [0, 1] as Albumentations 2.x clamps them (docs/stages/filter.md)."},
      .params = {kKernelSize, kSigmaX, kSigmaY, kRotate, kBeta, kNoise},
      .default_p = 0.5,
      .tolerance = {.reason = "the same taps and binary32 fused multiply-adds in the same order on every backend"},
      .example = {{"stage", "advanced_blur"}, {"kernel_size", {3, 7}}, {"sigma_x", {0.2, 1.0}}, {"beta", {0.5, 8.0}},
                  {"p", 0.5}},
      .cases = {R"({})",
                R"({"kernel_size": 9, "sigma_x": [1, 3], "sigma_y": 0.5, "rotate": 30, "beta": 1, "noise": 1})",
                R"({"kernel_size": [3, 5], "sigma_x": [0.5, 2], "sigma_y": [0.5, 2], "beta": [0.3, 3],
                    "noise": [0.5, 1.5]})"},
      .no_identity = "a kernel spreads a pixel over its neighbours (only the narrowest draws underflow to the identity)",
      .bench = {R"({})", R"({"kernel_size": 7})"},
      .arithmetic = R"md(
Albumentations' **AdvancedBlur** (1.x and 2.x; default `p` 0.5): a generalised Gaussian kernel,
rotated and stretched, times a multiplicative noise, applied as `cv::filter2D(img, -1, K)` applies
it, by the [filter2d engine](../arithmetic.md#filter2d-engine).

- **Draws**, in Albumentations' order: `kernel_size` `k` (each odd size of the range alike, as
  2.x's `sample_odd_from_range`; default `[3, 7]`, up to 63), `sigma_x`, `sigma_y` (default
  `[0.2, 1.0]` each), `rotate` (degrees, default `[-90, 90]`), then `beta`: a uniform `u < 0.5`
  draws it in `[beta_lo, 1]`, else in `[1, beta_hi]` (default `[0.5, 8]`; a range must contain
  1, a single number is that beta, without draws), then the noise: `k x k` factors uniform in `noise` (default `[0.9, 1.1]`), row-major. The
  manifest records all of them and the kernel.
- **Kernel** (host, double): `S = R diag(sx^2, sy^2) R^T`, `R = [[cos t, -sin t], [sin t, cos t]]`,
  `t` the angle in radians (`deg * pi / 180`), its inverse in closed form; for each entry, `x` the
  column and `y` the row, both from `-(k-1)/2` to `(k-1)/2`,
  `q = (x i00 + y i10) x + (x i01 + y i11) y` and `g = exp(-0.5 q^beta)`, times its noise factor:
  `e`. The sum `s` of the `e` is NumPy's pairwise sum (eight running sums over blocks of up to 128,
  halves beyond); each weight is `(float)((double)(float)e / s)`: the entry rounded to float32,
  divided by the double sum, and rounded again when OpenCV converts the kernel to float32 (NumPy 2's
  promotion; under NumPy 1 the division is in float32, which can move a weight by its last bit). A
  sigma below `1e-6` (Albumentations' matrix is singular at 0) is taken as `1e-6`. Narrow draws
  (sigma 0.2 and a large `beta`) underflow every entry but the centre: the identity.
- **Sum**: the engine's, over the kernel's non-zero entries in row-major order:
  `acc = fma(v, w, acc)` from 0 in binary32, reflect101 border; 8/16-bit `sat(rne(acc))`, float
  `clamp01(acc)` (Albumentations 2.x clips float results to [0, 1]; 1.x does not). Every channel,
  alpha included. This is `cv::filter2D`'s direct path on CPUs with AVX2, which the CPU backend calls
  there for `k <= 11` (16-bit: `k <= 7`); beyond, OpenCV takes a DFT (within a level of this sum) and
  the stage keeps the direct sum on every backend.
- **Checked** (`tests/stages/test_advanced_blur.cpp`): `KernelIsTheGeneralisedGaussianTimesNoise`
  (the formula written out with the manifest's draws), `EqualsCvFilter2DOnPhotographsAndOddSizes`
  (0 differing values against `cv::filter2D` with the recorded kernel: 8-bit photographs, 8- and
  16-bit, 1, 3 and 4 channels; float then clamped), `DrawsAreAlbumentations` (chi-square of the
  sizes, the beta branch split, Kolmogorov-Smirnov of sigmas, angle, both beta branches and the noise
  factors, the p gate).
)md",
      .imports = {{.name = "AdvancedBlur",
                   .how = "blur_limit is kernel_size (even ends made odd as 2.x); sigma_x_limit / sigmaX_limit, "
                          "sigma_y_limit / sigmaY_limit (a number x is [0, x]), rotate_limit (a number x is [-x, x]), "
                          "beta_limit (must contain 1), noise_limit",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "advanced_blur"}};
                     const auto [lo, hi] = t.limit("blur_limit", {3, 7}, false, 3);
                     const auto [a, b] = advanced_blur_odd_limits(lo, hi);
                     if (b > kMaxKernel)
                       t.fail("blur_limit " + std::to_string(b) + " is larger than advanced_blur's largest kernel, " +
                              std::to_string(kMaxKernel));
                     if (a != static_cast<int>(lo) || b != static_cast<int>(hi))
                       t.note("blur_limit [" + std::to_string(static_cast<int>(lo)) + ", " +
                              std::to_string(static_cast<int>(hi)) + "] read as the odd sizes [" + std::to_string(a) +
                              ", " + std::to_string(b) + "] (Albumentations 2.x)");
                     s["kernel_size"] = ispan(a, b);
                     const auto [sx0, sx1] = t.limit(t.first_of({"sigma_x_limit", "sigmaX_limit"}), {0.2, 1.0}, false);
                     s["sigma_x"] = span(sx0, sx1);
                     const auto [sy0, sy1] = t.limit(t.first_of({"sigma_y_limit", "sigmaY_limit"}), {0.2, 1.0}, false);
                     s["sigma_y"] = span(sy0, sy1);
                     const auto [r0, r1] = t.limit("rotate_limit", {-90, 90}, true);
                     s["rotate"] = span(r0, r1);
                     const auto [b0, b1] = t.limit("beta_limit", {0.5, 8.0}, false);
                     if (b0 > 1 || b1 < 1) t.fail("beta_limit must contain 1");
                     s["beta"] = span(b0, b1);
                     const auto [n0, n1] = t.limit("noise_limit", {0.9, 1.1}, false);
                     s["noise"] = span(n0, n1);
                     return s;
                   },
                   .python = {
                       {"AdvancedBlur",
                        "blur_limit sigmaX_limit sigmaY_limit rotate_limit beta_limit noise_limit always_apply p",
                        "blur_limit sigma_x_limit sigma_y_limit rotate_limit beta_limit noise_limit p",
                        0.5}}}},
      .counterpart = {.call = "cv::filter2D",
                      .how = "the recorded k x k kernel (float32), BORDER_REFLECT_101",
                      .make = filter2d_counterpart},
  };
  return spec;
}

struct Draw {
  int ksize;
  double sigma_x, sigma_y, rotate, beta;
  std::vector<double> noise;  // ksize x ksize, row-major
};

// NumPy's pairwise sum of doubles (its reduction of a contiguous array): below 8 values in turn
// from 0; up to 128, eight running sums over the blocks of 8 combined as a tree, then the rest in
// turn; beyond, the two halves (the first a multiple of 8) summed apart.
double numpy_pairwise_sum(const double* a, std::size_t n) {
  if (n < 8) {
    double r = 0.0;
    for (std::size_t i = 0; i < n; ++i) r += a[i];
    return r;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + static_cast<std::size_t>(j)];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return numpy_pairwise_sum(a, half) + numpy_pairwise_sum(a + half, n - half);
}

// The kernel as Albumentations builds it (double), normalised and rounded as it reaches
// cv::filter2D (float32).
std::vector<float> advanced_blur_kernel(const Draw& d) {
  const int k = d.ksize, half = k / 2;
  const double sx = std::max(d.sigma_x, 1e-6), sy = std::max(d.sigma_y, 1e-6);
  const double t = d.rotate * (M_PI / 180.0), c = std::cos(t), s = std::sin(t);
  const double vx = sx * sx, vy = sy * sy;
  // S = U D U^T, U = [[c, -s], [s, c]], D = diag(vx, vy).
  const double s00 = c * vx * c + (-s * vy) * (-s), s01 = c * vx * s + (-s * vy) * c;
  const double s10 = s * vx * c + c * vy * (-s), s11 = s * vx * s + c * vy * c;
  const double det = s00 * s11 - s01 * s10;
  const double i00 = s11 / det, i01 = -s01 / det, i10 = -s10 / det, i11 = s00 / det;
  std::vector<double> e(static_cast<std::size_t>(k) * k);
  for (int row = 0; row < k; ++row)
    for (int col = 0; col < k; ++col) {
      const double x = col - half, y = row - half;
      const double q = (x * i00 + y * i10) * x + (x * i01 + y * i11) * y;
      const std::size_t at = static_cast<std::size_t>(row) * k + col;
      e[at] = std::exp(-0.5 * std::pow(q, d.beta)) * d.noise[at];
    }
  const double sum = numpy_pairwise_sum(e.data(), e.size());
  std::vector<float> w(e.size(), 0.0f);
  if (!(sum > 0) || !std::isfinite(sum)) {  // all factors 0 (noise [0, 0]): the identity
    w[static_cast<std::size_t>(half) * k + half] = 1.0f;
    return w;
  }
  for (std::size_t i = 0; i < e.size(); ++i)
    w[i] = static_cast<float>(static_cast<double>(static_cast<float>(e[i])) / sum);
  return w;
}

class AdvancedBlur final : public Stage {
 public:
  explicit AdvancedBlur(const StageConfig& c)
      : ksize_(c.get(kKernelSize)),
        sigma_x_(c.get(kSigmaX)),
        sigma_y_(c.get(kSigmaY)),
        rotate_(c.get(kRotate)),
        beta_(c.get(kBeta)),
        noise_(c.get(kNoise)) {
    if (beta_.is_range && (beta_.lo > 1 || beta_.hi < 1))
      c.fail(kBeta, "a range must contain 1 (half the draws fall each side of it)");
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    Draw r{};
    r.ksize = static_cast<int>(ksize_.sample_odd(d));
    r.sigma_x = sigma_x_.sample(d);
    r.sigma_y = sigma_y_.sample(d);
    r.rotate = rotate_.sample(d);
    if (beta_.is_range) r.beta = d.uniform() < 0.5 ? d.uniform(beta_.lo, 1.0) : d.uniform(1.0, beta_.hi);
    else r.beta = beta_.lo;
    r.noise.resize(static_cast<std::size_t>(r.ksize) * r.ksize);
    for (double& f : r.noise) f = noise_.sample(d);
    nlohmann::json drawn{{kKernelSize.name, r.ksize}, {kSigmaX.name, r.sigma_x}, {kSigmaY.name, r.sigma_y},
                         {kRotate.name, r.rotate},    {kBeta.name, r.beta},       {kNoise.name, r.noise}};
    return std::make_unique<Filter2DOp>(in, std::move(drawn), Filter2D(r.ksize, advanced_blur_kernel(r), true));
  }

 private:
  IntegerParam ksize_;
  NumberParam sigma_x_, sigma_y_, rotate_, beta_, noise_;
};

}  // namespace
}  // namespace advanced_blur_impl

StageType advanced_blur_stage() { return stage_type<advanced_blur_impl::AdvancedBlur>(&advanced_blur_impl::advanced_blur_spec); }

}  // namespace aug
