// random_resized_crop: torchvision's RandomResizedCrop.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include <opencv2/imgproc.hpp>

#include "lib/stages/engines/opencv_words.hpp"
#include "lib/stages/engines/resample.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace random_resized_crop_impl {
namespace {

const Param<IntPair> kSize{{.name = "size",
                            .doc = "output size; one integer means a square",
                            .min = Bound{1},
                            .max = Bound{65535},
                            .elements = "[width, height]"}};
const Param<NumberPair> kScale{{.name = "scale",
                                .doc = "range of the window's area as a fraction of the image's",
                                .default_value = {0.08, 1.0},
                                .min = Bound{0, true},
                                .max = Bound{1},
                                .ordered = true,
                                .elements = "[lo, hi]"}};
const Param<NumberPair> kRatio{{.name = "ratio",
                                .doc = "range of the window's aspect ratio (width / height)",
                                .default_value = {3.0 / 4.0, 4.0 / 3.0},
                                .min = Bound{0, true},
                                .max = Bound{100},
                                .ordered = true,
                                .elements = "[lo, hi]"}};
const Choice<Interp> kInterpolation = resample_interpolation_param();

const StageSpec& random_resized_crop_spec() {
  static const StageSpec spec{
      .name = "random_resized_crop",
      .family = "geometry",
      .summary = "Crop a random area and aspect ratio, then resize it to a fixed size (torchvision RandomResizedCrop).",
      .notes = {"Up to 10 tries draw an area fraction uniformly from scale and an aspect ratio log-uniformly from "
                "ratio, rounding the window half to even; a window that fits is placed uniformly. Otherwise the "
                "largest centred window within ratio is used. Then the window is resized as the resize stage does."},
      .params = {kSize, kScale, kRatio, kInterpolation},
      .tolerance = {.f32 = 0, .reason = "as resize"},
      .example = {{"stage", "random_resized_crop"}, {"size", {224, 224}}, {"scale", {0.08, 1.0}}},
      .cases = {R"({"size": [9, 7], "interpolation": "bilinear"})",
                R"({"size": [12, 12], "interpolation": "bicubic"})",
                R"({"size": [6, 11], "interpolation": "area"})"},
      .no_identity = "the output has a fixed size",
      .bench = {R"({"size": [224, 224]})"},
      .arithmetic = R"md(
torchvision's RandomResizedCrop: the window is chosen on the host, then resampled exactly as
[resize](#resize) does, the window's offset added to every source index (so 8-bit bilinear equals
`cv::resize(INTER_LINEAR_EXACT)` of the cropped window).

- Up to 10 attempts: `target = W*H * uniform(scale)`, `aspect = exp(uniform(log r0, log r1))`,
  `w = rne(sqrt(target * aspect))`, `h = rne(sqrt(target / aspect))` (Python's `round`, half to even);
  when `0 < w <= W` and `0 < h <= H`: `y = integer(0, H - h)`, then `x = integer(0, W - w)`.
- Fallback: `W/H < r0`: `h = clamp(rne(W / r0), 1, H)`; `W/H > r1`: `w = clamp(rne(H * r1), 1, W)`;
  otherwise the whole image; centred at `((W - w)/2, (H - h)/2)`, integer division.
- The interpolation is drawn after the window; the backends only see the resulting tables.
)md",
      .imports = {
          {.name = "RandomResizedCrop",
           .how = "height, width (or size), scale, ratio, interpolation",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "random_resized_crop"}};
            s["size"] = t.size();
            const auto [slo, shi] = t.limit("scale", {0.08, 1.0}, false);
            const auto [rlo, rhi] = t.limit("ratio", {0.75, 4.0 / 3.0}, false);
            s["scale"] = ojson::array({slo, shi});
            s["ratio"] = ojson::array({rlo, rhi});
            s["interpolation"] = t.interpolation();
            return s;
          },
           .python = {
               {"RandomResizedCrop",
                "height width scale ratio interpolation always_apply p",
                "size scale ratio interpolation mask_interpolation area_for_downscale p",
                1.0}}}},
      .counterpart = {.call = "cv::resize",
                      .how = "of the resolved crop, to the size, in the interpolation (8-bit bilinear: INTER_LINEAR_EXACT)",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const cv::Size size(m.at("width").get<int>(), m.at("height").get<int>());
                        const int interp = cv_resize_interpolation(m.at("interpolation").get<std::string>());
                        const auto c = m.at("crop").get<std::array<int, 4>>();
                        const cv::Rect roi(c[0], c[1], c[2], c[3]);
                        return [&dst, src, roi, size, interp] { cv::resize(src(roi), dst, size, 0, 0, interp); };
                      }},
  };
  return spec;
}

class RandomResizedCrop final : public Stage {
 public:
  explicit RandomResizedCrop(const StageConfig& c)
      : size_(c.get(kSize)), scale_(c.get(kScale)), ratio_(c.get(kRatio)), interp_(c.get(kInterpolation)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const Window w = window(d, in.width, in.height);
    const Interp interp = interp_.sample(d);
    return make_resample_op(in, w, static_cast<int>(size_[0]), static_cast<int>(size_[1]), interp);
  }

 private:
  Window window(Draws& d, int width, int height) const {
    const double area = static_cast<double>(width) * height;
    const double log_lo = std::log(ratio_[0]), log_hi = std::log(ratio_[1]);
    for (int attempt = 0; attempt < 10; ++attempt) {
      const double target = area * d.uniform(scale_[0], scale_[1]);
      const double aspect = std::exp(d.uniform(log_lo, log_hi));
      const int w = static_cast<int>(std::nearbyint(std::sqrt(target * aspect)));
      const int h = static_cast<int>(std::nearbyint(std::sqrt(target / aspect)));
      if (w > 0 && w <= width && h > 0 && h <= height) {
        const int y = static_cast<int>(d.integer(0, height - h));
        const int x = static_cast<int>(d.integer(0, width - w));
        return {x, y, w, h};
      }
    }
    // Fallback: the largest centred window whose ratio is within range.
    const double in_ratio = static_cast<double>(width) / height;
    int w = width, h = height;
    if (in_ratio < ratio_[0]) {
      h = std::clamp(static_cast<int>(std::nearbyint(w / ratio_[0])), 1, height);
    } else if (in_ratio > ratio_[1]) {
      w = std::clamp(static_cast<int>(std::nearbyint(h * ratio_[1])), 1, width);
    }
    return {(width - w) / 2, (height - h) / 2, w, h};
  }

  IntPair size_;
  NumberPair scale_, ratio_;
  Drawn<Interp> interp_;
};

}  // namespace
}  // namespace random_resized_crop_impl

StageType random_resized_crop_stage() { return stage_type<random_resized_crop_impl::RandomResizedCrop>(&random_resized_crop_impl::random_resized_crop_spec); }

}  // namespace aug
