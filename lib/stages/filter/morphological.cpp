// morphological: Albumentations' Morphological, OpenCV's dilate or erode with an elliptical
// structuring element (docs/stages/filter.md#morphological).
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "kernels/filter/morphology.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace morphological_impl {
namespace {

constexpr int kMaxSide = 99;  // the cost per value grows as the element's area

const Param<IntPair> kKernelSize{{.name = "kernel_size",
                                  .doc = "the elliptical element's [width, height] in pixels, or one number for "
                                         "both (Albumentations' scale, which cv2.getStructuringElement reads as "
                                         "(width, height))",
                                  .default_value = {2, 3},
                                  .min = Bound{1},
                                  .max = Bound{kMaxSide},
                                  .elements = "[width, height]"}};
enum class Operation { Dilation, Erosion };
const Words<Operation> kOperations{{{Operation::Dilation, "dilation"}, {Operation::Erosion, "erosion"}}};
const Choice<Operation> kOperation{
    kOperations,
    {},
    Operation::Dilation,
    {.name = "operation", .doc = "dilation (the maximum over the element) or erosion (the minimum)"}};

// cv::getStructuringElement(MORPH_ELLIPSE, (width, height))'s rows as column spans: row i covers
// [spans[2i], spans[2i + 1]). A 1 x 1 element is one cell.
std::vector<int> ellipse_spans(int width, int height) {
  std::vector<int> spans(2 * static_cast<std::size_t>(height), 0);
  if (width == 1 && height == 1) return {0, 1};
  const int r = height / 2, c = width / 2;
  const double inv_r2 = r ? 1.0 / (static_cast<double>(r) * r) : 0;
  for (int i = 0; i < height; ++i) {
    const int dy = i - r;
    if (std::abs(dy) > r) continue;
    const int dx = static_cast<int>(std::nearbyint(c * std::sqrt((r * r - dy * dy) * inv_r2)));
    spans[2 * i] = std::max(c - dx, 0);
    spans[2 * i + 1] = std::min(c + dx + 1, width);
  }
  return spans;
}

const StageSpec& morphological_spec() {
  static const StageSpec spec{
      .name = "morphological",
      .family = "filter",
      .summary = "Dilate or erode with an elliptical element (Albumentations Morphological); equal to cv::dilate / "
                 "cv::erode to the bit.",
      .notes = {"As Albumentations' Morphological: the element is cv::getStructuringElement(MORPH_ELLIPSE, "
                "(width, height)) with kernel_size [width, height] (Albumentations' scale, default (2, 3): its "
                "two numbers are the element's width and height, not a range drawn from), anchored at its "
                "centre (width / 2, height / 2); every channel, alpha too, takes the maximum (dilation) or the "
                "minimum (erosion) of the values under the element, cells outside the image left out (OpenCV's "
                "default border). Values are selected, never computed: every type equals cv::dilate / cv::erode.",
                "Label maps (--masks) are dilated or eroded alike, as Albumentations does to masks. Boxes, "
                "polygons and keypoints stay where they are (Albumentations moves a box's edges by the element's "
                "reach, at most half its size, which is 1 pixel for the default element). Albumentations' "
                "default p is 0.5, this stage's too."},
      .params = {kKernelSize, kOperation},
      .default_p = 0.5,
      .tolerance = {.reason = "a maximum or minimum selects one of the input values: the same on every backend"},
      .example = {{"stage", "morphological"}, {"kernel_size", {2, 3}}, {"operation", "dilation"}, {"p", 0.5}},
      .cases = {R"({})", R"({"operation": "erosion"})", R"({"kernel_size": 5, "operation": "erosion"})",
                R"({"kernel_size": [7, 4]})", R"({"kernel_size": 1})"},
      .identity = R"({"kernel_size": 1})",
      .bench = {R"({})", R"({"kernel_size": 5, "operation": "erosion"})"},
      .arithmetic = R"md(
Albumentations' **Morphological** (default `p` 0.5, `scale` (2, 3), `operation` "dilation"), which
calls **`cv::dilate`** or **`cv::erode`** with `cv::getStructuringElement(MORPH_ELLIPSE, scale)`
(`kernels/filter/morphology.hpp`). Albumentations' `scale` is read by OpenCV as the element's
`(width, height)`: it is `kernel_size` here, and nothing is drawn.

- **Element** (OpenCV's ellipse, built on the host): with `r = height / 2`, `c = width / 2` (integer
  halves) and `inv = 1 / r²` (0 when `r = 0`), row `i` covers the columns
  `[max(c - dx, 0), min(c + dx + 1, width))` with `dx = rne(c sqrt((r² - (i - r)²) inv))`, for
  `|i - r| <= r` (other rows are empty); a 1 x 1 element is one cell. The anchor is `(c, r)`.
- **Value**: output `(x, y)`, each channel alone (alpha too), is the maximum (dilation) or minimum
  (erosion) of the inputs at `(x + j - c, y + i - r)` over the element's cells inside the image;
  cells outside are left out (OpenCV's default border for morphology). The anchor's own row spans
  the whole width, so every pixel has at least itself.
- **CPU path** (`morphology_cpu.cpp`): each output row starts at the operation's identity and takes
  the maximum or minimum with each cell's shifted input row, a loop the compiler vectorises.
- **Labels**: label maps (`--masks`) go through the same operation, as Albumentations' masks do.
  Boxes, polygons and keypoints stay (Albumentations moves a box's edges by at most half the
  element's size).
- **Checked** (`tests/stages/test_morphological.cpp`): 0 differing values against `cv::dilate` and
  `cv::erode` with OpenCV's own element, every type, 1/3/4 channels, sizes 1 to 9 in each direction,
  on both backends and on photographs; the element against `cv::getStructuringElement`; label maps.
)md",
      .imports = {
          {.name = "Morphological",
           .how = "scale (one number or (width, height): the element's size, as OpenCV reads it) is kernel_size; "
                  "operation",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "morphological"}};
            if (t.has("scale")) {  // (width, height) as given: not a range, so not ordered
              const nlohmann::json& v = t.saved().at("scale");
              if (v.is_number_integer()) s["kernel_size"] = v.get<std::int64_t>();
              else if (v.is_array() && v.size() == 2 && v[0].is_number_integer() && v[1].is_number_integer())
                s["kernel_size"] = ispan(v[0].get<double>(), v[1].get<double>());
              else t.fail("scale must be an integer or two (the element's width and height), not " + v.dump());
            }
            if (t.has("operation")) {
              const std::string op = t.saved().at("operation").get<std::string>();
              if (op != "dilation" && op != "erosion") t.fail("operation \"" + op + "\" is not dilation or erosion");
              s["operation"] = op;
            }
            return s;
          },
           .python = {{"Morphological", "scale operation always_apply p", "scale operation p", 0.5}}}},
      .counterpart = {.call = "cv::dilate or cv::erode with cv::getStructuringElement(MORPH_ELLIPSE)",
                      .how = "the resolved kernel_size and operation",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const auto size = m.at("kernel_size").get<std::vector<int>>();
                        const bool dilate = m.at("operation").get<std::string>() == "dilation";
                        const cv::Mat element = cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(size[0], size[1]));
                        return [&dst, src, element, dilate] {
                          if (dilate) cv::dilate(src, dst, element);
                          else cv::erode(src, dst, element);
                        };
                      }},
  };
  return spec;
}

