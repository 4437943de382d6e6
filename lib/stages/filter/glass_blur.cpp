// glass_blur: Albumentations' GlassBlur: a Gaussian blur, every interior pixel swapped with a
// random neighbour a few times ('fast': NumPy's vectorised swap, 'exact': one after another), and
// the Gaussian blur again.
#include "kernels/filter/glass_blur.hpp"

#include <cmath>
#include <type_traits>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "kernels/engines/separable.hpp"
#include "lib/stages/engines/resample.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace glass_blur_impl {
namespace {

const Param<NumberParam> kSigma{{.name = "sigma",
                                 .doc = "standard deviation of both Gaussian blurs in pixels",
                                 .default_value = 0.7,
                                 .min = Bound{0, true},
                                 .max = Bound{20}}};
const Param<IntegerParam> kMaxDelta{{.name = "max_delta",
                                     .doc = "largest swap distance: offsets dy, dx are integers in [-max_delta, max_delta)",
                                     .default_value = 4,
                                     .min = Bound{1},
                                     .max = Bound{100}}};
const Param<IntegerParam> kIterations{{.name = "iterations",
                                       .doc = "how many times every interior pixel is swapped",
                                       .default_value = 2,
                                       .min = Bound{1},
                                       .max = Bound{20}}};
enum class Mode { Fast, Exact };
const Words<Mode> kModes{{{Mode::Fast, "fast"}, {Mode::Exact, "exact"}}};
const Choice<Mode> kMode{kModes,
                         {},
                         Mode::Fast,
                         {.name = "mode",
                          .doc = "fast (NumPy's vectorised swap: every pixel reads the previous iteration) or exact "
                                 "(the swaps one after another, as Albumentations' loop)"}};

// cv::GaussianBlur's size for ksize (0, 0): round(6 sigma + 1) | 1 for 8-bit images, round(8 sigma + 1) | 1
// for the others.
int glass_kernel_size(double sigma, DType t) {
  return static_cast<int>(std::nearbyint(sigma * (t == DType::U8 ? 6 : 8) + 1)) | 1;
}

const StageSpec& glass_blur_spec() {
  static const StageSpec spec{
      .name = "glass_blur",
      .family = "filter",
      .summary = "Gaussian blur, pixels swapped with random neighbours, Gaussian blur again (Albumentations GlassBlur).",
      .notes = {"As Albumentations' GlassBlur: cv2.GaussianBlur(img, (0, 0), sigma), then `iterations` times every "
                "pixel of the interior (rows max_delta + 1 to H - max_delta, columns alike) swapped with the pixel "
                "(dy, dx) away, dy and dx integers in [-max_delta, max_delta), then the same blur. 8-bit results "
                "equal those OpenCV calls around the swaps to the bit. The offsets come from the keyed generator "
                "(per pixel and iteration), not NumPy's. Defaults (sigma 0.7, max_delta 4, iterations 2, mode "
                "fast, p 0.5) are Albumentations'."},
      .params = {kSigma, kMaxDelta, kIterations, kMode},
      .default_p = 0.5,
      .tolerance = {.reason = "integer images: integer blur sums and pixel copies; float images: the same binary32 "
                              "sums in the same order, no FMA contraction"},
      .example = {{"stage", "glass_blur"}, {"sigma", 0.7}, {"max_delta", 4}, {"iterations", 2}, {"p", 0.5}},
      .cases = {R"({})", R"({"mode": "exact"})", R"({"sigma": 1.5, "max_delta": 2, "iterations": 3})",
                R"({"sigma": 0.3, "max_delta": 1, "iterations": 1, "mode": "exact"})"},
      .no_identity = "every image more than 2 max_delta pixels wide and high has its pixels swapped",
      .bench = {R"({})", R"({"mode": "exact"})"},
      .arithmetic = R"md(
Albumentations' **GlassBlur** (default `p` 0.5; `kernels/filter/glass_blur.hpp`).

- **Blur** (before and after the swaps): `cv2.GaussianBlur(x, (0, 0), sigma)` with its reflect101
  border: the kernel size OpenCV derives, `round(6 sigma + 1) | 1` for 8-bit images (5 at sigma
  0.7), `round(8 sigma + 1) | 1` for the others (7), and the [gaussian_blur](#gaussian_blur)
  arithmetic: 8-bit images equal `cv::GaussianBlur` to the bit (its fixed-point path); 16-bit
  images use 14-bit taps and float images binary32 taps, horizontal then vertical (OpenCV's float
  path sums in another order).
- **Offsets**: for interior pixel `(y, x)`, `d + 1 <= y <= H - d` and `d + 1 <= x <= W - d`
  (`d` = `max_delta`), and iteration `i`: the 32-bit word `x % 3` of the keyed stream's block
  `(y * ceil(W / 3) + x / 3, 1 + i)` (three words of each block: the host driver draws a row's
  blocks eight at a time in AVX2 lanes); `dy = -d + ((low 16 bits * 2d) >> 16)`,
  `dx = -d + ((high 16 bits * 2d) >> 16)`: integers in `[-d, d)`, `+d` never, as NumPy's
  `integers(-d, d)`. Albumentations draws them as one array of `(H - 2d)(W - 2d)` rows; here
  they are keyed by pixel (the same distribution, other values).
- **fast** (the default): NumPy's `x[h, w], x[h + dy, w + dx] = x[h + dy, w + dx], x[h, w]` over
  every interior pixel at once, per iteration, all channels together. Both sides are read from the
  previous iteration's image; every interior pixel takes its target's value, then every target
  takes its source's value, and where several sources share a target the last in Albumentations'
  order wins, `k = (W - d - x)(H - 2d) + (H - d - y)` (columns from the right, in each rows from the
  bottom), that is the source with the smallest `x`, then the smallest `y`. The kernels find each
  target's largest `k` with `atomicMax` and then gather every pixel in parallel; the host driver
  copies the image, writes the interior from the targets, then the targets in row order keeping a
  plane of the largest `k` so far. Both give every pixel the same value.
- **exact**: the swaps one after another, in place: iterations in order, rows `y` from `H - d` down
  to `d + 1`, in each row `x` from `W - d` down to `d + 1` (Albumentations' loop), each swap with
  the offset of `(y, x)`. The kernels run it as one serial kernel.
- **Checked** (`tests/stages/test_glass_blur.cpp`): `EqualsOpenCvAroundTheSwaps` (cv::GaussianBlur,
  the NumPy swap written as its two scatters with last-write-wins, and the serial swaps: 0
  differing 8-bit values on the photographs), `FastModeWinnerIsTheLastWrite`, `OffsetsAreUniform`
  (chi-square of the 4 d^2 offsets read back from an image of distinct values, +d never), the p gate.
)md",
      .imports = {{.name = "GlassBlur",
                   .how = "sigma, max_delta, iterations and mode as they are",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "glass_blur"}};
                     s["sigma"] = t.number("sigma", 0.7);
                     s["max_delta"] = static_cast<int>(std::lround(t.number("max_delta", 4)));
                     s["iterations"] = static_cast<int>(std::lround(t.number("iterations", 2)));
                     if (t.has("mode")) s["mode"] = t.saved().at("mode");
                     t.note("the swap offsets come from augment's keyed generator, not NumPy's");
                     return s;
                   },
                   .python = {
                       {"GlassBlur",
                        "sigma max_delta iterations always_apply mode p",
                        "sigma max_delta iterations mode p",
                        0.5}}}},
      .counterpart = {.none = "no single OpenCV call: two cv::GaussianBlur calls around NumPy's pixel swaps"},
  };
  return spec;
}

