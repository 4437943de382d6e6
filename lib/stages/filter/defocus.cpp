// defocus: Albumentations' Defocus: a disk of the drawn radius (normalised, float32), softened by a
// small Gaussian blur of the kernel array itself, correlated with the image by the filter2d engine
// (direct binary32 sums where cv::filter2D takes a DFT for kernels this large).
#include <algorithm>
#include <functional>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/stages/engines/filter2d.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace defocus_impl {
namespace {

const Param<IntegerParam> kRadius{{.name = "radius",
                                   .doc = "radius of the disk in pixels; [lo, hi] draws one per image, each as likely",
                                   .default_value = {3, 10},
                                   .random = true,
                                   .min = Bound{1},
                                   .max = Bound{30}}};
const Param<NumberParam> kAliasBlur{{.name = "alias_blur",
                                     .doc = "sigma of the Gaussian that softens the disk's edge (0: OpenCV's sigma for "
                                            "the 3 or 5 kernel); [lo, hi] draws one per image",
                                     .default_value = {0.1, 0.5},
                                     .random = true,
                                     .min = Bound{0},
                                     .max = Bound{10}}};

// Albumentations' kernel: on the grid -L..L (L = max(8, R)) the disk x^2 + y^2 <= R^2 as float32
// ones divided by their count (a float32 division), then cv::GaussianBlur of that array with a
// (3, 3) kernel (R <= 8) or (5, 5), sigma alias_blur, reflect101: computed here with OpenCV itself.
std::vector<float> defocus_kernel(int radius, double alias_blur, int& size) {
  const int L = std::max(8, radius);
  size = 2 * L + 1;
  cv::Mat disk(size, size, CV_32F);
  int count = 0;
  for (int y = -L; y <= L; ++y)
    for (int x = -L; x <= L; ++x) {
      const bool in = x * x + y * y <= radius * radius;
      disk.at<float>(y + L, x + L) = in ? 1.0f : 0.0f;
      count += in;
    }
  // float32 / float32 per entry, as NumPy's in-place division (not a product by a reciprocal)
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) disk.at<float>(y, x) = disk.at<float>(y, x) / static_cast<float>(count);
  const int k = radius <= 8 ? 3 : 5;
  cv::Mat blurred;
  cv::GaussianBlur(disk, blurred, cv::Size(k, k), alias_blur, 0, cv::BORDER_REFLECT_101);
  return std::vector<float>(blurred.begin<float>(), blurred.end<float>());
}

