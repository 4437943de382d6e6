// fog: Albumentations' RandomFog (docs/stages/weather.md#fog).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "kernels/weather/fog.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/engines/resample.hpp"
#include "lib/stages/stage.hpp"
#include "lib/stages/weather/circle_rows.hpp"

namespace aug {

namespace fog_impl {
namespace {

const Param<NumberParam> kFogCoef{{.name = "fog_coef",
                                   .doc = "fog intensity f; [lo, hi] draws one per image",
                                   .default_value = {0.3, 1.0},
                                   .random = true,
                                   .min = Bound{0},
                                   .max = Bound{1}}};
const Param<NumberParam> kAlphaCoef{{.name = "alpha_coef",
                                     .doc = "transparency of each fog particle: each blends white at alpha_coef * f",
                                     .default_value = 0.08,
                                     .min = Bound{0},
                                     .max = Bound{1}}};

const StageSpec& fog_spec() {
  static const StageSpec spec{
      .name = "fog",
      .family = "weather",
      .summary = "Veil the image in fog: white particles blended in, then a Gaussian blur (Albumentations RandomFog).",
      .notes = {"As Albumentations 2.x's RandomFog on 8-bit values, with the stage's draws: the intensity f, "
                "particles drawn in shrinking regions around the centre, each a filled circle of white blended at "
                "alpha_coef * f as cv::addWeighted blends it, then cv::GaussianBlur with a kernel of "
                "max(3, min(H, W) // 30) made odd. 16-bit and float images are quantised to 8 bits and given back "
                "(Albumentations' uint8_io). Labels are not moved. Albumentations' default p is 0.5, this "
                "stage's too."},
      .params = {kFogCoef, kAlphaCoef},
      .channels = {1, 3},
      .default_p = 0.5,
      .tolerance = {.f32 = 0,
                    .reason = "the circles and the blend table are computed once on the host; the blur is the "
                              "separable engine's integer arithmetic on 8-bit values"},
      .example = {{"stage", "fog"}, {"fog_coef", {0.3, 0.6}}},
      .cases = {R"({})", R"({"fog_coef": [0.05, 0.2], "alpha_coef": 0.3})", R"({"fog_coef": 1, "alpha_coef": 0.5})"},
      .no_identity = "the final Gaussian blur runs on every image, even without particles",
      .bench = {R"({})", R"({"fog_coef": 0.3})"},
      .arithmetic = R"md(
Albumentations 2.x's **RandomFog** (its defaults: `fog_coef_range` (0.3, 1), `alpha_coef` 0.08,
`p` 0.5) on 8-bit values, with the stage's draws in Albumentations' order.

- **Draws**: `f = uniform(fog_coef)`; `region = max(1, int(W // 3 * f))`; the centre
  `cx = int((W - 1) / 2)`, `cy = int((H - 1) / 2)`; with `cw = W`, `ch = H`, for at most 10 rounds while
  `cw > region` and `ch > region`: `int(cw * ch / region^2 * f * 10)` particles (double, in that order),
  each `x = integer(cx - cw // 2, cx + cw // 2)` then `y = integer(cy - ch // 2, cy + ch // 2)`
  (inclusive); then `cw = int(cw * 0.9)`, `ch = int(ch * 0.9)`. Then one radius per particle, an
  integer in `[max(1, R // 2), R)` with `R = max(2, int(min(H, W) * 0.1 * f))`. The manifest records
  `f`, the particle count and the blur's kernel size.
- **Particles**: Albumentations draws each particle as a filled white circle (`cv::circle`, thickness
  -1, 8-connected) on a copy of the image and blends it back with
  `cv::addWeighted(overlay, a, image, 1 - a, 0)`, `a = alpha_coef * f`. Outside the circle that
  leaves every value as it was; inside, each value `v` becomes `blend(v)`: with `af = (float)a`,
  `bf = (float)(1 - a)`, `blend(v) = sat(rne(fma(255, af, v * bf)))` in binary32 (OpenCV 4.6's SIMD
  addWeighted: the product `v * bf` rounded to float, then one fused multiply-add). So the host
  counts the circles over each pixel and tabulates `blend^n(q)` for every count `n` and 8-bit value
  `q`; the kernels look each value up. The counts are kept as runs along each row: each circle's
  span on a row is where `cv::circle` fills it (OpenCV's integer midpoint walk, shared with
  sun_flare), and the sorted span ends cut the row into runs of one count.
- **Blur**: `cv::GaussianBlur(k, k, sigma 0)`, `k = max(3, min(H, W) // 30)`, plus one when even,
  REFLECT_101; the kernel is `cv::getGaussianKernel(k, 0)` (OpenCV's small fixed kernels up to 7) and
  the 8-bit fixed-point arithmetic is gaussian_blur's: 8-bit weights summing to 256 per axis, exact
  integer sums, `(sum + 2^15) >> 16`. Being exact, the sums may be taken in any order: the CPU
  backend's host blur (AVX2, or AVX-512 with VNNI) runs the vertical pass first on byte pairs of
  rows and the horizontal pass on 16-bit pairs, reading each row with its particles applied (no
  intermediate image), and drops zero weights at the kernel's ends; where it does not apply
  (no AVX2, a pair of neighbouring weights above 128 such as the 3-tap kernel, an image not larger
  than the radius) the CPU backend calls `cv::GaussianBlur`.
- **Other types** (Albumentations' `uint8_io`): float `q = clamp(rint(v * 255), 0, 255)` (NaN 0),
  given back as `q / 255.f`; 16-bit `q = (v + 128) / 257`, given back as `q * 257`. Gray and RGB images
  only (Albumentations would whiten and blur an alpha channel too).
- Albumentations 1.x drew its particles differently (points along a shrinking frame, fixed radius
  `max(W // 3 * f, 10) // 2`) and box-blurred; the importer maps its `fog_coef_lower/upper` onto the
  2.x arithmetic.
)md",
      .imports = {{.name = "RandomFog",
                   .how = "fog_coef_range (or fog_coef_lower/upper) is fog_coef, alpha_coef; 1.x's particles and "
                          "box blur become 2.x's",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "fog"}};
                     if (t.has("fog_coef_range")) {
                       const auto [lo, hi] = t.limit("fog_coef_range", {0.3, 1}, false);
                       s["fog_coef"] = ojson::array({lo, hi});
                     } else if (t.has("fog_coef_lower") || t.has("fog_coef_upper")) {
                       s["fog_coef"] = ojson::array({t.number("fog_coef_lower", 0.3), t.number("fog_coef_upper", 1)});
                       t.note("RandomFog (1.x): its particle draw and box blur become 2.x's");
                     }
                     s["alpha_coef"] = t.number("alpha_coef", 0.08);
                     return s;
                   },
                   .python = {
                       {"RandomFog",
                        "fog_coef_lower fog_coef_upper alpha_coef always_apply p",
                        "alpha_coef fog_coef_range p",
                        0.5}}}},
      .counterpart = {.none = "OpenCV has no fog call (Albumentations draws it with cv::circle, cv::addWeighted per "
                              "particle and cv::GaussianBlur)"},
  };
  return spec;
}

