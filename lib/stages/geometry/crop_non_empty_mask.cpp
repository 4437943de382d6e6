// crop_non_empty_mask: Albumentations' CropNonEmptyMaskIfExists (a fixed-size window around a
// uniformly chosen labelled pixel of the label map, or of the objects when there is no map).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/geometry/crop.hpp"
#include "lib/core/error.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/geometry/window_op.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace crop_non_empty_mask_impl {
namespace {

const Param<IntPair> kSize{{.name = "size",
                            .doc = "window size; one integer means a square (Albumentations' height and width)",
                            .min = Bound{1},
                            .max = Bound{65535},
                            .elements = "[width, height]"}};
const Param<std::vector<std::int64_t>> kIgnoreValues{
    {.name = "ignore_values",
     .doc = "label-map values that do not count as labelled (0 never counts); without a label map, the object "
            "categories that do not count",
     .optional = true,
     .min = Bound{0},
     .max = Bound{65535}}};
const Param<std::vector<std::int64_t>> kIgnoreChannels{
    {.name = "ignore_channels",
     .doc = "mask channels left out; the label map has one channel, 0: naming it leaves nothing labelled, so the "
            "window is placed uniformly",
     .optional = true,
     .min = Bound{0},
     .max = Bound{0}}};

const StageSpec& crop_non_empty_mask_spec() {
  static const StageSpec spec{
      .name = "crop_non_empty_mask",
      .family = "geometry",
      .summary = "Cut a width x height window that holds a uniformly chosen labelled pixel of the label map "
                 "(--masks), or of the objects' polygons and boxes when there is none (Albumentations "
                 "CropNonEmptyMaskIfExists).",
      .notes = {"As Albumentations (1.x and 2.x, the same draws): a pixel (x, y) is chosen uniformly among the "
                "labelled ones (non-zero, values in ignore_values set to 0), then x0 = x - integer(0, w - 1), y0 = "
                "y - integer(0, h - 1), each clipped to [0, W - w] and [0, H - h]: the window always holds the "
                "chosen pixel. Where nothing is labelled, x0 = integer(0, W - w), then y0 = integer(0, H - h).",
                "What is labelled: the run's label map (--masks) as it stands at this stage's input; without one, "
                "the union of the objects' polygons (their boxes for objects without polygons) from --labels, "
                "rasterised at the input's pixels (a pixel counts when its centre is inside), ignore_values "
                "naming object categories there; without either (as in `augment verify-devices` and a run with "
                "neither --labels nor --masks), nothing: the window is placed uniformly, Albumentations' "
                "empty-mask path.",
                "ignore_channels: the label map is one channel; Albumentations drops ignored channels of a mask "
                "that has a channel axis, so [0] leaves nothing labelled (the uniform placement). (Albumentations "
                "passes a 2-D mask through without reading ignore_channels.)",
                "An image smaller than the window is a per-file error naming the stage, as Albumentations' "
                "error. Pixels are moved, never computed; labels and masks move with the window."},
      .params = {kSize, kIgnoreValues, kIgnoreChannels},
      .reads_labels = true,
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "crop_non_empty_mask"}, {"size", {256, 256}}},
      .cases = {R"({"size": [1, 1]})", R"({"size": [2, 3]})", R"({"size": [17, 9], "ignore_values": [3, 4]})",
                R"({"size": [5, 30], "ignore_channels": [0]})"},
      .no_identity = "the window has a fixed size; a crop of the whole image is one only for images of that size",
      .bench = {R"({"size": [1280, 720]})", R"({"size": [512, 512], "ignore_values": [255]})"},
      .arithmetic = R"md(
Albumentations' CropNonEmptyMaskIfExists (the same draws in 1.x and 2.x), its mask being the run's
label map at this stage's input. With `L(x, y)` that map, a pixel is labelled when `L != 0` and
`L` is not in `ignore_values` (and `ignore_channels` does not name channel 0). With `n` labelled
pixels, counted row by row (Albumentations' `argwhere` order):

- `n > 0`: `k = integer(0, n - 1)` picks the k-th labelled pixel `(x, y)`; then
  `x0 = clip(x - integer(0, w - 1), 0, W - w)`, `y0 = clip(y - integer(0, h - 1), 0, H - h)`.
- `n = 0`: `x0 = integer(0, W - w)`, then `y0 = integer(0, H - h)`.

The output is `out(x, y) = in(x + x0, y + y0)`, `w x h`. Without a label map the objects stand in
for it: each object's polygons (its box where it has none) are filled into a map, a pixel being
labelled when its centre `(i + 0.5, j + 0.5)` lies inside (`cv::fillPoly` with sub-pixel vertices
and `cv::rectangle`), objects whose category is in `ignore_values` left out. Without labels either
nothing is labelled. Pixels are moved, never computed: exact for every type; the CPU backend copies
one `memcpy` per row, the kernels are [crop](#crop)'s. Boxes, points, polygons and masks move with
the window, as crop's do.
)md",
      .imports = {{.name = "CropNonEmptyMaskIfExists",
                   .how = "height, width (or size); ignore_values; ignore_channels (only channel 0 exists)",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "crop_non_empty_mask"}};
                     s["size"] = t.size();
                     if (t.has("ignore_values")) s["ignore_values"] = t.saved().at("ignore_values");
                     if (t.has("ignore_channels")) {
                       const nlohmann::json& c = t.saved().at("ignore_channels");
                       if (!c.is_array()) t.fail("ignore_channels must be a list of channel numbers");
                       bool zero = false;
                       for (const auto& v : c) zero = zero || (v.is_number_integer() && v.get<std::int64_t>() == 0);
                       if (zero) s["ignore_channels"] = ojson::array({0});
                       if (c.size() > (zero ? 1u : 0u))
                         t.note("ignore_channels beyond 0 left out: the label map has one channel");
                     }
                     return s;
                   },
                   .python = {{"CropNonEmptyMaskIfExists",
                                "height width ignore_values ignore_channels always_apply p",
                                "height width ignore_values ignore_channels p",
                                1.0}}}},
      .counterpart = {.call = "cv::Mat::copyTo of the ROI",
                      .how = "the resolved window",
                      .make = window_copy_counterpart},
  };
  return spec;
}

