// crop_near_bbox: Albumentations' RandomCropNearBBox (the box of one of the image's objects, each side
// moved by a drawn shift, cut out without resizing; the output size varies).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "kernels/geometry/crop.hpp"
#include "lib/stages/geometry/window_op.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace crop_near_bbox_impl {
namespace {

const Param<NumberPair> kMaxPartShift{{.name = "max_part_shift",
                                       .doc = "largest shift of the box's sides, as fractions of its [height, width] "
                                              "(Albumentations 2.x's order: index 0 is the height's); one number "
                                              "means both",
                                       .default_value = {0.0, 0.3},
                                       .min = Bound{0},
                                       .max = Bound{1},
                                       .elements = "[height fraction, width fraction]"}};
const Param<std::vector<std::int64_t>> kClasses{
    {.name = "classes",
     .doc = "object categories that may be the reference box (default: every object)",
     .optional = true,
     .min = Bound{0},
     .max = Bound{2147483647}}};

const StageSpec& crop_near_bbox_spec() {
  static const StageSpec spec{
      .name = "crop_near_bbox",
      .family = "geometry",
      .summary = "Cut out the box of one of the image's objects, chosen uniformly, each side moved by a random shift of "
                 "up to max_part_shift of the box's size, without resizing (Albumentations RandomCropNearBBox); the "
                 "output size varies.",
      .notes = {"As Albumentations 2.x, with the reference box (Albumentations' cropping_bbox, given with each image) "
                "taken from the labels (--labels) at this stage's input: an object chosen uniformly among those with "
                "a box of at least one pixel inside the image (and a category in `classes` when given), its box "
                "widened to whole pixels. Without labels, or with no such object, the box is the whole image (so "
                "the shifts can only shrink it).",
                "Albumentations 1.x draws the same shifts but does not clip the box first, keeps x_max and y_max "
                "up to W - 1 and H - 1 (its cut loses the last column and row), and its default max_part_shift "
                "is (0.3, 0.3) (the importer sets it for a 1.x file); here 2.x's clipping holds for both.",
                "Pixels are moved, never computed; labels and masks move with the window."},
      .params = {kMaxPartShift, kClasses},
      .reads_labels = true,
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "crop_near_bbox"}, {"max_part_shift", {0.1, 0.3}}},
      .cases = {R"({})", R"({"max_part_shift": [0.5, 0.2]})", R"({"max_part_shift": 1, "classes": [0, 2]})",
                R"({"max_part_shift": 0})"},
      .no_identity = "the output is an object's box; only without labels and with max_part_shift 0 is it the whole "
                     "image",
      .bench = {R"({})", R"({"max_part_shift": [0.3, 0.3]})"},
      .arithmetic = R"md(
Albumentations 2.x's RandomCropNearBBox. The reference box `(x1, y1, x2, y2)`: an object of the
labels at this stage's input, chosen with `integer(0, n - 1)` among the `n` objects whose box,
widened to whole pixels (`floor(x0)`, `floor(y0)`, `ceil(x1)`, `ceil(y1)`, within 1e-6) and
clipped to the image, keeps at least one pixel (and whose category is in `classes`, when given);
with none (or no labels), the whole image `(0, 0, W, H)` and nothing drawn for it. Then, with
`round` half to even (Python's):

- `hs = round((y2 - y1) * max_part_shift[0])`, `ws = round((x2 - x1) * max_part_shift[1])`;
- `x_min = x1 - integer(-ws, ws)`, `x_max = x2 + integer(-ws, ws)`, `y_min = y1 - integer(-hs, hs)`,
  `y_max = y2 + integer(-hs, hs)`, drawn in that order;
- clipped: `x_min` to `[0, W]`, `x_max` to `[x_min, W]`, likewise y;
- an empty result is replaced by a window of the box's size centred in the image,
  `x_min = (W - (x2 - x1)) / 2` (integer division), likewise y.

The output is `out(x, y) = in(x + x_min, y + y_min)`, `(x_max - x_min) x (y_max - y_min)` pixels:
exact for every type. The CPU backend copies one `memcpy` per row; the kernels are [crop](#crop)'s.
Boxes, points, polygons and masks move with the window, as crop's do.
)md",
      .imports = {{.name = "RandomCropNearBBox",
                   .how = "max_part_shift (a number is both; default (0.3, 0.3) for 1.x, (0, 0.3) for 2.x); the "
                          "reference box is one of the image's objects instead of cropping_bbox",
                   .convert = [](const TransformReader& t) {
                     const auto [major, minor] = t.release();
                     (void)minor;
                     const bool v2 = major >= 2 || t.has("cropping_bbox_key");
                     ojson s{{"stage", "crop_near_bbox"}};
                     ojson shift = v2 ? ojson::array({0.0, 0.3}) : ojson::array({0.3, 0.3});
                     if (t.has("max_part_shift")) {
                       const nlohmann::json& m = t.saved().at("max_part_shift");
                       if (m.is_number()) shift = ojson::array({m.get<double>(), m.get<double>()});
                       else if (m.is_array() && m.size() == 2 && m[0].is_number() && m[1].is_number())
                         shift = ojson::array({m[0].get<double>(), m[1].get<double>()});
                       else t.fail("max_part_shift must be a number or two numbers");
                     }
                     s["max_part_shift"] = shift;
                     t.note("the reference box is one of the image's objects (--labels), chosen uniformly, not the "
                            "cropping_bbox passed with each image; without labels, the whole image");
                     return s;
                   },
                   .python = {{"RandomCropNearBBox",
                                "max_part_shift cropping_box_key always_apply p",
                                "max_part_shift cropping_bbox_key p",
                                1.0}}}},
      .counterpart = {.call = "cv::Mat::copyTo of the ROI",
                      .how = "the resolved window",
                      .make = window_copy_counterpart},
  };
  return spec;
}