class MorphOp final : public Op {
 public:
  MorphOp(const Shape& s, int width, int height, bool dilate)
      : Op(s, s), width_(width), height_(height), dilate_(dilate), spans_(ellipse_spans(width, height)) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::MorphologyArgs a;
    a.spans = ctx.table(spans_);
    a.rows = static_cast<int>(spans_.size() / 2);
    a.ax = width_ / 2;
    a.ay = height_ / 2;
    a.dilate = dilate_;
    with_views(in, out, [&](auto src, auto dst) { k::morphology(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{kKernelSize.name, {width_, height_}}, {kOperation.name, dilate_ ? "dilation" : "erosion"}};
  }

  // Label maps take the same operation (Albumentations applies it to masks).
  std::unique_ptr<Op> for_mask(const Shape& mask, double) const override {
    return std::make_unique<MorphOp>(mask, width_, height_, dilate_);
  }

 private:
  int width_, height_;
  bool dilate_;
  std::vector<int> spans_;
};

class Morphological final : public Stage {
 public:
  explicit Morphological(const StageConfig& c) : size_(c.get(kKernelSize)), operation_(c.get(kOperation)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    return std::make_unique<MorphOp>(in, static_cast<int>(size_[0]), static_cast<int>(size_[1]),
                                     operation_.sample(d) == Operation::Dilation);
  }

 private:
  IntPair size_;
  Drawn<Operation> operation_;
};

}  // namespace
}  // namespace morphological_impl

StageType morphological_stage() {
  return stage_type<morphological_impl::Morphological>(&morphological_impl::morphological_spec);
}

}  // namespace aug