// Which values of a label map count: none of ignore_values, never 0.
std::vector<std::uint8_t> counted_values(std::size_t n, const std::vector<std::int64_t>& ignore) {
  std::vector<std::uint8_t> keep(n, 1);
  keep[0] = 0;
  for (std::int64_t v : ignore)
    if (v >= 0 && static_cast<std::size_t>(v) < n) keep[static_cast<std::size_t>(v)] = 0;
  return keep;
}

// Labelled pixels per row of `m` (8- or 16-bit, one channel); `keep` empty: every non-zero value.
template <class T>
std::vector<std::int64_t> labelled_per_row(const cv::Mat& m, const std::vector<std::uint8_t>& keep) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(m.rows), 0);
  for (int y = 0; y < m.rows; ++y) {
    if (keep.empty()) {
      rows[static_cast<std::size_t>(y)] = cv::countNonZero(m.row(y));
      continue;
    }
    const T* r = m.ptr<T>(y);
    std::int64_t c = 0;
    for (int x = 0; x < m.cols; ++x) c += keep[r[x]];
    rows[static_cast<std::size_t>(y)] = c;
  }
  return rows;
}

// The k-th labelled pixel of row y.
template <class T>
int labelled_in_row(const cv::Mat& m, int y, std::int64_t k, const std::vector<std::uint8_t>& keep) {
  const T* r = m.ptr<T>(y);
  for (int x = 0; x < m.cols; ++x) {
    const bool counts = keep.empty() ? r[x] != 0 : keep[r[x]] != 0;
    if (counts && k-- == 0) return x;
  }
  return m.cols - 1;  // not reached: the row holds more than k
}

// The objects as a label map: 1 where a pixel's centre lies inside one of their polygons (their
// box for objects without polygons), objects whose category is ignored left out.
cv::Mat rasterise_objects(const labels::ImageLabels& l, int width, int height, const std::vector<std::int64_t>& ignore) {
  cv::Mat m(height, width, CV_8UC1, cv::Scalar(0));
  constexpr int kShift = 8;
  constexpr double kOne = 1 << kShift;
  for (const labels::Object& o : l.objects) {
    if (std::find(ignore.begin(), ignore.end(), static_cast<std::int64_t>(o.category)) != ignore.end()) continue;
    if (!o.polygons.empty()) {
      std::vector<std::vector<cv::Point>> polys;
      for (const labels::Polygon& p : o.polygons) {
        if (p.size() < 3) continue;
        std::vector<cv::Point> q;
        // Pixel centres at integers for OpenCV: a vertex at edge coordinate v sits at v - 0.5.
        for (const labels::Point& v : p)
          q.emplace_back(static_cast<int>(std::lround((v.x - 0.5) * kOne)), static_cast<int>(std::lround((v.y - 0.5) * kOne)));
        polys.push_back(std::move(q));
      }
      if (!polys.empty()) {
        cv::fillPoly(m, polys, cv::Scalar(1), cv::LINE_8, kShift);
        continue;
      }
    }
    if (!o.box) continue;
    // Columns whose centre i + 0.5 lies in [x0, x1): ceil(x0 - 0.5) .. ceil(x1 - 0.5) - 1.
    const int x0 = std::max(0, static_cast<int>(std::ceil(o.box->x0 - 0.5)));
    const int x1 = std::min(width, static_cast<int>(std::ceil(o.box->x1 - 0.5)));
    const int y0 = std::max(0, static_cast<int>(std::ceil(o.box->y0 - 0.5)));
    const int y1 = std::min(height, static_cast<int>(std::ceil(o.box->y1 - 0.5)));
    if (x1 > x0 && y1 > y0) m(cv::Rect(x0, y0, x1 - x0, y1 - y0)).setTo(1);
  }
  return m;
}