struct PixelBox {
  std::int64_t x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};

// A label box widened to whole pixels and clipped to the image (empty when nothing is left).
PixelBox whole_pixels(const labels::Box& b, int width, int height) {
  constexpr double kSlack = 1e-6;
  const auto lo = [](double v, int n) { return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(v + kSlack)), 0, n); };
  const auto hi = [](double v, int n) { return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(v - kSlack)), 0, n); };
  return {lo(b.x0, width), lo(b.y0, height), hi(b.x1, width), hi(b.y1, height)};
}

// Python's round() of a non-negative double: to nearest, halves to even.
std::int64_t round_half_even(double v) {
  const double f = std::floor(v), r = v - f;
  if (r > 0.5) return static_cast<std::int64_t>(f) + 1;
  if (r < 0.5) return static_cast<std::int64_t>(f);
  const auto i = static_cast<std::int64_t>(f);
  return i % 2 == 0 ? i : i + 1;
}

class CropNearBbox final : public Stage {
 public:
  explicit CropNearBbox(const StageConfig& c)
      : shift_(c.get(kMaxPartShift)), classes_(c.has(kClasses) ? c.get(kClasses) : std::vector<std::int64_t>{}),
        restricted_(c.has(kClasses)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override { return resolve_seeing(d, in, DrawInputs{}); }

  std::unique_ptr<Op> resolve_seeing(Draws& d, const Shape& in, const DrawInputs& seen) const override {
    const std::int64_t W = in.width, H = in.height;
    PixelBox box{0, 0, W, H};
    nlohmann::json drawn{{"object", nullptr}};
    if (seen.labels) {
      std::vector<std::pair<std::size_t, PixelBox>> candidates;
      for (std::size_t i = 0; i < seen.labels->objects.size(); ++i) {
        const labels::Object& o = seen.labels->objects[i];
        if (!o.box) continue;
        if (restricted_ && std::find(classes_.begin(), classes_.end(), static_cast<std::int64_t>(o.category)) == classes_.end())
          continue;
        const PixelBox b = whole_pixels(*o.box, in.width, in.height);
        if (b.x2 > b.x1 && b.y2 > b.y1) candidates.emplace_back(i, b);
      }
      if (!candidates.empty()) {
        const auto& [index, b] = candidates[static_cast<std::size_t>(d.integer(0, static_cast<std::int64_t>(candidates.size()) - 1))];
        box = b;
        drawn["object"] = index;
      }
    }
    drawn["box"] = {box.x1, box.y1, box.x2, box.y2};
    const std::int64_t hs = round_half_even(static_cast<double>(box.y2 - box.y1) * shift_[0]);
    const std::int64_t ws = round_half_even(static_cast<double>(box.x2 - box.x1) * shift_[1]);
    std::int64_t x_min = box.x1 - d.integer(-ws, ws);
    std::int64_t x_max = box.x2 + d.integer(-ws, ws);
    std::int64_t y_min = box.y1 - d.integer(-hs, hs);
    std::int64_t y_max = box.y2 + d.integer(-hs, hs);
    x_min = std::clamp<std::int64_t>(x_min, 0, W);
    y_min = std::clamp<std::int64_t>(y_min, 0, H);
    x_max = std::clamp<std::int64_t>(x_max, x_min, W);
    y_max = std::clamp<std::int64_t>(y_max, y_min, H);
    if (x_min == x_max || y_min == y_max) {  // Albumentations' fallback: the box's size, centred
      const std::int64_t bw = box.x2 - box.x1, bh = box.y2 - box.y1;
      x_min = (W - bw) / 2, y_min = (H - bh) / 2;
      x_max = x_min + bw, y_max = y_min + bh;
      drawn["centred"] = true;
    }
    return std::make_unique<WindowOp>(in, static_cast<int>(x_min), static_cast<int>(y_min),
                                           static_cast<int>(x_max - x_min), static_cast<int>(y_max - y_min),
                                           std::move(drawn));
  }

 private:
  NumberPair shift_;
  std::vector<std::int64_t> classes_;
  bool restricted_;
};

}  // namespace
}  // namespace crop_near_bbox_impl

StageType crop_near_bbox_stage() {
  return stage_type<crop_near_bbox_impl::CropNearBbox>(&crop_near_bbox_impl::crop_near_bbox_spec);
}

}  // namespace aug
