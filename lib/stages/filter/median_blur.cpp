// median_blur: Albumentations' MedianBlur, the median of a k x k window with replicated edges.
#include <functional>

#include <opencv2/imgproc.hpp>

#include "kernels/filter/median_blur.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/engines/vocabulary.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace median_blur_impl {
namespace {

constexpr int kMaxKernel = 99;  // the cost per pixel grows as k^2 (kernels/filter/median_blur.hpp)

const Param<IntegerParam> kKernelSize = odd_kernel_size_param("window", kMaxKernel);

const StageSpec& median_blur_spec() {
  static const StageSpec spec{
      .name = "median_blur",
      .family = "filter",
      .summary = "Median of the k x k window around each pixel (Albumentations MedianBlur); 8-bit images equal "
                 "cv::medianBlur to the bit.",
      .notes = {"As Albumentations' MedianBlur, which calls cv::medianBlur: every channel (alpha too) takes the "
                "median of its k x k window, the image extended by replicating its edge pixels. 8-bit results equal "
                "cv::medianBlur for every size; OpenCV filters 16-bit and float images only with k = 3 or 5, where "
                "the results are equal too, and this stage computes the same true median for every k and type "
                "(float values ordered as numbers; -0 sorts below +0).",
                "kernel_size [lo, hi] draws uniformly among the odd sizes lo, lo + 2, ..., hi, as Albumentations' "
                "blur_limit does; its default is [3, 7], and its p 0.5, as here."},
      .params = {kKernelSize},
      .default_p = 0.5,
      .tolerance = {.reason = "a median selects one of the input values: the same value on every backend"},
      .example = {{"stage", "median_blur"}, {"kernel_size", {3, 7}}, {"p", 0.5}},
      .cases = {R"({"kernel_size": 3})", R"({"kernel_size": 5})", R"({"kernel_size": [3, 7]})"},
      .no_identity = "a median window of 3 or more changes any image that is not locally constant",
      .bench = {R"({"kernel_size": 3})", R"({"kernel_size": 7})"},
      .arithmetic = R"md(
Albumentations' **MedianBlur** (default `p` 0.5), which calls **`cv::medianBlur`**
(`kernels/filter/median_blur.hpp`).

- **Draws**: `kernel_size` `[lo, hi]` (both odd) draws `lo + 2 * integer(0, (hi - lo) / 2)`: each odd
  size of the range alike, as Albumentations' `blur_limit`. Default `[3, 7]`; 3 to 99.
- **Value**: each channel (alpha too) takes the median of its `k x k` window, the image extended by
  replicating its edges (OpenCV's BORDER_REPLICATE, the only border `cv::medianBlur` has): the value of
  rank `(k*k - 1) / 2` in the sorted window. A median selects one of the input values, so there is no
  rounding anywhere, for any type.
- **Selection**: bit by bit from the top over unsigned keys (the value itself for 8- and 16-bit
  images; for float the bit pattern with the sign bit set for non-negative values and all bits
  inverted for negative ones, which orders floats as numbers, -0 below +0). Each pass counts the
  window's keys that agree with the bits fixed so far and have 0 in the next bit; the bit is 0 when the
  rank lies among them, else 1 and they count as below. Windows of up to 49 values are gathered once;
  larger ones are re-read on each pass. 8, 16 or 32 passes.
- **CPU path**: `cv::medianBlur` for 8-bit images (every size) and for 16-bit and float at `k` 3 and
  5, the sizes OpenCV takes for them; the kernel bodies otherwise.
- **Checked**: `MedianBlur.EightBitEqualsOpenCVForEverySize` (k 3 to 21, 1/3/4 channels, 37x23,
  5x4, 2x9 and 1x1), `PhotographsEqualOpenCV` (k 3 and 7), `SixteenBitAndFloatEqualOpenCVAtThreeAndFive`:
  0 differing values on both backends; `EverySizeAndTypeIsTheTrueMedian` (a sort of every window, k 7
  to 13): 0.
)md",
      .imports = {
          {.name = "MedianBlur",
           .how = "blur_limit is kernel_size",
           .convert = [](const TransformReader& t) {
            const auto [lo, hi] = t.limit("blur_limit", {3, 7}, false, 3);
            ojson s{{"stage", "median_blur"}};
            s["kernel_size"] = ispan(lo, hi);
            return s;
          },
           .python = {{"MedianBlur", "blur_limit always_apply p", "blur_limit p", 0.5}}}},
      .counterpart = {.call = "cv::medianBlur",
                      .how = "the resolved kernel_size",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const int k = m.at("kernel_size").get<int>();
                        return [&dst, src, k] { cv::medianBlur(src, dst, k); };
                      }},
  };
  return spec;
}

class MedianOp final : public Op {
 public:
  MedianOp(const Shape& s, int ksize) : Op(s, s), ksize_(ksize) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    // cv::medianBlur computes this same median: every size for 8-bit images, 3 and 5 for the others
    // (the catalog tests hold the two paths equal).
    if (ctx.cpu() && (in.shape.dtype == DType::U8 || ksize_ <= 5)) {
      cv::Mat dst = as_mat(out);
      cv::medianBlur(as_mat(in), dst, ksize_);
      return;
    }
    with_views(in, out, [&](auto src, auto dst) { k::median_blur(src, dst, ksize_, ctx.exec()); });
  }

  nlohmann::json params() const override { return {{kKernelSize.name, ksize_}}; }

 private:
  int ksize_;
};

class MedianBlur final : public Stage {
 public:
  explicit MedianBlur(const StageConfig& c) : ksize_(c.get(kKernelSize)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    // The odd sizes of [lo, hi] (both odd), each as likely.
    const std::int64_t k = ksize_.sample_odd(d);
    return std::make_unique<MedianOp>(in, static_cast<int>(k));
  }

 private:
  IntegerParam ksize_;
};

}  // namespace
}  // namespace median_blur_impl

StageType median_blur_stage() { return stage_type<median_blur_impl::MedianBlur>(&median_blur_impl::median_blur_spec); }

}  // namespace aug