struct Particle {
  int x, y, r;
};

// OpenCV 4.6's 8-bit addWeighted(white, a, v, 1 - a, 0) of one value (its SIMD path): the product
// v * bf rounded to binary32, then fma(255, af, product), rounded half to even, saturated. Both
// steps are exact in double before the one rounding to float.
int fog_blend(int v, float af, float bf) {
  const float product = static_cast<float>(static_cast<double>(v) * static_cast<double>(bf));
  const float sum = static_cast<float>(255.0 * static_cast<double>(af) + static_cast<double>(product));
  const long r = std::lrint(sum);
  return static_cast<int>(std::clamp<long>(r, 0, 255));
}

int fog_kernel_size(int width, int height) {
  const int k = std::max(3, std::min(width, height) / 30);
  return k % 2 == 0 ? k + 1 : k;
}

class FogOp final : public Op {
 public:
  FogOp(const Shape& s, double f, double alpha_coef, const std::vector<Particle>& particles)
      : Op(s, s), f_(f), particles_(static_cast<int>(particles.size())), ksize_(fog_kernel_size(s.width, s.height)),
        kernel_([this] {
          const cv::Mat k = cv::getGaussianKernel(ksize_, 0, CV_64F);
          return std::vector<double>(k.begin<double>(), k.end<double>());
        }()) {
    {  // the blur's integer weights (8 fraction bits), as the separable engine takes them: one interior output
      const AxisTable t = blur_axis(2 * ksize_ + 1, kernel_, Border::Reflect101, DType::U8);
      bool plain = t.taps == ksize_;
      for (int j = 0; plain && j < ksize_; ++j)
        plain = t.index[static_cast<std::size_t>(ksize_ * t.taps + j)] == ksize_ - ksize_ / 2 + j;
      if (plain && blur_frac_bits(DType::U8) == 8)
        iweights_.assign(t.iweight.begin() + ksize_ * t.taps, t.iweight.begin() + (ksize_ + 1) * t.taps);
    }
    // How many circles cover each pixel, as runs of one count along each row: every circle's span
    // on a row (as cv::circle fills it) opens at x0 and closes at x1; the ends sorted per row.
    const int W = s.width, H = s.height;
    std::vector<std::uint32_t> per_row(static_cast<std::size_t>(H) + 1, 0);
    std::vector<CircleRows> circles;
    circles.reserve(particles.size());
    for (const Particle& p : particles) {
      circles.push_back({p.x, p.y, p.r, filled_circle_half_widths(p.r)});
      for (int y = std::max(0, p.y - p.r); y <= std::min(H - 1, p.y + p.r); ++y) per_row[static_cast<std::size_t>(y) + 1] += 2;
    }
    for (int y = 0; y < H; ++y) per_row[static_cast<std::size_t>(y) + 1] += per_row[static_cast<std::size_t>(y)];
    // column * 2 + (1: opens, 0: closes); kept by each thread from image to image (it is written before
    // it is read), so that a stream of images does not fault in fresh pages for it.
    thread_local std::vector<std::uint32_t> ends_buffer;
    if (ends_buffer.size() < per_row[static_cast<std::size_t>(H)]) ends_buffer.resize(per_row[static_cast<std::size_t>(H)]);
    std::uint32_t* const ends = ends_buffer.data();
    {
      // Each row's opening ends, then its closing ends; the circles taken from left to right, so
      // that both lists come nearly sorted (an insertion sort below puts them in order).
      std::sort(circles.begin(), circles.end(), [](const CircleRows& a, const CircleRows& b) { return a.x < b.x; });
      std::vector<std::uint32_t> open(per_row.begin(), per_row.end() - 1), close(open);
      for (int y = 0; y < H; ++y)
        close[static_cast<std::size_t>(y)] += (per_row[static_cast<std::size_t>(y) + 1] - per_row[static_cast<std::size_t>(y)]) / 2;
      for (const CircleRows& c : circles)
        for (int y = std::max(0, c.y - c.radius); y <= std::min(H - 1, c.y + c.radius); ++y) {
          int x0 = 0, x1 = 0;
          if (!c.span(y, W, x0, x1)) x0 = x1 = 0;  // nothing on this row: an empty span
          ends[open[static_cast<std::size_t>(y)]++] = static_cast<std::uint32_t>(x0) * 2 + 1;
          ends[close[static_cast<std::size_t>(y)]++] = static_cast<std::uint32_t>(x1) * 2;
        }
    }
    auto insertion_sort = [](std::uint32_t* a, std::uint32_t* b) {
      if (b - a < 2) return;  // also an image without particles, whose list is empty (a null pointer)
      for (std::uint32_t* i = a + 1; i < b; ++i) {
        const std::uint32_t v = *i;
        std::uint32_t* j = i;
        for (; j > a && *(j - 1) > v; --j) *j = *(j - 1);
        *j = v;
      }
    };
    std::vector<std::uint32_t> merged;
    int most = 0;
    row_start_.reserve(static_cast<std::size_t>(H) + 1);
    // At most one run per row and one per end: room for all of them, so that the list is never copied.
    runs_.reserve(static_cast<std::size_t>(per_row[static_cast<std::size_t>(H)]) + static_cast<std::size_t>(H));
    for (int y = 0; y < H; ++y) {
      row_start_.push_back(static_cast<std::uint32_t>(runs_.size()));
      std::uint32_t* const lo = ends + per_row[static_cast<std::size_t>(y)];
      std::uint32_t* const hi = ends + per_row[static_cast<std::size_t>(y) + 1];
      std::uint32_t* const mid = lo + (hi - lo) / 2;
      insertion_sort(lo, mid);
      insertion_sort(mid, hi);
      merged.resize(static_cast<std::size_t>(hi - lo));
      std::merge(lo, mid, mid, hi, merged.begin());
      const auto first = merged.cbegin();
      const auto last = merged.cend();
      runs_.push_back({0, 0});
      int count = 0;
      for (auto e = first; e != last;) {
        const int x = static_cast<int>(*e >> 1);
        for (; e != last && static_cast<int>(*e >> 1) == x; ++e) count += (*e & 1u) ? 1 : -1;
        if (x >= W) break;
        most = std::max(most, count);
        if (runs_.back().count == count) continue;
        if (runs_.back().x == x) runs_.back().count = count;  // an empty run replaced
        else runs_.push_back({x, count});
        if (runs_.size() >= 2 && row_start_.back() + 1 < runs_.size() &&
            runs_[runs_.size() - 2].count == runs_.back().count)
          runs_.pop_back();
      }
    }
    row_start_.push_back(static_cast<std::uint32_t>(runs_.size()));
    const double a = alpha_coef * f;
    const float af = static_cast<float>(a), bf = static_cast<float>(1 - a);
    table_.resize(static_cast<std::size_t>(most + 1) * 256);
    for (int q = 0; q < 256; ++q) table_[q] = static_cast<std::uint8_t>(q);
    for (int n = 1; n <= most; ++n)
      for (int q = 0; q < 256; ++q)
        table_[n * 256 + q] = static_cast<std::uint8_t>(fog_blend(table_[(n - 1) * 256 + q], af, bf));
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const Shape s = in.shape;
    const Shape s8{s.width, s.height, s.channels, DType::U8};
    if (ctx.cpu() && s.dtype == DType::U8 && !iweights_.empty() && in.data != out.data) {
      // The particles applied to each source row as the host blur reads it: no intermediate image.
      struct Rows {
        const FogOp* op;
        k::View<const std::uint8_t> in;
      } rows{this, in.view<const std::uint8_t>()};
      const k::cpu::FogRowSource source{
          [](const void* c, int y, std::uint8_t* to) {
            const Rows& r = *static_cast<const Rows*>(c);
            r.op->particle_row(r.in.row(y), y, to);
          },
          &rows};
      if (k::cpu::fog_blur(source, out.view<std::uint8_t>(), iweights_.data(), ksize_)) return;
    }
    const ImageRef mid{ctx.scratch(s8.bytes()), s8, s8.row_bytes()};
    if (ctx.cpu() && s.dtype == DType::U8) {
      for (int y = 0; y < s.height; ++y) particle_row(in.view<const std::uint8_t>().row(y), y, mid.view<std::uint8_t>().row(y));
    } else {
      // The kernels: every pixel's count, from the runs (tables are copied when made).
      std::vector<std::uint16_t> count(static_cast<std::size_t>(s.width) * static_cast<std::size_t>(s.height));
      for (int y = 0; y < s.height; ++y) {
        std::uint16_t* o = count.data() + static_cast<std::size_t>(y) * s.width;
        const std::uint32_t end = row_start_[static_cast<std::size_t>(y) + 1];
        for (std::uint32_t r = row_start_[static_cast<std::size_t>(y)]; r < end; ++r)
          std::fill(o + runs_[r].x, o + (r + 1 < end ? runs_[r + 1].x : s.width), static_cast<std::uint16_t>(runs_[r].count));
      }
      k::FogArgs a;
      a.count = ctx.table(count);
      a.table = ctx.table(table_);
      with_sample_type(s.dtype, [&](auto tag) {
        using T = decltype(tag);
        k::fog_particles(in.view<const T>(), mid.view<std::uint8_t>(), a, ctx.exec());
      });
    }
    const ImageRef blurred = s.dtype == DType::U8 ? out : ImageRef{ctx.scratch(s8.bytes()), s8, s8.row_bytes()};
    if (ctx.cpu()) {
      // The vectorised host blur where it applies (the same integer sums), else OpenCV's own call.
      const k::View<const std::uint8_t> m = as_const(mid.view<std::uint8_t>());
      const k::cpu::FogRowSource source{
          [](const void* c, int y, std::uint8_t* to) {
            const auto& v = *static_cast<const k::View<const std::uint8_t>*>(c);
            std::memcpy(to, v.row(y), static_cast<std::size_t>(v.width) * static_cast<std::size_t>(v.channels));
          },
          &m};
      if (iweights_.empty() || !k::cpu::fog_blur(source, blurred.view<std::uint8_t>(), iweights_.data(), ksize_)) {
        cv::Mat dst = as_mat(blurred);
        cv::GaussianBlur(as_mat(mid), dst, cv::Size(ksize_, ksize_), 0, 0, cv::BORDER_REFLECT_101 | cv::BORDER_ISOLATED);
      }
    } else {
      run_separable(ctx, mid, blurred, blur_axis(s.width, kernel_, Border::Reflect101, DType::U8),
                    blur_axis(s.height, kernel_, Border::Reflect101, DType::U8), blur_frac_bits(DType::U8));
    }
    if (s.dtype == DType::U16) k::fog_back(blurred.view<const std::uint8_t>(), out.view<std::uint16_t>(), ctx.exec());
    if (s.dtype == DType::F32) k::fog_back(blurred.view<const std::uint8_t>(), out.view<float>(), ctx.exec());
  }

