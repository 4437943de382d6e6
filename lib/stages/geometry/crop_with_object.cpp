// crop_with_object: Albumentations' AtLeastOneBBoxRandomCrop (a fixed-size window placed at random
// where it holds one labelled box, chosen at random, whole).
#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "lib/stages/engines/resample.hpp"
#include "lib/stages/geometry/window_op.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace crop_with_object_impl {
namespace {

const Param<IntPair> kSize{{.name = "size",
                            .doc = "window size; one integer means a square (Albumentations' height and width)",
                            .min = Bound{1},
                            .max = Bound{65535},
                            .elements = "[width, height]"}};
const Param<NumberParam> kErosionFactor{{.name = "erosion_factor",
                                         .doc = "how much of the chosen box may be left out: the window holds at "
                                                "least (1 - erosion_factor) of its width and height; 1: it only "
                                                "has to touch it",
                                         .default_value = 0.0,
                                         .min = Bound{0},
                                         .max = Bound{1}}};

const StageSpec& crop_with_object_spec() {
  static const StageSpec spec{
      .name = "crop_with_object",
      .family = "geometry",
      .summary = "Cut a fixed-size window placed at random where it holds one labelled object, chosen at random, "
                 "whole (Albumentations AtLeastOneBBoxRandomCrop).",
      .notes = {"The object is one of the image's boxes as they stand at this step (moved by the steps before "
                "it), each as likely; the window's corner is then uniform over the places where it holds that box "
                "whole (with erosion_factor 0) and stays inside the image. A box larger than the window cannot be "
                "held whole: the window then lies within the box, as Albumentations does.",
                "Without labels (no --labels, or an image with no boxes) it does what Albumentations does with no "
                "boxes: a window at a uniformly random place, x = int((W - w) * u), y = int((H - h) * v).",
                "An image smaller than the window is a per-file error naming the stage."},
      .params = {kSize, kErosionFactor},
      .reads_labels = true,
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "crop_with_object"}, {"size", {512, 512}}},
      .cases = {R"({"size": [1, 1]})", R"({"size": [3, 2]})", R"({"size": [5, 5], "erosion_factor": 0.5})"},
      .no_identity = "the window has a fixed size; a window of the whole image is one only for images of that size",
      .bench = {R"({"size": [1280, 720]})"},
      .arithmetic = R"md(
Albumentations' AtLeastOneBBoxRandomCrop (2.x, and 1.4.24 on): the window's corner is drawn on the
host from the image's boxes (labels read with `--labels`, in this step's input pixels); the pixels
are cut out unchanged (exact for every type), and masks and labels move with the window.

- Boxes: each object's box (its polygons' bounds where it has none), clipped to the image; empty
  ones are left out. With a `w x h` window on a `W x H` image (larger: a per-file error):
- With boxes: one is chosen, `integer(0, n - 1)`; with `e = erosion_factor`, `ew = (x1 - x0)(1 - e)`
  and `eh` likewise, the corner's range is `[x0 + ew - w, x1 - ew]` (for `e = 1`: `[x0 - w, x1]`),
  each end clipped to `[0, W - w]`; `y` likewise.
- Without boxes (no labels, or none left): `[0, W - w]` and `[0, H - h]`.
- Two uniform draws `u, v` in `[0, 1)`: `x = int(lo_x + (hi_x - lo_x) * u)`, then
  `y = int(lo_y + (hi_y - lo_y) * v)` (Python's `random.uniform`).

With whole-pixel boxes and `e = 0` the window holds the chosen box whole whenever the box fits in it.
)md",
      .imports = {{.name = "AtLeastOneBBoxRandomCrop",
                   .how = "height, width (as size); erosion_factor",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "crop_with_object"}};
                     s["size"] = t.size();
                     s["erosion_factor"] = t.number("erosion_factor", 0.0);
                     return s;
                   },
                   .python = {{"AtLeastOneBBoxRandomCrop", "-", "height width erosion_factor p", 1.0}}}},
      .counterpart = {.call = "cv::Mat::copyTo of the window",
                      .how = "the resolved window",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        cv::Rect roi(0, 0, m.at("width").get<int>(), m.at("height").get<int>());
                        if (m.contains("crop")) {
                          const auto c = m.at("crop").get<std::array<int, 4>>();
                          roi = cv::Rect(c[0], c[1], c[2], c[3]);
                        }
                        return [&dst, src, roi] { src(roi).copyTo(dst); };
                      }},
  };
  return spec;
}

class CropWithObject final : public Stage {
 public:
  explicit CropWithObject(const StageConfig& c) : size_(c.get(kSize)), erosion_(c.get(kErosionFactor).lo) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override { return resolve_seeing(d, in, {}); }

  std::unique_ptr<Op> resolve_seeing(Draws& d, const Shape& in, const DrawInputs& seen) const override {
    const int w = static_cast<int>(size_[0]), h = static_cast<int>(size_[1]);
    if (w > in.width || h > in.height)
      throw InputError("crop_with_object: the window " + std::to_string(w) + "x" + std::to_string(h) +
                       " is larger than the image (" + std::to_string(in.width) + "x" + std::to_string(in.height) + ")");
    const double room_x = in.width - w, room_y = in.height - h;
    double lo_x = 0, hi_x = room_x, lo_y = 0, hi_y = room_y;
    const std::vector<labels::Box> boxes = clipped_object_boxes(seen, in.width, in.height);
    if (!boxes.empty()) {
      const labels::Box& b = boxes[static_cast<std::size_t>(d.integer(0, static_cast<std::int64_t>(boxes.size()) - 1))];
      const double ew = erosion_ < 1 ? b.width() * (1.0 - erosion_) : 0;
      const double eh = erosion_ < 1 ? b.height() * (1.0 - erosion_) : 0;
      lo_x = std::clamp(b.x0 + ew - w, 0.0, room_x), hi_x = std::clamp(b.x1 - ew, 0.0, room_x);
      lo_y = std::clamp(b.y0 + eh - h, 0.0, room_y), hi_y = std::clamp(b.y1 - eh, 0.0, room_y);
    }
    const double u = d.uniform();
    const double v = d.uniform();
    const Window win{static_cast<int>(lo_x + (hi_x - lo_x) * u), static_cast<int>(lo_y + (hi_y - lo_y) * v), w, h};
    return make_resample_op(in, win, w, h, Interp::Nearest);  // a plain cut at scale 1
  }

 private:
  IntPair size_;
  double erosion_;
};

}  // namespace
}  // namespace crop_with_object_impl

StageType crop_with_object_stage() {
  return stage_type<crop_with_object_impl::CropWithObject>(&crop_with_object_impl::crop_with_object_spec);
}

}  // namespace aug