template <class T>
k::View<T> plane_of(KernelContext& ctx, const Shape& s) {
  const std::size_t pitch = static_cast<std::size_t>(s.width) * s.channels * sizeof(T);
  return k::View<T>{static_cast<T*>(ctx.scratch(pitch * s.height)), s.width, s.height, s.channels, pitch};
}

class GlassOp final : public Op {
 public:
  GlassOp(const Shape& s, double sigma, int max_delta, int iterations, Mode mode, const k::KeyedStream& stream)
      : Op(s, s), sigma_(sigma), max_delta_(max_delta), iterations_(iterations), mode_(mode), stream_(stream) {
    ksize_ = glass_kernel_size(sigma, s.dtype);
    const cv::Mat g = cv::getGaussianKernel(ksize_, sigma_, CV_64F);
    const std::vector<double> kernel(g.begin<double>(), g.end<double>());
    h_ = blur_axis(s.width, kernel, Border::Reflect101, s.dtype);
    v_ = blur_axis(s.height, kernel, Border::Reflect101, s.dtype);
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const k::Exec exec = ctx.exec();
    const k::GlassArgs args{stream_, max_delta_, iterations_};
    with_views(in, out, [&](auto src, auto dst) {
      using T = std::remove_const_t<std::remove_pointer_t<decltype(dst.data)>>;
      const k::View<T> first = plane_of<T>(ctx, in_shape());
      blur(ctx, src, first);
      if (mode_ == Mode::Exact && ctx.cpu()) {
        // The CPU backend swaps the pixels in place, one after another (the host driver).
        k::cpu::glass_blur_exact(first, args);
        blur(ctx, k::as_const(first), dst);
        return;
      }
      const k::View<T> swapped = plane_of<T>(ctx, in_shape());
      if (mode_ == Mode::Exact) {
        // A device runs no serial loop: the host runs the same swaps over pixel indices, and the
        // device gathers through the order they leave (the same permutation: the parity tests
        // hold the two paths equal).
        std::vector<std::int32_t> order(static_cast<std::size_t>(first.width) * first.height);
        k::glass_blur_exact_order(first.width, first.height, args, order.data());
        k::glass_blur_exact(k::as_const(first), swapped, ctx.table(order), exec);
      } else {
        k::glass_blur_fast(k::as_const(first), swapped, args, ctx, exec);
      }
      blur(ctx, k::as_const(swapped), dst);
    });
  }

