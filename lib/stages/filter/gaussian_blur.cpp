// gaussian_blur: separable Gaussian filter.
#include <cmath>
#include <functional>

#include <opencv2/imgproc.hpp>

#include "kernels/engines/smooth8.hpp"
#include "lib/core/text.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/engines/opencv_words.hpp"
#include "lib/stages/engines/resample.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace gaussian_blur_impl {
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
      .family = "filter",
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
      .arithmetic = R"md(
Reproduces the 8-bit bit-exact path of **`cv::GaussianBlur`** (OpenCV 4.6) with `ksize = (k, k)` and
`sigmaX = sigmaY = sigma`, when called with the border ORed with BORDER_ISOLATED or on a continuous
image (on a `cv::Mat` ROI view OpenCV takes its float path and reads pixels outside the ROI).

- **Draws**: `sigma` (if a range), then `border` (if a list).
- **Size**: the given odd `kernel_size`, or `rne(6*sigma + 1) | 1` (OpenCV's rule for 8-bit images;
  OpenCV uses `8*sigma + 1` for other depths, here every type uses `6*sigma + 1`).
- **Kernel**: `cv::getGaussianKernel(k, sigma, CV_64F)`, called on the host: OpenCV's softdouble values
  `t_i = exp((1 - k + 2i)^2 * (-0.125 / sigma^2))` for `i < r = (k-1)/2` with OpenCV's own softfloat
  `exp` (not libm), `sum = 2*sum(t) + 1`, `K_i = t_i * (1/sum)`, centre `1/sum`.
- **Fixed-point taps** (`F = 8` for u8, 14 for u16), error diffusion from the outside in: `err = 0`;
  for `i < r`: `adj = K_i * 2^F + err`, `v = rne(adj)`, `err = adj - v`, `q_i = q_{k-1-i} = v`; then
  `q_r = 2^F - 2*sum(v)`. At `F = 8`: k = 7, sigma = 1 gives `1 14 62 102 62 14 1`; k = 13,
  sigma = 2 gives `1 2 7 16 31 45 52 45 31 16 7 2 1`.
- **Tables**: output `o`, tap `i` reads `border_index(o + i - r)`, weight 0 under `constant`; the same
  taps for x and y. `kernel_size` 1 is the identity.
- **8-bit**: `H = sum_i q_i * p` (at most 65280), `out = (sum_j q_j * H + 2^15) >> 16`: OpenCV's
  `fixedSmoothInvoker` formula, of which its special cases (121, 14641, symmetric kernels, SIMD bias
  tricks) are rearrangements. **16-bit**: `round_shift(sum, 28)`. **Float**: `(float)K_i`, x then y.
- **CPU backend**: 8-bit images run `smooth8` (kernels/engines/smooth8.hpp: the same exact integer
  sums with AVX-512 BW and VNNI, kernels of up to 31 taps) or, on other processors, for longer
  kernels and for a single row or column, call `cv::GaussianBlur(k, k, sigma, sigma, border |
  BORDER_ISOLATED)`, which computes exactly the above; 16-bit and float images run the separable
  engine's host driver.
)md",
      .imports = {
          {.name = "GaussianBlur",
           .how = "sigma_limit is sigma; with sigma_limit 0 (Albumentations' default) the sigmas OpenCV derives "
                  "from blur_limit's odd sizes, 0.3 ((k - 1) / 2 - 1) + 0.8",
           .convert = [](const TransformReader& t) {
            // 2.x's default sigma_limit is (0.5, 3); 1.x's is 0 (the sigma from each kernel size).
            const auto [slo, shi] = t.limit("sigma_limit", t.release_2() ? std::pair{0.5, 3.0} : std::pair{0.0, 0.0}, false);
            ojson s{{"stage", "gaussian_blur"}};
            if (shi > 0) {
              s["sigma"] = span(std::max(slo, 0.1), shi);
              const auto [klo, khi] = t.limit("blur_limit", {3, 7}, false, 3);
              if (klo == khi && klo >= 3 && static_cast<int>(klo) % 2 == 1 && klo == std::floor(klo)) {
                s["kernel_size"] = static_cast<std::int64_t>(klo);
              } else if (t.has("blur_limit") && khi > 0) {
                t.note("blur_limit [" + format_number(klo) + ", " + format_number(khi) + "]: Albumentations draws the "
                       "kernel size from it; here it follows from sigma, round(6 sigma + 1) made odd");
              } else if (t.release_2()) {
                t.note("Albumentations 2.x sizes the kernel from sigma its own way; here round(6 sigma + 1) made odd, "
                       "as cv::GaussianBlur");
              }
              return s;
            }
            const auto [klo, khi] = t.limit("blur_limit", {3, 7}, false, 3);
            auto sigma_of = [](double k) { return 0.3 * ((k - 1) * 0.5 - 1) + 0.8; };
            s["sigma"] = span(sigma_of(std::max(3.0, klo)), sigma_of(std::max(3.0, khi)));
            t.note("kernel sizes " + std::to_string(static_cast<int>(klo)) + ".." + std::to_string(static_cast<int>(khi)) +
                   " become a continuous sigma range");
            return s;
          },
           .python = {{"GaussianBlur", "blur_limit sigma_limit always_apply p", "blur_limit sigma_limit p", 0.5}}}},
      .counterpart = {.call = "cv::GaussianBlur",
                      .how = "the resolved kernel_size, sigma (both axes) and border",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const int k = m.at("kernel_size").get<int>();
                        const double sigma = m.at("sigma").get<double>();
                        const int border = cv_border(m.at("border").get<std::string>());
                        return [&dst, src, k, sigma, border] {
                          cv::GaussianBlur(src, dst, cv::Size(k, k), sigma, sigma, border);
                        };
                      }},
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
      // 8-bit taps, the same sums and one rounding (docs/stages/filter.md#gaussian_blur); so does
      // smooth8, the host driver, where the processor has AVX-512 (OpenCV's special case of a
      // single row or column aside). ISOLATED keeps OpenCV off pixels outside the view. The tests
      // hold all three equal.
      if (in.shape.width > 1 && in.shape.height > 1 && in.view<const std::uint8_t>().data != out.view<std::uint8_t>().data) {
        const std::vector<std::int32_t> w = blur_fixed_weights(kernel(), blur_frac_bits(t));
        const std::vector<std::uint16_t> k(w.begin(), w.end());
        if (k::cpu::smooth8(in.view<const std::uint8_t>(), out.view<std::uint8_t>(), k.data(), ksize_,
                            static_cast<int>(border_)))  // the same numbering (vocabulary.cpp)
          return;
      }
      cv::Mat dst = as_mat(out);
      cv::GaussianBlur(as_mat(in), dst, cv::Size(ksize_, ksize_), sigma_, sigma_,
                       cv_border(border_) | cv::BORDER_ISOLATED);
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
  // OpenCV's Gaussian (the values cv::GaussianBlur's 8-bit path uses, docs/stages/filter.md#gaussian_blur), in double.
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
}  // namespace gaussian_blur_impl

StageType gaussian_blur_stage() { return stage_type<gaussian_blur_impl::GaussianBlur>(&gaussian_blur_impl::gaussian_blur_spec); }

}  // namespace aug
