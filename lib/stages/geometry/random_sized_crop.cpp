// random_sized_crop: Albumentations' RandomSizedCrop (a crop whose height is drawn from a range,
// its width the height times a ratio, placed at random, then resized to a fixed size).
#include <algorithm>
#include <array>
#include <functional>

#include <opencv2/imgproc.hpp>

#include "lib/stages/engines/opencv_words.hpp"
#include "lib/stages/engines/resample.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace random_sized_crop_impl {
namespace {

const Param<IntPair> kMinMaxHeight{{.name = "min_max_height",
                                    .doc = "range of the crop's height in pixels, [lo, hi] inclusive (one integer: "
                                           "a fixed height)",
                                    .min = Bound{1},
                                    .max = Bound{65535},
                                    .ordered = true,
                                    .elements = "[lo, hi]"}};
const Param<IntPair> kSize{{.name = "size",
                            .doc = "output size; one integer means a square (Albumentations' size is (height, "
                                   "width), its 1.x height and width)",
                            .min = Bound{1},
                            .max = Bound{65535},
                            .elements = "[width, height]"}};
const Param<NumberParam> kW2hRatio{{.name = "w2h_ratio",
                                    .doc = "the crop's width over its height: width = int(height * w2h_ratio)",
                                    .default_value = 1.0,
                                    .min = Bound{0, true},
                                    .max = Bound{100}}};
const Choice<Interp> kInterpolation = resample_interpolation_param();

const StageSpec& random_sized_crop_spec() {
  static const StageSpec spec{
      .name = "random_sized_crop",
      .family = "geometry",
      .summary = "Crop a window whose height is drawn from min_max_height and whose width is that height times "
                 "w2h_ratio, at a random place, then resize it to a fixed size (Albumentations RandomSizedCrop).",
      .notes = {"As Albumentations (1.x and 2.x): the crop height is an integer drawn uniformly from min_max_height "
                "(inclusive), the width int(height * w2h_ratio); the window's corner is int((H - h + 1) * u) and "
                "int((W - w + 1) * v) for two uniform draws u, v in [0, 1). A window larger than the image is "
                "clipped to it, as Albumentations 2.x does (1.x fails there); a width that would be 0 is 1.",
                "Then the window is resized exactly as the resize stage does: 8-bit bilinear equals "
                "cv::resize(INTER_LINEAR_EXACT) of the window, nearest cv::resize(INTER_NEAREST)."},
      .params = {kMinMaxHeight, kSize, kW2hRatio, kInterpolation},
      .tolerance = {.f32 = 0, .reason = "as resize"},
      .example = {{"stage", "random_sized_crop"}, {"min_max_height", {160, 240}}, {"size", {224, 224}}},
      .cases = {R"({"min_max_height": [3, 7], "size": [9, 7], "interpolation": "bilinear"})",
                R"({"min_max_height": [5, 20], "size": [12, 12], "w2h_ratio": 1.5, "interpolation": "bicubic"})",
                R"({"min_max_height": [8, 8], "size": [6, 11], "w2h_ratio": 0.5, "interpolation": "area"})",
                R"({"min_max_height": [1, 60], "size": [10, 10], "interpolation": "nearest"})"},
      .no_identity = "the output has a fixed size",
      .bench = {R"({"min_max_height": [540, 1080], "size": [512, 512]})",
                R"({"min_max_height": [500, 720], "size": [1920, 1080], "interpolation": "nearest"})"},
      .arithmetic = R"md(
Albumentations' RandomSizedCrop: the window is drawn on the host, then resampled exactly as
[resize](#resize) does, the window's offset added to every source index (so 8-bit bilinear equals
`cv::resize(INTER_LINEAR_EXACT)` of the cropped window, nearest `cv::resize(INTER_NEAREST)`).

- `h = integer(lo, hi)` from `min_max_height` (both ends included), `w = int(h * w2h_ratio)`
  (truncated), then `h = min(h, H)`, `w = clamp(w, 1, W)` (Albumentations 2.x clips the crop to the
  image the same way; 1.x raises instead).
- `u = uniform[0, 1)`, `v = uniform[0, 1)`; `y = int((H - h + 1) * u)`, `x = int((W - w + 1) * v)`
  (Albumentations' `get_crop_coords` with `h_start`, `w_start`): every position is as likely.
- The window `[x, x + w) x [y, y + h)` is resized to `size`; labels move with the crop and the scale.
- Albumentations 2.x's `area_for_downscale` (INTER_AREA when the window shrinks) is not a parameter:
  give `interpolation: area` instead.
)md",
      .imports = {
          {.name = "RandomSizedCrop",
           .how = "min_max_height; height, width (1.x) or size (2.x); w2h_ratio; interpolation",
           .convert = [](const TransformReader& t) {
            if (!t.has("min_max_height")) t.fail("needs \"min_max_height\"");
            const auto [lo, hi] = t.limit("min_max_height", {0, 0}, false);
            if (t.has("area_for_downscale"))
              t.fail("area_for_downscale has no stage equivalent; use interpolation cv2.INTER_AREA instead");
            ojson s{{"stage", "random_sized_crop"}};
            s["min_max_height"] = ojson::array({static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)});
            s["size"] = t.size();
            s["w2h_ratio"] = t.number("w2h_ratio", 1.0);
            s["interpolation"] = t.interpolation();
            return s;
          },
           .python = {
               {"RandomSizedCrop",
                "min_max_height height width w2h_ratio interpolation always_apply p",
                "min_max_height size w2h_ratio interpolation mask_interpolation area_for_downscale p",
                1.0}}}},
      .counterpart = {.call = "cv::resize",
                      .how = "of the resolved crop, to the size, in the interpolation (8-bit bilinear: INTER_LINEAR_EXACT)",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const cv::Size size(m.at("width").get<int>(), m.at("height").get<int>());
                        const int interp = cv_resize_interpolation(m.at("interpolation").get<std::string>());
                        cv::Rect roi(0, 0, src.cols, src.rows);
                        if (m.contains("crop")) {
                          const auto c = m.at("crop").get<std::array<int, 4>>();
                          roi = cv::Rect(c[0], c[1], c[2], c[3]);
                        }
                        return [&dst, src, roi, size, interp] { cv::resize(src(roi), dst, size, 0, 0, interp); };
                      }},
  };
  return spec;
}

