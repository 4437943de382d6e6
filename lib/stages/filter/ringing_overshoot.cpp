// ringing_overshoot: Albumentations' RingingOvershoot, a 2-D sinc (circular low-pass) kernel applied
// as cv::filter2D applies it, by the filter2d engine (docs/stages/filter.md#ringing_overshoot).
#include <cmath>
#include <numbers>
#include <vector>

#include "lib/stages/engines/filter2d.hpp"
#include "lib/stages/engines/vocabulary.hpp"
#include "lib/stages/engines/numpy_like.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace ringing_overshoot_impl {
namespace {

constexpr int kMaxKernel = 31;

Param<IntegerParam> kernel_size_param() {
  Param<IntegerParam> p = odd_kernel_size_param("sinc kernel", kMaxKernel);
  p.default_value = {7, 15};
  return p;
}
const Param<IntegerParam> kKernelSize = kernel_size_param();
const Param<NumberParam> kCutoff{{.name = "cutoff",
                                  .doc = "the cutoff frequency in radians per pixel, drawn per image; lower cutoffs "
                                         "ring more",
                                  .default_value = {std::numbers::pi / 4, std::numbers::pi / 2},
                                  .random = true,
                                  .min = Bound{0, true},
                                  .max = Bound{std::numbers::pi}}};

// Albumentations' kernel: K = cutoff J1(cutoff r) / (2 pi r) at distance r from the centre (in
// double), cutoff^2 / (4 pi) at the centre; then float32(K) / sum(K), rounded to binary32 (OpenCV
// takes the kernel as CV_32F).
std::vector<float> sinc_kernel(int k, double cutoff) {
  const double c = (k - 1) / 2.0;
  std::vector<double> K(static_cast<std::size_t>(k) * k);
  for (int x = 0; x < k; ++x)
    for (int y = 0; y < k; ++y) {
      const double r = std::sqrt((x - c) * (x - c) + (y - c) * (y - c));
      K[static_cast<std::size_t>(x) * k + y] = cutoff * std::cyl_bessel_j(1.0, cutoff * r) / (2 * std::numbers::pi * r);
    }
  K[static_cast<std::size_t>((k - 1) / 2) * k + (k - 1) / 2] = cutoff * cutoff / (4 * std::numbers::pi);
  const double sum = numpy_sum(K.data(), K.size());
  std::vector<float> w(K.size());
  for (std::size_t i = 0; i < K.size(); ++i)
    w[i] = static_cast<float>(static_cast<double>(static_cast<float>(K[i])) / sum);
  return w;
}

const StageSpec& ringing_overshoot_spec() {
  static const StageSpec spec{
      .name = "ringing_overshoot",
      .family = "filter",
      .summary = "Ringing and overshoot near edges: a 2-D sinc kernel of a drawn size and cutoff (Albumentations "
                 "RingingOvershoot), applied as cv::filter2D.",
      .notes = {"As Albumentations' RingingOvershoot: per image an odd kernel size from kernel_size (each odd size "
                "alike; Albumentations' blur_limit) and a cutoff frequency uniform in cutoff; the kernel K = cutoff "
                "J1(cutoff r) / (2 pi r) over the distance r from its centre (cutoff^2 / (4 pi) there), normalised "
                "to sum 1 as Albumentations does (float32 values divided by their double sum), then applied to "
                "every channel, alpha too, as cv::filter2D with its reflect-101 border; float results are clamped "
                "to [0, 1]. 8-bit results equal cv::filter2D where OpenCV sums the kernel directly (sizes up to 11); "
                "for 13 and larger OpenCV correlates through a DFT and differs by rounding.",
                "Albumentations' default p is 0.5, this stage's too."},
      .params = {kKernelSize, kCutoff},
      .default_p = 0.5,
      .tolerance = {.reason = "the kernel is built once on the host; the filter2d engine's fused sums in the same "
                              "order on every backend"},
      .example = {{"stage", "ringing_overshoot"}, {"kernel_size", {7, 15}}, {"cutoff", {0.785, 1.571}}, {"p", 0.5}},
      .cases = {R"({"kernel_size": 7})", R"({"kernel_size": [3, 11], "cutoff": [0.3, 3.0]})",
                R"({"kernel_size": 15, "cutoff": 1.2})"},
      .no_identity = "a sinc kernel of 3 or more taps changes every image that is not flat",
      .bench = {R"({"kernel_size": 7})", R"({"kernel_size": 11})", R"({"kernel_size": 15})"},
      .arithmetic = R"md(
Albumentations' **RingingOvershoot** (default `blur_limit` (7, 15), `cutoff` (π/4, π/2), `p` 0.5).

- **Draws**: `k` one of the odd sizes of `kernel_size` alike (`randrange(lo, hi + 1, 2)`; the
  importer makes an even `lo` odd as Albumentations does), then `cutoff = uniform(c0, c1)`.
- **Kernel** (double): with `c = (k - 1) / 2`, at row `x` and column `y`,
  `r = sqrt((x - c)² + (y - c)²)` and `K = cutoff J1(cutoff r) / (2 π r)` (`std::cyl_bessel_j`; SciPy's
  `special.j1`), the centre `cutoff² / (4 π)`. `S` is NumPy's pairwise sum of the `k²` values
  (blocks of eight partial sums up to 128 values, halves above); the weights are
  `float32(float32(K) / S)`, what OpenCV takes from Albumentations' array.
- **Filtering**: the [filter2d engine](../arithmetic.md#filter2d-engine), as `cv::filter2D(img, -1,
  kernel)` with `BORDER_REFLECT_101`: every channel, alpha too; float results clamped to [0, 1]
  (Albumentations' `clipped`). Up to 11 x 11 OpenCV sums directly and 8-bit results are equal to
  it; from 13 x 13 (169 weights, over OpenCV's 130) it correlates through a DFT and differs by
  rounding, while this stage still sums directly.
- The manifest records `kernel_size`, `cutoff` and the weights as `kernel`.
)md",
      .imports = {
          {.name = "RingingOvershoot",
           .how = "blur_limit is kernel_size (an even lower end made odd, as Albumentations' +1; a number x is "
                  "[3, x]); cutoff (a number x is [pi / 2, x] in 1.x's to_tuple)",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "ringing_overshoot"}};
            if (t.has("blur_limit")) {
              auto [lo, hi] = t.limit("blur_limit", {7, 15}, false, 3);
              const auto l = static_cast<std::int64_t>(std::llround(lo)), h = static_cast<std::int64_t>(std::llround(hi));
              // randrange(l, h + 1, 2), an even draw + 1: the odd sizes from l | 1 to the last one reached.
              const std::int64_t first = l | 1, last = l + (h - l) / 2 * 2 + (l % 2 == 0 ? 1 : 0);
              s["kernel_size"] = ispan(static_cast<double>(first), static_cast<double>(last));
            }
            if (t.has("cutoff")) {
              const auto [a, b] = t.limit("cutoff", {std::numbers::pi / 4, std::numbers::pi / 2}, false,
                                          std::numbers::pi / 2);
              s["cutoff"] = span(a, b);
            }
            return s;
          },
           .python = {{"RingingOvershoot", "blur_limit cutoff always_apply p", "blur_limit cutoff p", 0.5}}}},
      .counterpart = {.call = "cv::filter2D",
                      .how = "the recorded kernel (float32), BORDER_REFLECT_101",
                      .make = filter2d_counterpart},
  };
  return spec;
}

class RingingOvershoot final : public Stage {
 public:
  explicit RingingOvershoot(const StageConfig& c) : ksize_(c.get(kKernelSize)), cutoff_(c.get(kCutoff)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int k = static_cast<int>(ksize_.sample_odd(d));
    const double cutoff = cutoff_.sample(d);
    nlohmann::json drawn{{"kernel_size", k}, {"cutoff", cutoff}};
    return std::make_unique<Filter2DOp>(in, std::move(drawn), Filter2D(k, sinc_kernel(k, cutoff), true));
  }

 private:
  IntegerParam ksize_;
  NumberParam cutoff_;
};

}  // namespace
}  // namespace ringing_overshoot_impl

StageType ringing_overshoot_stage() {
  return stage_type<ringing_overshoot_impl::RingingOvershoot>(&ringing_overshoot_impl::ringing_overshoot_spec);
}

}  // namespace aug
