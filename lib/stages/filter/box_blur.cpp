// box_blur: Albumentations' Blur, the mean of a k x k window (cv::blur, reflect101 border).
#include <algorithm>
#include <functional>

#include <opencv2/imgproc.hpp>

#include "kernels/filter/box_blur.hpp"
#include "lib/stages/engines/vocabulary.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace box_blur_impl {
namespace {

// 8-bit results are held equal to cv::blur up to here (tests/stages/test_box_blur.cpp); the
// kernels take windows up to 181 x 181, whose 16-bit sums still fit the exact quotient.
constexpr int kMaxKernel = 99;

const Param<IntegerParam> kKernelSize = odd_kernel_size_param("window", kMaxKernel);

// Albumentations 2.x reads blur_limit as sample_odd_from_range does: each end raised to at least 3
// and made odd by adding 1 when even; a range whose ends cross collapses to its upper end.
std::pair<int, int> odd_limits(double lo, double hi) {
  auto odd = [](double v) {
    int k = std::max(3, static_cast<int>(v));
    return k % 2 == 0 ? k + 1 : k;
  };
  const int a = odd(lo), b = odd(hi);
  return a > b ? std::pair{b, b} : std::pair{a, b};
}

const StageSpec& box_blur_spec() {
  static const StageSpec spec{
      .name = "box_blur",
      .family = "filter",
      .summary = "Mean of the k x k window around each pixel (Albumentations Blur); 8-bit images equal cv::blur "
                 "to the bit.",
      .notes = {"As Albumentations' Blur, which calls cv::blur with its default border: every channel (alpha too) "
                "takes the mean of its k x k window, the image extended by reflection without repeating the edge "
                "(reflect101). Integer images round the mean to nearest from the exact integer sum, which is what "
                "cv::blur computes for 8-bit images (every k up to 99, checked); 16-bit images differ from cv::blur "
                "by 1 on one or two values in a thousand from 15 x 15 on, where OpenCV rounds a binary32 product. "
                "Float images sum in double.",
                "kernel_size [lo, hi] draws uniformly among the odd sizes lo, lo + 2, ..., hi, as Albumentations 2.x's "
                "blur_limit; its default is [3, 7] and its p 0.5, as here."},
      .params = {kKernelSize},
      .default_p = 0.5,
      .tolerance = {.reason = "integer images: the exact integer window sum and one exact quotient on every "
                              "backend; float images: the same double sums in the same order"},
      .example = {{"stage", "box_blur"}, {"kernel_size", {3, 7}}, {"p", 0.5}},
      .cases = {R"({"kernel_size": 3})", R"({"kernel_size": 7})", R"({"kernel_size": [3, 15]})",
                R"({"kernel_size": 17})", R"({"kernel_size": 45})"},
      .no_identity = "the smallest window, 3 x 3, changes any image that is not locally constant",
      .bench = {R"({"kernel_size": 3})", R"({"kernel_size": 7})", R"({"kernel_size": 15})",
                R"({"kernel_size": 31})"},
      .arithmetic = R"md(
Albumentations' **Blur** (default `p` 0.5), which calls **`cv::blur(img, (k, k))`**: a normalised box
filter with OpenCV's default border, BORDER_REFLECT_101 (`kernels/filter/box_blur.hpp`).

- **Draws**: `kernel_size` `[lo, hi]` (both odd) draws `lo + 2 * integer(0, (hi - lo) / 2)`, each odd size
  of the range alike, as Albumentations 2.x. Default `[3, 7]`; 3 to 99.
- **Window**: for output `(x, y)` and each channel (alpha too), the `k x k` values at `(x + i, y + j)`,
  `|i|, |j| <= r = (k - 1) / 2`, an index outside the image reflected without repeating the edge
  (`...cb|abc|ba...`, repeatedly for images smaller than the window; a side of 1 reads its one pixel).
- **8 and 16 bits**: `S` = the exact integer sum of the window, `d = k*k`, and
  `out = floor((S + floor(d / 2)) / d)`: the mean rounded to nearest (`d` is odd, so no mean lies half-way).
  Every backend takes the quotient as `((S + floor(d/2)) * m) >> s` with `s = 32 + floor(log2 d)`,
  `m = ceil(2^s / d)`, exact for every sum below `2^31`.
- **OpenCV**: for 8-bit images `cv::blur` sums rows then columns exactly in 16 or 32 bits and rounds
  `S / d` to nearest (up to 15 x 15 by the reciprocal `((S + dd) * ds) >> 23`, beyond through a
  binary32 or double product), which is the quotient above for every `k` up to 99 (the binary32
  product stays within `1 / (2d)` of `S / d`). For 16-bit images it rounds `float(S) * float(1/d)` (in
  its vector loop; a double product in the tail of each row): the same quotient for `k <= 7`, where
  the binary32 error stays under `1/(2d)`, and on the test images up to 13 x 13; from 15 x 15 on
  (where `S` no longer fits binary32's 24 bits) one or two values in a thousand land on the other side
  of a half and differs by 1 (`SixteenBitIsTheExactMean` counts them). Float: OpenCV slides double
  sums; here each window is summed directly in double (a row left to right, then the rows top to
  bottom) and `(float)(S * (1.0 / d))` is stored: equal to `cv::blur` on the test images, within `1e-6`
  in general (double sums of floats of very different magnitudes depend on their order).
- **CPU backend**: its host driver slides exact integer sums, O(1) per value whatever `k`: one
  running sum per column (the entering row added, the leaving one subtracted), then the window sums
  along each row of those (directly up to 7 x 7, else from sums of 2, 4, 8, ... columns or slid),
  vectorised, 16-bit lanes wherever the sums fit; the kernel bodies sum each window directly. Integer
  sums are exact, so the two agree to the bit; float images sum in the bodies' order.
- **Checked** (`tests/stages/test_box_blur.cpp`): `EightBitEqualsCvBlurForEverySize` (k 3 to 99 on
  random images of odd sizes, 1x1 and 2x3 among them, 1/3/4 channels), `ExtremeValuesEqualCvBlur`,
  `PhotographsEqualCvBlur` (every k of the default range, and 15 to 63 on the CPU path): 0 differing
  values on the CPU path and on the kernels; `SixteenBitIsTheExactMean`,
  `FloatIsWithinAMillionthOfCvBlur`, `QuotientIsExact` (every 8-bit sum and both sides of every
  16-bit step), `DrawsEveryOddSizeAlikeAndDefaultsToAlbumentations` (chi-square),
  `ImportsBlurUnderEitherReleasesParameters`.
)md",
      .imports = {{.name = "Blur",
                   .how = "blur_limit is kernel_size (a number n: [3, n]); even ends made odd as Albumentations 2.x",
                   .convert = [](const TransformReader& t) {
                     const auto [lo, hi] = t.limit("blur_limit", {3, 7}, false, 3);
                     const auto [a, b] = odd_limits(lo, hi);
                     if (b > kMaxKernel)
                       t.fail("blur_limit " + std::to_string(b) + " is larger than box_blur's largest window, " +
                              std::to_string(kMaxKernel));
                     if (a != static_cast<int>(lo) || b != static_cast<int>(hi))
                       t.note("blur_limit [" + std::to_string(static_cast<int>(lo)) + ", " +
                              std::to_string(static_cast<int>(hi)) + "] read as the odd sizes [" + std::to_string(a) +
                              ", " + std::to_string(b) + "] (Albumentations 2.x; 1.x also drew even sizes from an "
                              "even lower end)");
                     ojson s{{"stage", "box_blur"}};
                     s["kernel_size"] = ispan(a, b);
                     return s;
                   },
                   .python = {{"Blur", "blur_limit always_apply p", "blur_limit p", 0.5}}}},
      .counterpart = {.call = "cv::blur",
                      .how = "the resolved kernel_size, OpenCV's default border (reflect101)",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const int k = m.at("kernel_size").get<int>();
                        return [&dst, src, k] { cv::blur(src, dst, cv::Size(k, k)); };
                      }},
  };
  return spec;
}

class BoxBlurOp final : public Op {
 public:
  BoxBlurOp(const Shape& s, int ksize) : Op(s, s), ksize_(ksize) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    with_views(in, out, [&](auto src, auto dst) { k::box_blur(src, dst, ksize_, ctx, ctx.exec()); });
  }

  nlohmann::json params() const override { return {{kKernelSize.name, ksize_}}; }

 private:
  int ksize_;
};

class BoxBlur final : public Stage {
 public:
  explicit BoxBlur(const StageConfig& c) : ksize_(c.get(kKernelSize)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    return std::make_unique<BoxBlurOp>(in, static_cast<int>(ksize_.sample_odd(d)));
  }

 private:
  IntegerParam ksize_;
};

}  // namespace
}  // namespace box_blur_impl

StageType box_blur_stage() { return stage_type<box_blur_impl::BoxBlur>(&box_blur_impl::box_blur_spec); }

}  // namespace aug