class CropNonEmptyMask final : public Stage {
 public:
  explicit CropNonEmptyMask(const StageConfig& c)
      : size_(c.get(kSize)),
        ignore_(c.has(kIgnoreValues) ? c.get(kIgnoreValues) : std::vector<std::int64_t>{}),
        drop_channel_(c.has(kIgnoreChannels) && !c.get(kIgnoreChannels).empty()) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override { return resolve_seeing(d, in, DrawInputs{}); }

  std::unique_ptr<Op> resolve_seeing(Draws& d, const Shape& in, const DrawInputs& seen) const override {
    const int w = static_cast<int>(size_[0]), h = static_cast<int>(size_[1]);
    if (w > in.width || h > in.height)
      throw InputError("crop_non_empty_mask: the window " + std::to_string(w) + "x" + std::to_string(h) +
                       " is larger than the image (" + std::to_string(in.width) + "x" + std::to_string(in.height) + ")");
    // The map whose labelled pixels count, and where it came from.
    cv::Mat map;
    std::string source = "none";
    std::vector<std::uint8_t> keep;
    if (seen.mask) {
      if (seen.mask->width() != in.width || seen.mask->height() != in.height || seen.mask->shape().channels != 1)
        throw InputError("crop_non_empty_mask: the label map is " + to_string(seen.mask->shape()) +
                         ", not one channel of the image's size " + std::to_string(in.width) + "x" +
                         std::to_string(in.height));
      if (seen.mask->shape().dtype != DType::U8 && seen.mask->shape().dtype != DType::U16)
        throw InputError("crop_non_empty_mask: the label map is not 8- or 16-bit");
      map = as_mat(seen.mask->ref());
      source = "label map";
      if (!ignore_.empty()) keep = counted_values(map.depth() == CV_8U ? 256 : 65536, ignore_);
    } else if (seen.labels) {
      map = rasterise_objects(*seen.labels, in.width, in.height, ignore_);
      source = "labels";
    }
    nlohmann::json drawn{{"from", source}};
    std::int64_t n = 0;
    std::vector<std::int64_t> rows;
    if (!map.empty() && !drop_channel_) {
      rows = map.depth() == CV_8U ? labelled_per_row<std::uint8_t>(map, keep) : labelled_per_row<std::uint16_t>(map, keep);
      for (std::int64_t r : rows) n += r;
    }
    int x0 = 0, y0 = 0;
    if (n > 0) {
      std::int64_t k = d.integer(0, n - 1);
      int y = 0;
      while (k >= rows[static_cast<std::size_t>(y)]) k -= rows[static_cast<std::size_t>(y++)];
      const int x = map.depth() == CV_8U ? labelled_in_row<std::uint8_t>(map, y, k, keep)
                                         : labelled_in_row<std::uint16_t>(map, y, k, keep);
      const std::int64_t dx = d.integer(0, w - 1);
      const std::int64_t dy = d.integer(0, h - 1);
      x0 = static_cast<int>(std::clamp<std::int64_t>(x - dx, 0, in.width - w));
      y0 = static_cast<int>(std::clamp<std::int64_t>(y - dy, 0, in.height - h));
      drawn["pixel"] = {x, y};
      drawn["labelled"] = n;
    } else {
      x0 = static_cast<int>(d.integer(0, in.width - w));
      y0 = static_cast<int>(d.integer(0, in.height - h));
      drawn["labelled"] = 0;
    }
    return std::make_unique<WindowOp>(in, x0, y0, w, h, std::move(drawn));
  }

 private:
  IntPair size_;
  std::vector<std::int64_t> ignore_;
  bool drop_channel_;
};

}  // namespace
}  // namespace crop_non_empty_mask_impl

StageType crop_non_empty_mask_stage() {
  return stage_type<crop_non_empty_mask_impl::CropNonEmptyMask>(&crop_non_empty_mask_impl::crop_non_empty_mask_spec);
}

}  // namespace aug