  // The kernels' look-ups on 8-bit row y, a run at a time; runs without particles are copied.
  void particle_row(const std::uint8_t* src, int y, std::uint8_t* dst) const {
    const int C = in_shape().channels, W = in_shape().width;
    const std::uint32_t end = row_start_[static_cast<std::size_t>(y) + 1];
    for (std::uint32_t r = row_start_[static_cast<std::size_t>(y)]; r < end; ++r) {
      const std::size_t x0 = static_cast<std::size_t>(runs_[r].x) * C;
      const std::size_t x1 = static_cast<std::size_t>(r + 1 < end ? runs_[r + 1].x : W) * C;
      if (runs_[r].count == 0) {
        std::memcpy(dst + x0, src + x0, x1 - x0);
        continue;
      }
      const std::uint8_t* t = table_.data() + static_cast<std::size_t>(runs_[r].count) * 256;
      k::cpu::fog_lookup(src + x0, dst + x0, x1 - x0, t);
    }
  }

  nlohmann::json params() const override {
    return {{kFogCoef.name, f_}, {"particles", particles_}, {"kernel_size", ksize_}};
  }

 private:
  double f_;
  int particles_;
  int ksize_;
  std::vector<double> kernel_;
  std::vector<std::int32_t> iweights_;  // the blur's weights for the host blur (empty: OpenCV's call)
  struct Run {
    int x;      // first column; the run ends where the row's next run starts (or at the width)
    int count;  // circles over it
  };
  std::vector<Run> runs_;                // every row's runs, left to right
  std::vector<std::uint32_t> row_start_;  // row y's runs: [row_start_[y], row_start_[y + 1])
  std::vector<std::uint8_t> table_;
};

