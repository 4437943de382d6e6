// unsharp_mask: Albumentations' UnsharpMask: a Gaussian blur of the [0, 1] image, the residual
// thresholded into a mask, the mask blurred into a soft weight that blends the sharpened image
// with the original (2.x's rounding back to integers).
#include "kernels/filter/unsharp_mask.hpp"

#include <cmath>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/stages/engines/resample.hpp"
#include "lib/stages/engines/vocabulary.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace unsharp_mask_impl {
namespace {

constexpr int kMaxKernel = 31;

const Param<IntegerParam> kKernelSize = odd_kernel_size_param("Gaussian kernel", kMaxKernel);
const Param<NumberParam> kSigma{{.name = "sigma",
                                 .doc = "standard deviation of the Gaussian in pixels; 0 (the default) takes OpenCV's "
                                        "for the kernel size, 0.3 ((k - 1) / 2 - 1) + 0.8 (its fixed kernels up to 7); "
                                        "[lo, hi] draws one per image (Albumentations' sigma_limit)",
                                 .default_value = 0.0,
                                 .random = true,
                                 .min = Bound{0},
                                 .max = Bound{50}}};
const Param<NumberParam> kAlpha{{.name = "alpha",
                                 .doc = "strength of the sharpening: x + alpha (x - blur); [lo, hi] draws one per image",
                                 .default_value = {0.2, 0.5},
                                 .random = true,
                                 .min = Bound{0},
                                 .max = Bound{1}}};
const Param<IntegerParam> kThreshold{{.name = "threshold",
                                      .doc = "residuals of at most this many levels out of 255 are not sharpened",
                                      .default_value = 10,
                                      .min = Bound{0},
                                      .max = Bound{255}}};

const StageSpec& unsharp_mask_spec() {
  static const StageSpec spec{
      .name = "unsharp_mask",
      .family = "filter",
      .summary = "Sharpen where the residual from a Gaussian blur exceeds a threshold (Albumentations UnsharpMask).",
      .notes = {"As Albumentations' UnsharpMask on [0, 1] values: b = GaussianBlur(x, (k, k), sigma), the mask "
                "|x - b| * 255 > threshold blurred alike into a soft weight s, out = s clip(x + alpha (x - b), 0, 1) "
                "+ (1 - s) x, clipped, back to integers with rint as in 2.x (1.x truncates). Every channel, alpha "
                "too. Defaults (kernel_size 3 to 7, sigma 0, alpha 0.2 to 0.5, threshold 10, p 0.5) are "
                "Albumentations'.",
                "The blurs are binary32 sums in a fixed order (horizontal, then vertical); cv::GaussianBlur on float "
                "images sums in its own order (and per CPU), so a residual near the threshold or a value near a "
                "rounding midpoint may land on the other side: on the sample photographs about 8 in 100,000 8-bit "
                "values differ from that computation, by at most 3 levels (docs/stages/filter.md)."},
      .params = {kKernelSize, kSigma, kAlpha, kThreshold},
      .default_p = 0.5,
      .tolerance = {.reason = "the same binary32 operations in the same order on every backend (no FMA)"},
      .example = {{"stage", "unsharp_mask"}, {"kernel_size", {3, 7}}, {"alpha", {0.2, 0.5}}, {"threshold", 10}, {"p", 0.5}},
      .cases = {R"({})", R"({"kernel_size": 7, "alpha": 1, "threshold": 0})",
                R"({"kernel_size": [5, 9], "sigma": [0.5, 3], "alpha": [0, 1], "threshold": 3})",
                R"({"kernel_size": 3, "alpha": 0.5, "threshold": 255})"},
      .identity = R"({"threshold": 255})",
      .bench = {R"({"kernel_size": 5})"},
      .arithmetic = R"md(
Albumentations' **UnsharpMask** (default `p` 0.5), with 2.x's rounding back to integers
(`kernels/filter/unsharp_mask.hpp`). Every value is binary32, each operation rounded in the order
written (no FMA); every channel, alpha included, as Albumentations.

- **Draws**: `kernel_size` `k` (each odd size of the range alike; default `[3, 7]`), `sigma`
  (default 0), `alpha` (default `[0.2, 0.5]`). `threshold` (default 10) is fixed.
- **Kernel**: `cv::getGaussianKernel(k, sigma, CV_64F)` on the host, rounded to binary32 (what
  OpenCV's float GaussianBlur uses): sigma 0 and `k <= 7` give OpenCV's fixed kernels
  (`1/4 1/2 1/4`, `1 4 6 4 1` / 16, `1 3.5 7 9 7 3.5 1` / 32), otherwise sigma 0 means
  `0.3 ((k - 1) / 2 - 1) + 0.8`.
- **Values**: `x = v / max` (an IEEE division: 255 or 65535; float images as they are). For 8-bit
  images this equals NumPy's float32 `/ 255` and its float64 division rounded to float32 alike.
- **Blur** `B(p)`: the [separable engine](../arithmetic.md#separable-engine)'s float path, the
  horizontal pass then the vertical, `acc = acc + w * v` from +0 in tap order, reflect101 border.
  The kernels run the steps as passes over float planes; the CPU backend's host driver streams rows
  through rings of `k` rows (the same sums in the same order, eight lanes at a time) and, where the
  mask's blur is exact (below), computes it as integer sums in 4096ths.
- `b = B(x)`; `r = x - b`; `m = |r| * 255 > threshold ? 1 : 0`; `s = B(m)`;
  `sharp = clamp01(x + (float)alpha * r)`; `o = clamp01(sharp * s + x * (1 - s))`;
  8/16-bit `sat(rne(o * max))` (2.x's `rint`; 1.x truncates), float `o` (2.x clips floats).
- **OpenCV's float GaussianBlur**, which Albumentations calls, sums its taps in another order
  (symmetric pairs first, fused multiply-adds in its vector code, which differs between CPUs), so
  `b` may differ from this by an ulp; where `|r| * 255` lies within that of the threshold the mask,
  and then `s` around it, differs, and a blended value may cross a rounding midpoint. With sigma 0
  and `k <= 7` the mask's blur is exact (weights of at most 12 bits on 0 and 1), so only the first
  blur can differ. On the five sample photographs (k 3, 5, 7; sigma 0 and 1.3) 1167 of 15,085,896
  8-bit values differ from that computation, by at most 3 levels.
- **Checked** (`tests/stages/test_unsharp_mask.cpp`): `EqualsTheReferenceFormula` (the formula
  written out with plain loops: 0 differing values, 8-, 16-bit and float, photographs and odd
  sizes), `DiffersFromAlbumentationsCvGaussianBlurInRareValues` (the same formula with
  cv::GaussianBlur on float images, as Albumentations computes: under 2 in 10,000 8-bit values
  differ, by at most 3), `DrawsAreAlbumentations` (chi-square of the sizes, Kolmogorov-Smirnov of
  alpha, the p gate).
)md",
      .imports = {{.name = "UnsharpMask",
                   .how = "blur_limit is kernel_size (odd, at least 3), sigma_limit is sigma, alpha, threshold",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "unsharp_mask"}};
                     const auto [klo, khi] = t.limit("blur_limit", {3, 7}, false, 3);
                     if (klo < 3)
                       t.fail("blur_limit " + t.saved().at("blur_limit").dump() +
                              ": sizes derived from sigma (0) have no stage equivalent; give odd sizes of 3 or more");
                     s["kernel_size"] = ispan(klo, khi);
                     const auto [slo, shi] = t.limit("sigma_limit", {0, 0}, false);
                     s["sigma"] = span(slo, shi);
                     const auto [a, b] = t.limit("alpha", {0.2, 0.5}, false);
                     s["alpha"] = span(a, b);
                     s["threshold"] = static_cast<int>(std::lround(t.number("threshold", 10)));
                     return s;
                   },
                   .python = {
                       {"UnsharpMask",
                        "blur_limit sigma_limit alpha threshold always_apply p",
                        "blur_limit sigma_limit alpha threshold p",
                        0.5}}}},
      .counterpart = {.none = "no single OpenCV call: two cv::GaussianBlur calls on float images and NumPy arithmetic "
                              "around them"},
  };
  return spec;
}

