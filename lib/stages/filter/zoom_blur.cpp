// zoom_blur: Albumentations' ZoomBlur (2.x): the mean of the image and central zooms of it by
// factors 1, 1 + step, ... below a drawn maximum, in binary32 on [0, 1] values.
#include "kernels/filter/zoom_blur.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <type_traits>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "kernels/engines/separable.hpp"
#include "lib/stages/engines/resample.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace zoom_blur_impl {
namespace {

const Param<NumberParam> kMaxFactor{{.name = "max_factor",
                                     .doc = "the largest zoom factor, drawn per image from [lo, hi] (a number m means [1, m], "
                                            "as Albumentations reads it)",
                                     .default_value = {1.0, 1.31},
                                     .random = true,
                                     .min = Bound{1},
                                     .max = Bound{4}}};
const Param<NumberParam> kStepFactor{{.name = "step_factor",
                                      .doc = "the step between zoom factors, drawn per image from [lo, hi]",
                                      .default_value = {0.01, 0.03},
                                      .random = true,
                                      .min = Bound{0.001},
                                      .max = Bound{3}}};

// np.arange(1.0, stop, step) in float64, as NumPy fills it: n = ceil((stop - 1) / step) values,
// 1.0, then 1.0 + i * ((1.0 + step) - 1.0).
std::vector<double> zoom_factors(double stop, double step) {
  const double len = std::ceil((stop - 1.0) / step);
  const int n = len > 0 ? static_cast<int>(len) : 0;
  std::vector<double> f;
  const double delta = (1.0 + step) - 1.0;
  for (int i = 0; i < n; ++i) f.push_back(i == 0 ? 1.0 : (i == 1 ? 1.0 + step : 1.0 + i * delta));
  return f;
}

// One axis of one zoom: the central crop [offset, offset + crop) of an axis of `len`, resized to
// `zoomed` values, of which [trim, trim + len) are kept (Albumentations' central_zoom).
struct ZoomAxis {
  int crop = 0, offset = 0, zoomed = 0, trim = 0;
};

ZoomAxis zoom_axis(int len, double z) {
  ZoomAxis a;
  a.crop = static_cast<int>(std::ceil(len / z));
  a.offset = (len - a.crop) / 2;  // crop <= len: z >= 1
  a.zoomed = std::max(static_cast<int>(a.crop * z), len);
  a.trim = (a.zoomed - len) / 2;
  return a;
}

// cv::resize's binary32 INTER_LINEAR tables from a crop of `a.crop` values (at a.offset) to a.zoomed,
// for the outputs [a.trim, a.trim + len): fx = (float)((d + 0.5) / s - 0.5) with s = zoomed / crop
// in double, sx = floor(fx), fx -= sx in float; weights 1 - fx, fx on sx, sx + 1 (clamped to the
// crop). Horizontally (`columns`) OpenCV also sets fx = 0 where sx < 0 (sx = 0) or sx >= crop - 1
// (sx = crop - 1); vertically it keeps fx and only clamps the rows.
AxisTable linear_axis(const ZoomAxis& a, int len, bool columns) {
  AxisTable t;
  t.taps = 2;
  t.length = len;
  t.index.resize(static_cast<std::size_t>(len) * 2);
  t.fweight.resize(t.index.size());
  const double scale = 1.0 / (static_cast<double>(a.zoomed) / a.crop);
  for (int o = 0; o < len; ++o) {
    const int d = a.trim + o;
    float fx = static_cast<float>((d + 0.5) * scale - 0.5);
    int sx = static_cast<int>(std::floor(fx));
    fx -= static_cast<float>(sx);
    if (columns && sx < 0) fx = 0.0f, sx = 0;
    if (columns && sx >= a.crop - 1) fx = 0.0f, sx = a.crop - 1;
    const std::size_t at = static_cast<std::size_t>(o) * 2;
    t.index[at] = a.offset + std::clamp(sx, 0, a.crop - 1);
    t.index[at + 1] = a.offset + std::clamp(sx + 1, 0, a.crop - 1);
    t.fweight[at] = 1.0f - fx;
    t.fweight[at + 1] = fx;
  }
  return t;
}

const StageSpec& zoom_blur_spec() {
  static const StageSpec spec{
      .name = "zoom_blur",
      .family = "filter",
      .summary = "The mean of the image and central zooms of it (Albumentations ZoomBlur).",
      .notes = {"As Albumentations 2.x's ZoomBlur on [0, 1] values: step st = U(step_factor), then m = max(1 + st, "
                "U(max_factor)); factors np.arange(1, m, st); each zoom a central crop of ceil(H / z) x ceil(W / z) "
                "resized with cv::resize INTER_LINEAR on binary32 values and cropped back to H x W at the centre; "
                "out = (x + sum of zooms) / (n + 1), clipped, back to integers with rint. 8-bit results equal those "
                "OpenCV and NumPy calls on the float image to the bit. Defaults (max_factor [1, 1.31], step_factor "
                "[0.01, 0.03], p 0.5) are Albumentations'."},
      .params = {kMaxFactor, kStepFactor},
      .default_p = 0.5,
      .tolerance = {.reason = "the same binary32 operations in the same order on every backend (no FMA)"},
      .example = {{"stage", "zoom_blur"}, {"max_factor", {1.0, 1.31}}, {"step_factor", {0.01, 0.03}}, {"p", 0.5}},
      .cases = {R"({})", R"({"max_factor": 1.5, "step_factor": 0.1})", R"({"max_factor": [2, 3], "step_factor": [0.3, 0.5]})"},
      .identity = R"({"max_factor": 1, "step_factor": 3})",
      .bench = {R"({"max_factor": 1.31, "step_factor": 0.03})"},
      .arithmetic = R"md(
Albumentations 2.x's **ZoomBlur** (default `p` 0.5) on `[0, 1]` values, in binary32, each
operation rounded in the order written (no FMA); every channel alike
(`kernels/filter/zoom_blur.hpp`).

- **Draws** (2.x's order): the step `st = U(step_factor)` (default `[0.01, 0.03]`), then
  `m = max(1 + st, U(max_factor))` (default `[1, 1.31]`; a number `m` means `[1, m]`). 1.x drew
  the maximum first and did not raise it to `1 + st`.
- **Factors**: NumPy's `arange(1.0, m, st)` in float64: `n = ceil((m - 1) / st)` values `1.0`,
  `1.0 + st`, then `1.0 + i * ((1.0 + st) - 1.0)`.
- **Values**: `x = v / max` (an IEEE division by 255 or 65535; float images as they are).
- **One zoom** by `z`, per axis of length `L` (H, then W): the crop `c = ceil(L / z)` starting at
  `(L - c) // 2`, resized to `Z = int(c * z)` values (at least `L`), of which
  `[(Z - L) // 2, (Z - L) // 2 + L)` are kept. The resize is `cv::resize` INTER_LINEAR on binary32
  values: with `s = c / Z` (as `1 / (Z / c)` in double), output `d` reads `fx = (float)((d + 0.5) s - 0.5)`,
  `sx = floor(fx)`, `fx = fx - sx` in float; weights `1 - fx` and `fx` on `sx` and `sx + 1`, both
  clamped to the crop. Along a row OpenCV also makes `sx < 0` into `(0, fx = 0)` and `sx >= c - 1`
  into `(c - 1, fx = 0)`; down a column it keeps `fx` (at the top `sy = -1` reads row 0 twice,
  `(1 - fy) r0 + fy r0`, which is not always `r0` in binary32). The [separable engine](../arithmetic.md#separable-engine)
  runs these tables for the kept window only: the horizontal pass `w0 p0 + w1 p1`, then the vertical
  pass alike, which is OpenCV's float `HResizeLinear` / `VResizeLinear` (no FMA in either). The CPU
  backend calls `cv::resize` itself on the whole zoom and adds its centre (the same values). The
  factor 1.0 is `x` itself.
- **Sum**: `acc = +0`, then `acc = acc + zoom` for each factor in order;
  `o = clamp01((x + acc) / (float)(n + 1))`; 8/16-bit `sat(rne(o * max))` (2.x's `rint`; 1.x
  resized 8-bit values and truncated), float `o` (2.x clips floats to `[0, 1]`).
- **Checked** (`tests/stages/test_zoom_blur.cpp`): `EqualsOpenCvResizeOnTheFloatImage` (the same
  computation with `cv::resize` on the float image and plain loops: 0 differing values, 8-, 16-bit
  and float, photographs and odd sizes), `FactorsAreNumPysArange`, `DrawsAreAlbumentations`
  (Kolmogorov-Smirnov of the step and of the number of factors against 2.x's definition, the p gate).
)md",
      .imports = {{.name = "ZoomBlur",
                   .how = "max_factor (a number m means [1, m]) and step_factor (a number s means s) as they are",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "zoom_blur"}};
                     const auto [mlo, mhi] = t.limit("max_factor", {1.0, 1.31}, false, 1.0);
                     s["max_factor"] = span(mlo, mhi);
                     const auto [slo, shi] = t.value_or_range("step_factor", {0.01, 0.03});
                     s["step_factor"] = span(slo, shi);
                     return s;
                   },
                   .python = {{"ZoomBlur", "max_factor step_factor always_apply p", "max_factor step_factor p", 0.5}}}},
      .counterpart = {.call = "cv::resize (INTER_LINEAR, float) per factor",
                      .how = "Albumentations' calls on the resolved factors: the image to float, per factor a "
                             "central crop resized by cv::resize and added, the mean back to 8 bits",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const std::vector<double> f =
                            zoom_factors(m.at("max_factor").get<double>(), m.at("step_factor").get<double>());
                        return [&dst, src, f] {
                          cv::Mat x, acc = cv::Mat::zeros(src.size(), CV_MAKETYPE(CV_32F, src.channels())), zoomed;
                          src.convertTo(x, CV_32F, 1.0 / 255);
                          for (double z : f) {
                            const ZoomAxis ay = zoom_axis(src.rows, z), ax = zoom_axis(src.cols, z);
                            cv::resize(x(cv::Rect(ax.offset, ay.offset, ax.crop, ay.crop)), zoomed,
                                       cv::Size(ax.zoomed, ay.zoomed), 0, 0, cv::INTER_LINEAR);
                            acc += zoomed(cv::Rect(ax.trim, ay.trim, src.cols, src.rows));
                          }
                          acc += x;
                          acc.convertTo(dst, src.type(), 255.0 / static_cast<double>(f.size() + 1));
                        };
                      }},
  };
  return spec;
}