class FogStage final : public Stage {
 public:
  explicit FogStage(const StageConfig& c) : coef_(c.get(kFogCoef)), alpha_(c.get(kAlphaCoef).lo) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int W = in.width, H = in.height;
    const double f = coef_.sample(d);
    const std::int64_t region = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(W / 3) * f));
    const std::int64_t cx = (W - 1) / 2, cy = (H - 1) / 2;
    std::int64_t cw = W, ch = H;
    std::vector<Particle> particles;
    for (int round = 0; round < 10 && cw > region && ch > region; ++round) {
      const double area = static_cast<double>(cw * ch);
      const auto n = static_cast<std::int64_t>(area / static_cast<double>(region * region) * f * 10);
      for (std::int64_t i = 0; i < n; ++i) {
        const auto x = static_cast<int>(d.integer(cx - cw / 2, cx + cw / 2));
        const auto y = static_cast<int>(d.integer(cy - ch / 2, cy + ch / 2));
        particles.push_back({x, y, 0});
      }
      cw = static_cast<std::int64_t>(static_cast<double>(cw) * 0.9);
      ch = static_cast<std::int64_t>(static_cast<double>(ch) * 0.9);
    }
    const std::int64_t R = std::max<std::int64_t>(2, static_cast<std::int64_t>(std::min(H, W) * 0.1 * f));
    for (Particle& p : particles) p.r = static_cast<int>(d.integer(std::max<std::int64_t>(1, R / 2), R - 1));
    return std::make_unique<FogOp>(in, f, alpha_, particles);
  }

 private:
  NumberParam coef_;
  double alpha_;
};

}  // namespace
}  // namespace fog_impl

StageType fog_stage() { return stage_type<fog_impl::FogStage>(&fog_impl::fog_spec); }

}  // namespace aug
