// bbox_safe_crop: Albumentations' BBoxSafeRandomCrop (a random window that holds every labelled
// box) and, with a size, RandomSizedBBoxSafeCrop (the same window resized to that size).
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/stages/engines/opencv_words.hpp"
#include "lib/stages/engines/resample.hpp"
#include "lib/stages/geometry/window_op.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace bbox_safe_crop_impl {
namespace {

const Param<NumberParam> kErosionRate{{.name = "erosion_rate",
                                       .doc = "with boxes: the union of the boxes loses erosion_rate * its width / 2 "
                                              "on the left and right (height likewise) before the window is drawn "
                                              "around it; without: the window's height is drawn from "
                                              "[int(H * (1 - erosion_rate)), H]",
                                       .default_value = 0.0,
                                       .min = Bound{0},
                                       .max = Bound{1}}};
const Param<IntPair> kSize{{.name = "size",
                            .doc = "resize the window to this size (Albumentations' RandomSizedBBoxSafeCrop; its "
                                   "height and width); absent: the window itself is the output "
                                   "(BBoxSafeRandomCrop); one integer means a square",
                            .optional = true,
                            .min = Bound{1},
                            .max = Bound{65535},
                            .elements = "[width, height]"}};
const Choice<Interp> kInterpolation = resample_interpolation_param();

const StageSpec& bbox_safe_crop_spec() {
  static const StageSpec spec{
      .name = "bbox_safe_crop",
      .family = "geometry",
      .summary = "Crop a random window that holds every labelled box whole, optionally resized to a fixed size "
                 "(Albumentations BBoxSafeRandomCrop, RandomSizedBBoxSafeCrop).",
      .notes = {"The window is drawn as Albumentations 2.x draws it from the image's boxes (as they stand at this "
                "step, moved by the steps before it): the union of the boxes, each side pushed outwards by a "
                "uniform fraction of the room between it and the image's edge. Every box therefore stays whole "
                "(with erosion_rate 0).",
                "Without labels (no --labels, or an image with no boxes) it does what Albumentations does with no "
                "boxes: a window of height drawn from [int(H * (1 - erosion_rate)), H] and width int(h * W / H) at "
                "a uniformly random place; with erosion_rate 0 that is the whole image (then resized when size is "
                "given).",
                "The window is resized exactly as random_sized_crop does: 8-bit bilinear equals "
                "cv::resize(INTER_LINEAR_EXACT) of the window, nearest cv::resize(INTER_NEAREST)."},
      .params = {kErosionRate, kSize, kInterpolation},
      .reads_labels = true,
      .tolerance = {.f32 = 0, .reason = "as resize"},
      .example = {{"stage", "bbox_safe_crop"}, {"size", {640, 640}}},
      .cases = {R"({"erosion_rate": 0.5})",
                R"({"erosion_rate": 0.3, "size": [9, 7], "interpolation": "bilinear"})",
                R"({"erosion_rate": 1, "size": [12, 12], "interpolation": "bicubic"})",
                R"({"erosion_rate": 0.2, "size": [6, 11], "interpolation": "area"})",
                R"({"size": [10, 10], "interpolation": "nearest"})"},
      .identity = "{}",
      .bench = {R"({"erosion_rate": 0.5})", R"({"erosion_rate": 0.5, "size": [640, 640]})"},
      .arithmetic = R"md(
Albumentations 2.x's BBoxSafeRandomCrop, and with `size` its RandomSizedBBoxSafeCrop. The window is
drawn on the host from the image's boxes (labels read with `--labels`, in this step's input pixels);
then it is cut out (no `size`) or resampled exactly as [resize](#resize) does, the window's offset
added to every source index (8-bit bilinear equals `cv::resize(INTER_LINEAR_EXACT)` of the window).
Masks and labels move with the window and the scale.

**With boxes.** Each object's box (or its polygons' bounds), clipped to the image; empty ones are
left out. Normalised by the image size (`x / W`, `y / H`):

- The union `[x0, x1] x [y0, y1]` of all boxes. With more than one box and `erosion_rate = e > 0`,
  each side moves inwards by `e * (x1 - x0) / 2` (`e * (y1 - y0) / 2` vertically); a union that
  becomes empty (narrower than 1e-6), or `e = 1`, falls back to the no-box draw below. A single box
  is used as it is.
- Clipped: `x0, y0` to `[0, 1]`, `x1` to `[x0, 1]`, `y1` to `[y0, 1]`.
- Four uniform draws `u1..u4` in `[0, 1)`, in this order: left `int(x0 * u1 * W)`, top
  `int(y0 * u2 * H)`, right `int((x1 + (1 - x1) * u3) * W)`, bottom `int((y1 + (1 - y1) * u4) * H)`.
  The right and bottom edges are never less than the union's own edge in pixels rounded up (in
  Albumentations the truncation can drop the last fraction of a pixel of a box when `u3` is close
  to 0; here every box stays whole).

**Without boxes** (no labels, or none left): `h = int(H * (1 - e))`; when `h < H` the height is
`integer(h, H)` (both ends included; at least 1), else `H`; the width `int(height * W / H)` (at least
1); then two uniform draws `u, v` place it at `y = int((H - height + 1) * u)`,
`x = int((W - width + 1) * v)`. With the default `erosion_rate` 0 that is the whole image.

The interpolation (when a list) is drawn after the window. Albumentations 1.x drew the window with
boxes another way (its union eroded per box, the corner as a fraction of the room left); this stage
draws as 2.x does for either.
)md",
      .imports = {
          {.name = "BBoxSafeRandomCrop",
           .how = "erosion_rate; the window drawn as Albumentations 2.x draws it",
           .convert = [](const TransformReader& t) {
             ojson s{{"stage", "bbox_safe_crop"}};
             s["erosion_rate"] = t.number("erosion_rate", 0.0);
             return s;
           },
           .python = {{"BBoxSafeRandomCrop", "erosion_rate always_apply p", "erosion_rate p", 1.0}}},
          {.name = "RandomSizedBBoxSafeCrop",
           .how = "height, width (as size); erosion_rate; interpolation; the window drawn as Albumentations 2.x "
                  "draws it; masks always nearest",
           .convert = [](const TransformReader& t) {
             if (t.has("mask_interpolation") && t.number("mask_interpolation", 0) != 0)
               t.note("mask_interpolation: masks are resampled nearest");
             ojson s{{"stage", "bbox_safe_crop"}};
             s["erosion_rate"] = t.number("erosion_rate", 0.0);
             s["size"] = t.size();
             s["interpolation"] = t.interpolation();
             return s;
           },
           .python = {{"RandomSizedBBoxSafeCrop",
                        "height width erosion_rate interpolation always_apply p",
                        "height width erosion_rate interpolation mask_interpolation p",
                        1.0}}}},
      .counterpart = {.call = "cv::resize",
                      .how = "of the resolved window, to the output size, in the interpolation (8-bit bilinear: "
                             "INTER_LINEAR_EXACT; without size nearest at the window's own size, a copy)",
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

class BBoxSafeCrop final : public Stage {
 public:
  explicit BBoxSafeCrop(const StageConfig& c) : erosion_(c.get(kErosionRate).lo), interp_(c.get(kInterpolation)) {
    if (c.has(kSize)) size_ = c.get(kSize);
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override { return resolve_seeing(d, in, {}); }

  std::unique_ptr<Op> resolve_seeing(Draws& d, const Shape& in, const DrawInputs& seen) const override {
    const std::vector<labels::Box> boxes = clipped_object_boxes(seen, in.width, in.height);
    const std::optional<labels::Box> u = union_of(boxes, in);
    const Window w = u ? around(d, *u, in) : without_boxes(d, in);
    if (!size_) return make_resample_op(in, w, w.width, w.height, Interp::Nearest);  // a plain cut at scale 1
    const Interp interp = interp_.sample(d);
    return make_resample_op(in, w, static_cast<int>((*size_)[0]), static_cast<int>((*size_)[1]), interp);
  }

 private:
  // The union of the boxes, normalised and eroded as Albumentations 2.x's union_of_bboxes; nothing
  // where the no-box draw applies.
  std::optional<labels::Box> union_of(const std::vector<labels::Box>& boxes, const Shape& in) const {
    if (boxes.empty() || erosion_ == 1) return std::nullopt;
    const double W = in.width, H = in.height;
    labels::Box u{boxes[0].x0 / W, boxes[0].y0 / H, boxes[0].x1 / W, boxes[0].y1 / H};
    if (boxes.size() == 1) return u;
    for (const labels::Box& b : boxes) {
      u.x0 = std::min(u.x0, b.x0 / W), u.y0 = std::min(u.y0, b.y0 / H);
      u.x1 = std::max(u.x1, b.x1 / W), u.y1 = std::max(u.y1, b.y1 / H);
    }
    const double ex = (u.x1 - u.x0) * erosion_ * 0.5, ey = (u.y1 - u.y0) * erosion_ * 0.5;
    u.x0 += ex, u.y0 += ey, u.x1 -= ex, u.y1 -= ey;
    if (std::abs(u.x1 - u.x0) < 1e-6 || std::abs(u.y1 - u.y0) < 1e-6) return std::nullopt;
    return u;
  }

  static Window around(Draws& d, labels::Box u, const Shape& in) {
    const int W = in.width, H = in.height;
    u.x0 = std::clamp(u.x0, 0.0, 1.0), u.y0 = std::clamp(u.y0, 0.0, 1.0);
    u.x1 = std::clamp(u.x1, u.x0, 1.0), u.y1 = std::clamp(u.y1, u.y0, 1.0);
    const double u1 = d.uniform(), u2 = d.uniform(), u3 = d.uniform(), u4 = d.uniform();
    const int left = static_cast<int>(u.x0 * u1 * W), top = static_cast<int>(u.y0 * u2 * H);
    int right = static_cast<int>((u.x1 + (1 - u.x1) * u3) * W);
    int bottom = static_cast<int>((u.y1 + (1 - u.y1) * u4) * H);
    // Never short of the union's own edge (the truncation above can be, by a rounding or a fraction).
    right = std::clamp(std::max(right, static_cast<int>(std::ceil(u.x1 * W - 1e-9))), left + 1, W);
    bottom = std::clamp(std::max(bottom, static_cast<int>(std::ceil(u.y1 * H - 1e-9))), top + 1, H);
    return Window{left, top, right - left, bottom - top};
  }

  Window without_boxes(Draws& d, const Shape& in) const {
    const int W = in.width, H = in.height;
    const int eroded = static_cast<int>(H * (1.0 - erosion_));
    int h = eroded >= H ? H : static_cast<int>(d.integer(eroded, H));
    h = std::max(h, 1);
    const int w = std::clamp(static_cast<int>(static_cast<double>(h) * W / H), 1, W);
    const double hs = d.uniform(), ws = d.uniform();
    return Window{static_cast<int>((W - w + 1) * ws), static_cast<int>((H - h + 1) * hs), w, h};
  }

  double erosion_;
  std::optional<IntPair> size_;
  Drawn<Interp> interp_;
};

}  // namespace
}  // namespace bbox_safe_crop_impl

StageType bbox_safe_crop_stage() {
  return stage_type<bbox_safe_crop_impl::BBoxSafeCrop>(&bbox_safe_crop_impl::bbox_safe_crop_spec);
}

}  // namespace aug
