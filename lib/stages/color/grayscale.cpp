// grayscale: torchvision's rgb_to_grayscale (Grayscale / RandomGrayscale), keeping the channel count.
#include <functional>

#include <opencv2/imgproc.hpp>

#include "kernels/color/grayscale.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace grayscale_impl {
namespace {

enum class Weights { Torchvision, Opencv };
const Words<Weights> kWeightWords{{{Weights::Torchvision, "torchvision"}, {Weights::Opencv, "opencv"}}};
const Choice<Weights> kMethod{kWeightWords,
                              {},
                              Weights::Torchvision,
                              {.name = "method",
                               .doc = "torchvision (rgb_to_grayscale's binary32 luma, truncated) or opencv "
                                      "(cv::cvtColor RGB2GRAY, Albumentations' ToGray)"}};

const StageSpec& grayscale_spec() {
  static const StageSpec spec{
      .name = "grayscale",
      .family = "color",
      .summary = "Replace R, G and B by the luma 0.2989 R + 0.587 G + 0.114 B; the channel count is kept.",
      .notes = {"As torchvision's rgb_to_grayscale with num_output_channels equal to the input's colour channels "
                "(Grayscale(3), RandomGrayscale): l = (R * 0.2989f + G * 0.587f) + B * 0.114f in binary32, products "
                "and sums rounded one by one in this order, then truncated toward zero for 8- and 16-bit images "
                "(torch's float-to-integer cast). Every colour channel gets l; alpha is left alone; a gray image "
                "is unchanged.",
                "torch's CPU kernel for add(alpha=) may fuse the multiply-add on FMA hardware; this stage never "
                "fuses, so a value whose luma lies within one binary32 rounding of an integer can differ by 1 "
                "from such a torch build.",
                "torchvision's RandomGrayscale defaults to p = 0.1 and Grayscale always applies; here p defaults "
                "to 1.",
                "method opencv gives cv::cvtColor(RGB2GRAY)'s values, as Albumentations' ToGray (its default "
                "weighted_average method, and 1.x's only one): 8- and 16-bit images OpenCV's fixed point (R 9798, "
                "G 19235, B 3735, rounded, shifted by 15), equal to cv::cvtColor to the bit; float images B 0.114 + "
                "G 0.587 + R 0.299 in binary32."},
      .params = {kMethod},
      .tolerance = {.reason = "the same binary32 operations in the same order, without FMA, on every backend"},
      .example = {{"stage", "grayscale"}},
      .cases = {R"({})", R"({"method": "opencv"})"},
      .no_identity = "every colour image with two different channel values changes",
      .bench = {R"({})", R"({"method": "opencv"})"},
      .arithmetic = R"md(
torchvision v2's colour functionals (`torchvision.transforms.v2.functional`), with torch's float32
arithmetic written out as individually rounded binary32 operations (no FMA). Alpha is copied; the colour channels are channels 0-2 (RGB order) or channel 0 of a gray image.

`kernels/color/grayscale.*`: `l = ((float)R * 0.2989f + (float)G * 0.587f) + (float)B *
0.114f` (each product rounded, then the two sums in this order); integer images `out = (T)l`, truncated
toward zero (torch's float-to-integer cast; `l <= 0.9999 max`, so no saturation); float images
`out = l`. Every colour channel gets `l` (torchvision's `num_output_channels` = 3); a gray image is
copied. The CPU backend runs the same operations in `grayscale_cpu.cpp` (8-bit RGB: sixteen pixels
at a time, bytes split by shuffles, eight binary32 lanes, truncating conversion). torch's CPU `add_(.., alpha=)` may fuse `l + alpha * g` into an FMA on AVX2 builds; where an
exact luma lies within one binary32 rounding of an integer such a build can truncate 1 lower or
higher than here. Otherwise equal to torchvision for uint8.

**method opencv** (Albumentations' ToGray, weighted_average): `cv::cvtColor(RGB2GRAY)`'s values,
8- and 16-bit `l = (R 9798 + G 19235 + B 3735 + 16384) >> 15` (OpenCV's 15-bit fixed point; the CPU
backend calls `cv::cvtColor` for them), float `l = (B 0.114f + G 0.587f) + R 0.299f` in binary32.
Every colour channel gets `l`, alpha is copied.
)md",
      .imports = {
          {.name = "ToGray",
           .how = "method opencv (cv::cvtColor's weights, the default weighted_average method); other methods "
                  "are refused",
           .convert = [](const TransformReader& t) {
            if (t.has("num_output_channels") && t.saved().at("num_output_channels") != 3)
              t.fail("num_output_channels other than 3 has no stage equivalent (grayscale keeps the channel count)");
            if (t.has("method") && t.saved().at("method") != "weighted_average")
              t.fail("method " + t.saved().at("method").dump() +
                     " has no stage equivalent (grayscale reproduces weighted_average, cv::cvtColor's weights)");
            return ojson{{"stage", "grayscale"}, {"method", "opencv"}};
          },
           .python = {{"ToGray", "always_apply p", "num_output_channels method p", 0.5}}}},
      .counterpart = {.call = "cv::cvtColor RGB2GRAY, then GRAY2RGB",
                      .how = "RGB and RGBA images (a gray image has nothing to convert)",
                      .make = [](const nlohmann::json&, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const int cn = src.channels();
                        if (cn < 3) return {};
                        return [&dst, src, cn] {
                          cv::Mat gray;
                          cv::cvtColor(src, gray, cn == 4 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGB2GRAY);
                          cv::cvtColor(gray, dst, cv::COLOR_GRAY2RGB);
                        };
                      }},
  };
  return spec;
}

class GrayscaleOp final : public Op {
 public:
  GrayscaleOp(const Shape& s, bool opencv) : Op(s, s), opencv_(opencv) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (in.shape.channels == 1) return copy_image(ctx, in, out);
    if (opencv_ && ctx.cpu() && in.shape.dtype != DType::F32) {
      // cv::cvtColor computes the same fixed point (the catalog's parity tests hold the two equal).
      const cv::Mat src = as_mat(in);
      cv::Mat gray;
      cv::cvtColor(src, gray, in.shape.channels == 4 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGB2GRAY);
      cv::Mat dst = as_mat(out);
      if (in.shape.channels == 3) {
        cv::cvtColor(gray, dst, cv::COLOR_GRAY2RGB);
      } else {
        const cv::Mat from[] = {gray, src};
        const int pairs[] = {0, 0, 0, 1, 0, 2, 4, 3};  // gray into R, G, B; the source's alpha (its channel 3)
        cv::mixChannels(from, 2, &dst, 1, pairs, 4);
      }
      return;
    }
    with_views(in, out, [&](auto src, auto dst) { k::grayscale(src, dst, ctx.exec(), opencv_); });
  }
  nlohmann::json params() const override {
    return opencv_ ? nlohmann::json{{kMethod.name, "opencv"}} : nlohmann::json::object();
  }

 private:
  bool opencv_;
};

class Grayscale final : public Stage {
 public:
  explicit Grayscale(const StageConfig& c) : opencv_(c.get(kMethod).options[0] == Weights::Opencv) {}
  std::unique_ptr<Op> resolve(Draws&, const Shape& in) const override {
    return std::make_unique<GrayscaleOp>(in, opencv_);
  }

 private:
  bool opencv_;
};

}  // namespace
}  // namespace grayscale_impl

StageType grayscale_stage() { return stage_type<grayscale_impl::Grayscale>(&grayscale_impl::grayscale_spec); }

}  // namespace aug
