// gaussian_blur: separable Gaussian filter.
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "lib/io/cv_bridge.hpp"
#include "lib/stages/engines/resample.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace {

const Param<NumberParam> kSigma{{.name = "sigma",
                                 .doc = "standard deviation in pixels; [lo, hi] draws one per image",
                                 .default_value = 1.0,
                                 .random = true,
                                 .min = Bound{0, true},
                                 .max = Bound{50}}};
const Param<IntegerParam> kKernelSize{{.name = "kernel_size",
                                       .doc = "odd kernel size; derived from sigma when absent",
                                       .optional = true,
                                       .min = Bound{1},
                                       .max = Bound{301},
                                       .odd = true}};
const Choice<Border> kBorder = border_param({Border::Reflect101, Border::Replicate, Border::Reflect, Border::Constant},
                                            Border::Reflect101,
                                            "how the image is extended past its edges (reflect101: ...cb|abc|ba..., "
                                            "replicate: ...aa|abc|cc..., reflect: ...ba|abc|cb..., constant: zeros); "
                                            "a list draws one per image");

const StageSpec& gaussian_blur_spec() {
  static const StageSpec spec{
      .name = "gaussian_blur",
      .summary = "Gaussian blur with a fixed or random sigma; 8-bit images equal cv::GaussianBlur to the bit.",
      .notes = {"The kernel is OpenCV's (cv::getGaussianKernel); without kernel_size its size is "
                "round(6 sigma + 1) made odd. 8-bit results equal cv::GaussianBlur to the bit (8-bit fixed-point "
                "taps); 16-bit images use 14-bit taps, float images binary32 taps."},
      .params = {kSigma, kKernelSize, kBorder},
      .tolerance = {.f32 = 0,
                    .reason = "integer images: integer arithmetic over taps computed once on the host; float "
                              "images: the same binary32 sums in the same order, no FMA contraction"},
      .example = {{"stage", "gaussian_blur"}, {"sigma", {0.1, 2.0}}, {"p", 0.5}},
      .cases = {R"({"sigma": 1.0, "kernel_size": 7})",
                R"({"sigma": 2.5, "border": "constant"})",
                R"({"sigma": 0.8, "border": "replicate"})",
                R"({"sigma": 1.7, "border": "reflect"})",
                R"({"sigma": 6})"},
      .identity = R"({"sigma": 1, "kernel_size": 1})",
      .bench = {R"({"sigma": 1.0, "kernel_size": 7})", R"({"sigma": 3.0})"},
  };
  return spec;
}

int kernel_size_for(double sigma) { return static_cast<int>(std::nearbyint(sigma * 6 + 1)) | 1; }

class BlurOp final : public Op {
 public:
  BlurOp(const Shape& s, double sigma, int ksize, Border border)
      : Op(s, s), sigma_(sigma), ksize_(ksize), border_(border) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const DType t = in.shape.dtype;
    if (ctx.cpu() && t == DType::U8) {
      // cv::GaussianBlur's 8-bit path computes exactly this: the same kernel, rounded to the same
      // 8-bit taps, the same sums and one rounding (docs/arithmetic.md#gaussian_blur); ISOLATED keeps
      // it off pixels outside the view. The tests hold the two equal.
      static constexpr int kCv[] = {cv::BORDER_CONSTANT, cv::BORDER_REPLICATE, cv::BORDER_REFLECT,
                                    cv::BORDER_REFLECT_101};  // in Border's order; no wrap here
      cv::Mat dst = as_mat(out);
      cv::GaussianBlur(as_mat(in), dst, cv::Size(ksize_, ksize_), sigma_, sigma_,
                       kCv[static_cast<int>(border_)] | cv::BORDER_ISOLATED);
      return;
    }
    const std::vector<double> k = kernel();
    run_separable(ctx, in, out, blur_axis(in.shape.width, k, border_, t), blur_axis(in.shape.height, k, border_, t),
                  blur_frac_bits(t));
  }

  nlohmann::json params() const override {
    return {{kSigma.name, sigma_}, {kKernelSize.name, ksize_}, {kBorder.name, border_words().name(border_)}};
  }

 private:
  // OpenCV's Gaussian (the values cv::GaussianBlur's 8-bit path uses, docs/arithmetic.md#gaussian_blur), in double.
  std::vector<double> kernel() const {
    const cv::Mat k = cv::getGaussianKernel(ksize_, sigma_, CV_64F);
    return std::vector<double>(k.begin<double>(), k.end<double>());
  }

  double sigma_;
  int ksize_;
  Border border_;
};

class GaussianBlur final : public Stage {
 public:
  explicit GaussianBlur(const StageConfig& c) : sigma_(c.get(kSigma)), border_(c.get(kBorder)) {
    if (c.has(kKernelSize)) ksize_ = static_cast<int>(c.get(kKernelSize).lo);
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double sigma = sigma_.sample(d);
    const Border border = border_.sample(d);
    return std::make_unique<BlurOp>(in, sigma, ksize_ > 0 ? ksize_ : kernel_size_for(sigma), border);
  }

 private:
  NumberParam sigma_;
  Drawn<Border> border_;
  int ksize_ = 0;
};

}  // namespace

StageType gaussian_blur_stage() { return stage_type<GaussianBlur>(&gaussian_blur_spec); }

}  // namespace aug
