// motion_blur: Albumentations' MotionBlur, a rasterised line kernel normalised by its point count,
// applied as cv::filter2D applies it (reflect101 border).
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/stages/engines/filter2d.hpp"
#include "lib/stages/engines/vocabulary.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace motion_blur_impl {
namespace {

constexpr int kMaxKernel = 63;

const Param<IntegerParam> kKernelSize = odd_kernel_size_param("kernel", kMaxKernel);
const Param<NumberParam> kAngle{{.name = "angle",
                                 .doc = "direction of the motion in degrees, clockwise from +x (image y points "
                                        "down); [lo, hi] draws one per image",
                                 .default_value = {0, 360},
                                 .random = true,
                                 .min = Bound{-360},
                                 .max = Bound{360}}};
const Param<NumberParam> kDirection{{.name = "direction",
                                     .doc = "where the line lies along the angle: -1 behind the centre only, 0 both "
                                            "ways, 1 ahead only; [lo, hi] draws one per image",
                                     .default_value = {-1, 1},
                                     .random = true,
                                     .min = Bound{-1},
                                     .max = Bound{1}}};
const Param<bool> kAllowShifted{{.name = "allow_shifted",
                                 .doc = "shift the line off the kernel centre by up to a quarter of the kernel "
                                        "along x and y, drawn per image",
                                 .default_value = true}};

const StageSpec& motion_blur_spec() {
  static const StageSpec spec{
      .name = "motion_blur",
      .family = "filter",
      .summary =
          "Blur along a random line (Albumentations MotionBlur); equal to cv::filter2D with the same kernel "
          "to the bit up to size 11 (16-bit: 7).",
      .notes = {"As Albumentations' MotionBlur: a k x k kernel with 1 on a rasterised line segment through the "
                "(possibly shifted) centre at the drawn angle, divided by its point count, applied like cv::filter2D "
                "(BORDER_REFLECT_101) to every channel, alpha too. The segment runs from t = -L min(1, 1 - direction) "
                "to t = L min(1, 1 + direction) along (cos angle, sin angle), L = (k - 1) / 2, its ends rounded half "
                "to even and joined with Bresenham's line; points outside the kernel are dropped (docs/stages/filter.md). "
                "Albumentations samples points along its line instead, so single kernels may differ by a point.",
                "Each output is a binary32 sum of the taps in row-major order, one fused multiply-add per tap: what "
                "cv::filter2D computes on CPUs with AVX2 for kernels under 130 entries (k <= 11; 16-bit images: under "
                "50, k <= 7). Beyond, OpenCV correlates through a DFT, within a level of this sum. kernel_size [lo, "
                "hi] draws "
                "each odd size alike; the defaults (3 to 7, angle 0 to 360, direction -1 to 1, allow_shifted, p 0.5) "
                "are Albumentations'."},
      .params = {kKernelSize, kAngle, kDirection, kAllowShifted},
      .default_p = 0.5,
      .tolerance = {.reason = "the same taps and binary32 fused multiply-adds in the same order on every backend"},
      .example = {{"stage", "motion_blur"}, {"kernel_size", {3, 7}}, {"angle", {0, 360}}, {"p", 0.5}},
      .cases = {R"({})", R"({"kernel_size": 9, "angle": 30, "direction": 0.5, "allow_shifted": false})",
                R"({"kernel_size": [3, 5], "angle": [-90, 90], "direction": -1})"},
      .no_identity = "every kernel of size 3 or more has at least two points (or one off the centre)",
      .bench = {R"({"kernel_size": 7})"},
      .arithmetic = R"md(
Albumentations' **MotionBlur** (default `p` 0.5): a line kernel divided by its point count, applied as
`cv::filter2D` applies it (the [filter2d engine](../arithmetic.md#filter2d-engine)).

- **Draws**: `kernel_size` (each odd size of the range alike; default `[3, 7]`, up to 63), `angle`
  (degrees, default `[0, 360]`), `direction` (default `[-1, 1]`), then with `allow_shifted` (default
  true) `shift_x`, `shift_y` = `uniform(-1, 1) * (L / 2)`, `L = (k - 1) / 2`. The manifest records
  all of them and the kernel's `points`.
- **Kernel** (host, double): centre `(L + shift_x, L + shift_y)`, unit `(cos a, sin a)` (image y
  down), the segment `t` in `[-L min(1, 1 - direction), L min(1, 1 + direction)]`; its two ends are
  rounded half to even and joined by Bresenham's line (`err = dx - |dy|`; step x when
  `2 err >= -|dy|`, y when `2 err <= dx`); points outside the `k x k` kernel are dropped, the
  centre alone if none is left. Every point weighs `(float)(1 / n)`. Albumentations samples `2k`
  points along its segment and rounds each; a kernel may differ from its by a point.
- **Sum**: for each output value, over the points in row-major order, `acc = fma(v, w, acc)` from 0
  in binary32, the source position reflected without repeating the edge (reflect101); 8/16-bit
  `sat(rne(acc))`, float `acc` (not clamped, as filter2D). This is `cv::filter2D`'s direct path on
  CPUs with AVX2 (fused multiply-adds in its vector code and its compiled tail alike), which the CPU
  backend calls there for `k <= 11` (16-bit: `k <= 7`); the engine's host driver otherwise.
- **Checked** (`tests/stages/test_motion_blur.cpp`): `EqualsCvFilter2DUpToSizeEleven` (k 3 to 11,
  u8/u16/f32, 1/3/4 channels, 45x31, 3x2, 1x1) and `PhotographsEqualCvFilter2D`: 0 differing values,
  except 16-bit at k 9 and 11, where OpenCV takes its DFT (within 1).
  `LargeKernelsAreWithinALevelOfOpenCVsDft` (astronaut, 8-bit): k 13 equal, k 21 within 1 (17623 of
  786432 values). `RasterisedLines` (known kernels), `DrawsCoverSizesAnglesDirectionsAndShifts`.
)md",
      .imports = {
          {.name = "MotionBlur",
           .how = "blur_limit is kernel_size; angle_range, direction_range, allow_shifted",
           .convert = [](const TransformReader& t) {
            const auto [lo, hi] = t.limit("blur_limit", {3, 7}, false, 3);
            ojson s{{"stage", "motion_blur"}};
            s["kernel_size"] = ispan(lo, hi);
            if (t.has("angle_range")) {
              const auto [a, b] = t.limit("angle_range", {0, 360}, false);
              s["angle"] = span(a, b);
            }
            if (t.has("direction_range")) {
              const auto [a, b] = t.limit("direction_range", {-1, 1}, false);
              s["direction"] = span(a, b);
            }
            if (t.has("allow_shifted")) s["allow_shifted"] = t.saved().at("allow_shifted");
            return s;
          },
           .python = {
               {"MotionBlur",
                "blur_limit allow_shifted always_apply p",
                "blur_limit allow_shifted angle_range direction_range p",
                0.5}}}},
      .counterpart = {.call = "cv::filter2D",
                      .how = "the k x k kernel of the resolved line points, each 1 / n, BORDER_REFLECT_101",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const int k = m.at("kernel_size").get<int>();
                        const auto points = m.at("points").get<std::vector<std::array<int, 2>>>();
                        cv::Mat kernel = cv::Mat::zeros(k, k, CV_32F);
                        for (const auto& p : points)
                          kernel.at<float>(p[1], p[0]) = static_cast<float>(1.0 / static_cast<double>(points.size()));
                        return [&dst, src, kernel] {
                          cv::filter2D(src, dst, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
                        };
                      }},
  };
  return spec;
}

struct Line {
  int ksize;
  double angle, direction, shift_x, shift_y;
};

// The kernel's points (x, y), row-major: the segment's rounded ends joined by Bresenham's line,
// those inside the kernel kept (the centre alone if none is).
std::vector<std::array<int, 2>> line_points(const Line& l) {
  const int k = l.ksize, half = k / 2;
  const double rad = l.angle * M_PI / 180.0, ux = std::cos(rad), uy = std::sin(rad);
  const double lo = -half * std::min(1.0, 1.0 - l.direction), hi = half * std::min(1.0, 1.0 + l.direction);
  const double cx = half + l.shift_x, cy = half + l.shift_y;
  int x0 = static_cast<int>(std::nearbyint(cx + lo * ux)), y0 = static_cast<int>(std::nearbyint(cy + lo * uy));
  const int x1 = static_cast<int>(std::nearbyint(cx + hi * ux)), y1 = static_cast<int>(std::nearbyint(cy + hi * uy));
  std::vector<char> on(static_cast<std::size_t>(k) * k, 0);
  const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  for (int err = dx + dy;;) {
    if (x0 >= 0 && x0 < k && y0 >= 0 && y0 < k) on[static_cast<std::size_t>(y0) * k + x0] = 1;
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) err += dy, x0 += sx;
    if (e2 <= dx) err += dx, y0 += sy;
  }
  std::vector<std::array<int, 2>> points;
  for (int y = 0; y < k; ++y)
    for (int x = 0; x < k; ++x)
      if (on[static_cast<std::size_t>(y) * k + x]) points.push_back({x, y});
  if (points.empty()) points.push_back({half, half});
  return points;
}