// Hands the same block to every request that fits it: the separable passes of consecutive zooms
// run one after another on the context's stream, so their intermediate planes can share memory.
class SharedScratch final : public k::Scratch {
 public:
  explicit SharedScratch(KernelContext& ctx) : ctx_(ctx) {}
  void* scratch(std::size_t bytes) override {
    if (bytes > size_) {
      block_ = ctx_.scratch(bytes);
      size_ = bytes;
    }
    return block_;
  }

 private:
  KernelContext& ctx_;
  void* block_ = nullptr;
  std::size_t size_ = 0;
};

class ZoomOp final : public Op {
 public:
  ZoomOp(const Shape& s, double max_factor, double step) : Op(s, s), max_factor_(max_factor), step_(step) {
    for (double z : zoom_factors(max_factor, step)) {
      Zoom zoom;
      zoom.identity = z == 1.0;
      if (!zoom.identity) {
        zoom.ax = zoom_axis(s.width, z);
        zoom.ay = zoom_axis(s.height, z);
        zoom.h = linear_axis(zoom.ax, s.width, true);
        zoom.v = linear_axis(zoom.ay, s.height, false);
      }
      zooms_.push_back(std::move(zoom));
    }
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const k::Exec exec = ctx.exec();
    const Shape& s = in_shape();
    const std::size_t pitch = static_cast<std::size_t>(s.width) * s.channels * sizeof(float);
    auto plane = [&] {
      return k::View<float>{static_cast<float*>(ctx.scratch(pitch * s.height)), s.width, s.height, s.channels, pitch};
    };
    auto axis = [&](const AxisTable& t) {
      k::AxisTaps a;
      a.taps = t.taps;
      a.index = ctx.table(t.index);
      a.fweight = ctx.table(t.fweight);
      return a;
    };
    with_views(in, out, [&](auto src, auto dst) {
      using T = std::remove_const_t<std::remove_pointer_t<decltype(dst.data)>>;
      k::View<const float> x;
      if constexpr (std::is_same_v<T, float>) {
        x = src;
      } else {
        const k::View<float> xs = plane();
        k::zoom_blur_to_unit(src, xs, exec);
        x = k::as_const(xs);
      }
      const k::View<float> acc = plane();
      k::View<float> zoomed;
      cv::Mat resized;
      SharedScratch shared(ctx);
      bool first = true;
      for (const Zoom& z : zooms_) {
        if (z.identity) {
          k::zoom_blur_add(x, acc, first, exec);
        } else if (ctx.cpu()) {
          // cv::resize computes exactly the engine's sums with these tables (INTER_LINEAR on binary32,
          // docs/stages/filter.md#zoom_blur; the catalog tests hold the two equal): the whole zoom, as
          // Albumentations does, then its centre is added.
          const cv::Mat xm(s.height, s.width, CV_32FC(s.channels), const_cast<float*>(x.data), x.pitch);
          cv::resize(xm(cv::Rect(z.ax.offset, z.ay.offset, z.ax.crop, z.ay.crop)), resized,
                     cv::Size(z.ax.zoomed, z.ay.zoomed), 0, 0, cv::INTER_LINEAR);
          const cv::Mat centre = resized(cv::Rect(z.ax.trim, z.ay.trim, s.width, s.height));
          const k::View<const float> zv{centre.ptr<float>(), s.width, s.height, s.channels, centre.step[0]};
          k::zoom_blur_add(zv, acc, first, exec);
        } else {
          if (!zoomed.data) zoomed = plane();
          const int row0 = z.v.min_index();
          k::separable(x, zoomed, axis(z.h), axis(z.v), 0, row0, z.v.max_index() - row0 + 1, shared, exec);
          k::zoom_blur_add(k::as_const(zoomed), acc, first, exec);
        }
        first = false;
      }
      k::zoom_blur_finish(x, k::as_const(acc), static_cast<float>(zooms_.size() + 1), dst, exec);
    });
  }

  nlohmann::json params() const override {
    return {{kMaxFactor.name, max_factor_}, {kStepFactor.name, step_}, {"zooms", zooms_.size()}};
  }

 private:
  struct Zoom {
    bool identity = false;
    ZoomAxis ax, ay;
    AxisTable h, v;
  };
  double max_factor_, step_;
  std::vector<Zoom> zooms_;
};

class ZoomBlur final : public Stage {
 public:
  explicit ZoomBlur(const StageConfig& c) : max_factor_(c.get(kMaxFactor)), step_(c.get(kStepFactor)) {
    if (!max_factor_.written_as_range) {  // a number m is the range [1, m], as Albumentations reads it
      max_factor_.hi = max_factor_.lo;
      max_factor_.lo = 1.0;
      max_factor_.is_range = true;
    }
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double step = step_.sample(d);
    const double max_factor = std::max(1.0 + step, max_factor_.sample(d));
    return std::make_unique<ZoomOp>(in, max_factor, step);
  }

 private:
  NumberParam max_factor_, step_;
};

}  // namespace
}  // namespace zoom_blur_impl

StageType zoom_blur_stage() { return stage_type<zoom_blur_impl::ZoomBlur>(&zoom_blur_impl::zoom_blur_spec); }

}  // namespace aug