class RandomSizedCrop final : public Stage {
 public:
  explicit RandomSizedCrop(const StageConfig& c)
      : heights_(c.get(kMinMaxHeight)),
        size_(c.get(kSize)),
        ratio_(c.get(kW2hRatio).lo),
        interp_(c.get(kInterpolation)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const std::int64_t drawn = d.integer(heights_[0], heights_[1]);
    const auto wide = static_cast<std::int64_t>(static_cast<double>(drawn) * ratio_);
    Window w;
    w.height = static_cast<int>(std::min<std::int64_t>(drawn, in.height));
    w.width = static_cast<int>(std::clamp<std::int64_t>(wide, 1, in.width));
    const double u = d.uniform(), v = d.uniform();
    w.y = static_cast<int>((in.height - w.height + 1) * u);
    w.x = static_cast<int>((in.width - w.width + 1) * v);
    const Interp interp = interp_.sample(d);
    return make_resample_op(in, w, static_cast<int>(size_[0]), static_cast<int>(size_[1]), interp);
  }

 private:
  IntPair heights_, size_;
  double ratio_;
  Drawn<Interp> interp_;
};

}  // namespace
}  // namespace random_sized_crop_impl

StageType random_sized_crop_stage() {
  return stage_type<random_sized_crop_impl::RandomSizedCrop>(&random_sized_crop_impl::random_sized_crop_spec);
}

}  // namespace aug