// The kernel: each point weighs (float)(1 / n).
std::vector<float> line_kernel(int k, const std::vector<std::array<int, 2>>& points) {
  std::vector<float> w(static_cast<std::size_t>(k) * k, 0.0f);
  const float each = static_cast<float>(1.0 / static_cast<double>(points.size()));
  for (const auto& p : points) w[static_cast<std::size_t>(p[1]) * k + p[0]] = each;
  return w;
}

class MotionOp final : public Op {
 public:
  MotionOp(const Shape& s, const Line& l)
      : Op(s, s), line_(l), points_(line_points(l)), filter_(l.ksize, line_kernel(l.ksize, points_)) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override { filter_.run(ctx, in, out); }

  nlohmann::json params() const override {
    return {{kKernelSize.name, line_.ksize},
            {kAngle.name, line_.angle},
            {kDirection.name, line_.direction},
            {"shift", {line_.shift_x, line_.shift_y}},
            {"points", nlohmann::json(points_)}};
  }

 private:
  Line line_;
  std::vector<std::array<int, 2>> points_;
  Filter2D filter_;
};

class MotionBlur final : public Stage {
 public:
  explicit MotionBlur(const StageConfig& c)
      : ksize_(c.get(kKernelSize)),
        angle_(c.get(kAngle)),
        direction_(c.get(kDirection)),
        shifted_(c.get(kAllowShifted)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    Line l{};
    l.ksize = static_cast<int>(ksize_.sample_odd(d));
    l.angle = angle_.sample(d);
    l.direction = direction_.sample(d);
    if (shifted_) {  // up to a quarter of the kernel along each axis
      const double reach = (l.ksize / 2) / 2.0;
      l.shift_x = d.uniform(-1, 1) * reach;
      l.shift_y = d.uniform(-1, 1) * reach;
    }
    return std::make_unique<MotionOp>(in, l);
  }

 private:
  IntegerParam ksize_;
  NumberParam angle_, direction_;
  bool shifted_;
};

}  // namespace
}  // namespace motion_blur_impl

StageType motion_blur_stage() { return stage_type<motion_blur_impl::MotionBlur>(&motion_blur_impl::motion_blur_spec); }

}  // namespace aug