class UnsharpOp final : public Op {
 public:
  UnsharpOp(const Shape& s, int ksize, double sigma, double alpha, int threshold)
      : Op(s, s), ksize_(ksize), sigma_(sigma), alpha_(alpha), threshold_(threshold) {
    const cv::Mat k = cv::getGaussianKernel(ksize_, sigma_, CV_64F);
    const std::vector<double> kernel(k.begin<double>(), k.end<double>());
    for (double v : kernel) weights_.push_back(static_cast<float>(v));
    h_ = blur_axis(s.width, kernel, Border::Reflect101, DType::F32);
    v_ = blur_axis(s.height, kernel, Border::Reflect101, DType::F32);
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    auto axis = [&](const AxisTable& t) {
      k::AxisTaps a;
      a.taps = t.taps;
      a.index = ctx.table(t.index);
      a.fweight = ctx.table(t.fweight);
      return a;
    };
    const k::UnsharpArgs args{axis(h_),         axis(v_), ctx.table(weights_), ksize_, static_cast<float>(alpha_),
                              static_cast<float>(threshold_)};
    with_views(in, out, [&](auto src, auto dst) { k::unsharp_mask(src, dst, args, ctx, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{kKernelSize.name, ksize_}, {kSigma.name, sigma_}, {kAlpha.name, alpha_}, {kThreshold.name, threshold_}};
  }

 private:
  int ksize_;
  double sigma_, alpha_;
  int threshold_;
  std::vector<float> weights_;
  AxisTable h_, v_;
};

class UnsharpMask final : public Stage {
 public:
  explicit UnsharpMask(const StageConfig& c)
      : ksize_(c.get(kKernelSize)),
        sigma_(c.get(kSigma)),
        alpha_(c.get(kAlpha)),
        threshold_(static_cast<int>(c.get(kThreshold).lo)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int k = static_cast<int>(ksize_.sample_odd(d));
    const double sigma = sigma_.sample(d);
    const double alpha = alpha_.sample(d);
    return std::make_unique<UnsharpOp>(in, k, sigma, alpha, threshold_);
  }

 private:
  IntegerParam ksize_;
  NumberParam sigma_, alpha_;
  int threshold_;
};

}  // namespace
}  // namespace unsharp_mask_impl

StageType unsharp_mask_stage() { return stage_type<unsharp_mask_impl::UnsharpMask>(&unsharp_mask_impl::unsharp_mask_spec); }

}  // namespace aug
