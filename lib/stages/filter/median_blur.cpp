// median_blur: Albumentations' MedianBlur, the median of a k x k window with replicated edges.
#include <opencv2/imgproc.hpp>

#include "kernels/filter/median_blur.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace {

constexpr int kMaxKernel = 99;  // the cost per pixel grows as k^2 (kernels/filter/median_blur.hpp)

const Param<IntegerParam> kKernelSize{{.name = "kernel_size",
                                       .doc = "odd window size; [lo, hi] draws one of the odd sizes in the range "
                                              "per image, each as likely (Albumentations' blur_limit)",
                                       .default_value = {3, 7},
                                       .random = true,
                                       .min = Bound{3},
                                       .max = Bound{kMaxKernel},
                                       .odd = true}};

const StageSpec& median_blur_spec() {
  static const StageSpec spec{
      .name = "median_blur",
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

StageType median_blur_stage() { return stage_type<MedianBlur>(&median_blur_spec); }

}  // namespace aug