  nlohmann::json params() const override {
    return {{kSigma.name, sigma_},
            {"kernel_size", ksize_},
            {kMaxDelta.name, max_delta_},
            {kIterations.name, iterations_},
            {kMode.name, kModes.name(mode_)}};
  }

 private:
  template <class T>
  void blur(KernelContext& ctx, k::View<const T> a, k::View<T> b) const {
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      if (ctx.cpu()) {
        // cv::GaussianBlur's 8-bit path computes exactly the engine's sums (docs/stages/filter.md#gaussian_blur).
        const int type = CV_8UC(a.channels);
        const cv::Mat from(a.height, a.width, type, const_cast<std::uint8_t*>(a.data), a.pitch);
        cv::Mat to(b.height, b.width, type, b.data, b.pitch);
        cv::GaussianBlur(from, to, cv::Size(ksize_, ksize_), sigma_, sigma_,
                         cv::BORDER_REFLECT_101 | cv::BORDER_ISOLATED);
        return;
      }
    }
    auto axis = [&](const AxisTable& t) {
      k::AxisTaps x;
      x.taps = t.taps;
      x.index = ctx.table(t.index);
      if (!t.iweight.empty()) x.iweight = ctx.table(t.iweight);
      if (!t.fweight.empty()) x.fweight = ctx.table(t.fweight);
      return x;
    };
    k::separable(a, b, axis(h_), axis(v_), blur_frac_bits(in_shape().dtype), 0, a.height, ctx, ctx.exec());
  }

  double sigma_;
  int max_delta_, iterations_;
  Mode mode_;
  k::KeyedStream stream_;
  int ksize_ = 1;
  AxisTable h_, v_;
};

class GlassBlur final : public Stage {
 public:
  explicit GlassBlur(const StageConfig& c)
      : sigma_(c.get(kSigma).lo),
        max_delta_(static_cast<int>(c.get(kMaxDelta).lo)),
        iterations_(static_cast<int>(c.get(kIterations).lo)),
        mode_(c.get(kMode)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const Mode mode = mode_.sample(d);
    return std::make_unique<GlassOp>(in, sigma_, max_delta_, iterations_, mode, d.stream());
  }

 private:
  double sigma_;
  int max_delta_, iterations_;
  Drawn<Mode> mode_;
};

}  // namespace
}  // namespace glass_blur_impl

StageType glass_blur_stage() { return stage_type<glass_blur_impl::GlassBlur>(&glass_blur_impl::glass_blur_spec); }

}  // namespace aug