const StageSpec& defocus_spec() {
  static const StageSpec spec{
      .name = "defocus",
      .family = "filter",
      .summary = "Defocus blur: a disk kernel with a softened edge (Albumentations Defocus), correlated directly.",
      .notes = {"As Albumentations' Defocus: the disk x^2 + y^2 <= radius^2 on a grid of at least 17 x 17, "
                "normalised in float32 and blurred by cv::GaussianBlur (3 x 3 up to radius 8, else 5 x 5, sigma "
                "alias_blur), then applied like cv::filter2D (BORDER_REFLECT_101) to every channel, alpha too. "
                "Defaults (radius 3 to 10, alias_blur 0.1 to 0.5, p 0.5) are Albumentations'.",
                "cv::filter2D correlates kernels of 130 entries or more through a DFT, whose rounding is not a "
                "direct sum's; here the result is the direct sum of the taps in binary32 (fused multiply-adds, "
                "row-major), which differs from OpenCV's by a level in a few 8-bit values "
                "(docs/stages/filter.md). Float results are clamped to [0, 1] as in Albumentations 2.x."},
      .params = {kRadius, kAliasBlur},
      .default_p = 0.5,
      .tolerance = {.reason = "the same taps and binary32 fused multiply-adds in the same order on every backend"},
      .example = {{"stage", "defocus"}, {"radius", {3, 10}}, {"alias_blur", {0.1, 0.5}}, {"p", 0.5}},
      .cases = {R"({"radius": 3})", R"({"radius": [1, 4], "alias_blur": [0, 1]})"},
      .no_identity = "every radius of 1 or more spreads a pixel over its neighbours",
      .bench = {R"({})", R"({"radius": 10, "alias_blur": 0.3})"},
      .arithmetic = R"md(
Albumentations' **Defocus** (default `p` 0.5): a softened disk correlated with the image by the
[filter2d engine](../arithmetic.md#filter2d-engine).

- **Draws**: `radius` `R` (each integer of the range alike; default `[3, 10]`), then `alias_blur`
  (default `[0.1, 0.5]`). The manifest records both and the kernel's size.
- **Kernel** (host): `L = max(8, R)`; on the grid `-L..L` the disk `x^2 + y^2 <= R^2` as float32
  ones, each divided by their count (a binary32 division); then `cv::GaussianBlur` of that
  `(2L+1) x (2L+1)` array with a `(3, 3)` kernel when `R <= 8`, else `(5, 5)`, sigma `alias_blur`
  (0: OpenCV's sigma for the size), reflect101, called on the host: the kernel Albumentations builds.
  When the disk reaches the grid's edge (`R >= 8`, `L = R`) the blur reflects its rim back in and
  the kernel's sum moves off 1, as Albumentations' does.
- **Sum**: the engine's, over the kernel's non-zero entries in row-major order: `acc = fma(v, w, acc)`
  from 0 in binary32, reflect101 border; 8/16-bit `sat(rne(acc))`, float `clamp01(acc)`. Every
  channel, alpha included.
- **OpenCV's DFT**: the kernel has at least 17 x 17 = 289 entries, where `cv::filter2D` (which
  Albumentations calls) correlates through a DFT; its result is the same sum with other roundings,
  so a few 8-bit values land on the other side of a half. This stage defines the result as the
  direct sum above, on every backend.
- **Checked** (`tests/stages/test_defocus.cpp`): `EqualsTheDirectFusedSum` (the correlation written
  out with `fmaf` loops: 0 differing values, every type), `IsWithinALevelOfCvFilter2D` (8-bit
  photographs: differing values counted, at most 1), `KernelIsAlbumentationsDisk`,
  `DrawsAreAlbumentations` (chi-square of the radius, Kolmogorov-Smirnov of alias_blur, the gate).
)md",
      .imports = {{.name = "Defocus",
                   .how = "radius (a number r is [1, r]), alias_blur (a number s is [0, s])",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "defocus"}};
                     const auto [lo, hi] = t.limit("radius", {3, 10}, false, 1);
                     s["radius"] = ispan(lo, hi);
                     const auto [a, b] = t.limit("alias_blur", {0.1, 0.5}, false);
                     s["alias_blur"] = span(a, b);
                     return s;
                   },
                   .python = {{"Defocus", "radius alias_blur always_apply p", "radius alias_blur p", 0.5}}}},
      .counterpart = {.call = "cv::filter2D",
                      .how = "the same kernel (built again from the resolved radius and alias_blur), BORDER_REFLECT_101 "
                             "(a DFT at these sizes)",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        int size = 0;
                        const auto w = defocus_kernel(m.at("radius").get<int>(), m.at("alias_blur").get<double>(), size);
                        cv::Mat kernel = filter2d_kernel_mat(size, w);
                        return [&dst, src, kernel] {
                          cv::filter2D(src, dst, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
                        };
                      }},
  };
  return spec;
}

std::vector<float> kernel_of(int radius, double alias_blur) {
  int size = 0;
  return defocus_kernel(radius, alias_blur, size);
}

class DefocusOp final : public Op {
 public:
  DefocusOp(const Shape& s, int radius, double alias_blur)
      : Op(s, s),
        radius_(radius),
        alias_blur_(alias_blur),
        filter_(2 * std::max(8, radius) + 1, kernel_of(radius, alias_blur), true) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override { filter_.run(ctx, in, out); }

  nlohmann::json params() const override {
    return {{kRadius.name, radius_}, {kAliasBlur.name, alias_blur_}, {"kernel_size", filter_.size()}};
  }

 private:
  int radius_;
  double alias_blur_;
  Filter2D filter_;
};

class Defocus final : public Stage {
 public:
  explicit Defocus(const StageConfig& c) : radius_(c.get(kRadius)), alias_blur_(c.get(kAliasBlur)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int r = static_cast<int>(radius_.sample(d));
    const double s = alias_blur_.sample(d);
    return std::make_unique<DefocusOp>(in, r, s);
  }

 private:
  IntegerParam radius_;
  NumberParam alias_blur_;
};

}  // namespace
}  // namespace defocus_impl

StageType defocus_stage() { return stage_type<defocus_impl::Defocus>(&defocus_impl::defocus_spec); }

}  // namespace aug
