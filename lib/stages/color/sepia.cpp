// sepia: Albumentations' ToSepia, the fixed sepia matrix on R, G and B.
#include <functional>

#include <opencv2/core.hpp>

#include "kernels/color/sepia.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace sepia_impl {
namespace {

const StageSpec& sepia_spec() {
  static const StageSpec spec{
      .name = "sepia",
      .family = "color",
      .summary = "Sepia tone: R, G and B through Albumentations' fixed sepia matrix (ToSepia); 8-bit images equal "
                 "cv::transform to the bit.",
      .notes = {"As Albumentations' ToSepia: each of R', G', B' is a fixed weighted sum of R, G and B (rows 0.393 "
                "0.769 0.189, 0.349 0.686 0.168, 0.272 0.534 0.131), saturated at the top of the range. 8-bit images "
                "take OpenCV's fixed-point cv::transform (coefficients in units of 1/1024), 16-bit images the exact "
                "decimal matrix rounded to nearest, float images binary32 sums clamped to [0, 1].",
                "A gray image is returned unchanged, as Albumentations 2.x does (1.x refused it). Alpha is left "
                "alone (Albumentations refuses 4-channel images). Albumentations' default p is 0.5, this stage's "
                "too."},
      .default_p = 0.5,
      .tolerance = {.reason = "integer sums for 8- and 16-bit images; the same binary32 operations in the same order, "
                              "without FMA, for float images"},
      .example = {{"stage", "sepia"}, {"p", 0.5}},
      .cases = {R"({})"},
      .no_identity = "every colour image whose pixels are not black changes (a gray image is unchanged)",
      .bench = {R"({})"},
      .arithmetic = R"md(
Albumentations' **ToSepia** (default `p` 0.5, no parameters), which is `cv2.transform` with this matrix
applied to R, G, B (RGB order, one output row per channel):

```
R' = 0.393 R + 0.769 G + 0.189 B
G' = 0.349 R + 0.686 G + 0.168 B
B' = 0.272 R + 0.534 G + 0.131 B
```

- **8 bits**, as OpenCV's 8-bit `cv::transform` with a 3x3 matrix: each coefficient is rounded to
  a multiple of 1/1024 (`round(binary32(m) * 1024)`: 402 787 194 / 357 702 172 / 279 547 134), and
  `out = min(255, (402 R + 787 G + 194 B + 512) >> 10)` and likewise, in exact 32-bit integers.
  R' and G' saturate for bright pixels (white gives 344 and 307 before saturation); B' is at most
  239. Equal to `cv::transform` to the bit.
- **16 bits**: the decimal coefficients in thousandths, exactly:
  `out = min(65535, (393 R + 769 G + 189 B + 500) / 1000)` (integer division), the exact value of the
  matrix rounded to nearest with halves rounded up. OpenCV's 16-bit `cv::transform` sums binary32
  products and rounds half to even; it can differ by 1 where the exact value lies within its
  rounding error of a half.
- **Float**: `clamp01((0.393f R + 0.769f G) + 0.189f B)`: each product and each sum rounded to
  binary32 in this order, never fused, on every backend; NaN passes through. Albumentations 2.x clips
  float results to [0, 1] the same way (1.x did not clip); `cv::transform` may order or fuse the
  operations differently, within a few units in the last place.
- **Gray** images are copied, as Albumentations 2.x returns them unchanged (1.x raised). **Alpha** is
  copied (Albumentations raises for 4 channels).
- The CPU backend runs `sepia_cpu.cpp`: 8-bit RGB rows 32 pixels at a time with AVX2 (bytes split
  into planes by shuffles, the Q10 sums as 16-bit pair products in 32-bit lanes), other rows and the
  last pixels of a row the kernels' per-pixel formula.
- **Checked** (`tests/stages/test_sepia.cpp`): all 2^24 8-bit colours and the sample photographs
  against `cv::transform` with Albumentations' float64 matrix, 16-bit images against the exact
  rational value, float images against the matrix in double, and the import of ToSepia.
)md",
      .imports = {{.name = "ToSepia",
                   .how = "the same matrix; gray images unchanged (as 2.x)",
                   .convert = [](const TransformReader&) { return ojson{{"stage", "sepia"}}; },
                   .python = {{"ToSepia", "always_apply p", "p", 0.5}}}},
      .counterpart = {.call = "cv::transform",
                      .how = "Albumentations' float64 sepia matrix, RGB images (gray images are copied)",
                      .make = [](const nlohmann::json&, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        if (src.channels() != 3) return {};
                        const cv::Matx33d m(0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131);
                        return [&dst, src, m] { cv::transform(src, dst, m); };
                      }},
  };
  return spec;
}

class SepiaOp final : public Op {
 public:
  explicit SepiaOp(const Shape& s) : Op(s, s) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (in.shape.channels == 1) return copy_image(ctx, in, out);
    with_views(in, out, [&](auto src, auto dst) { k::sepia(src, dst, ctx.exec()); });
  }
  nlohmann::json params() const override { return nlohmann::json::object(); }
};

class Sepia final : public Stage {
 public:
  explicit Sepia(const StageConfig&) {}
  std::unique_ptr<Op> resolve(Draws&, const Shape& in) const override { return std::make_unique<SepiaOp>(in); }
};

}  // namespace
}  // namespace sepia_impl

StageType sepia_stage() { return stage_type<sepia_impl::Sepia>(&sepia_impl::sepia_spec); }

}  // namespace aug
