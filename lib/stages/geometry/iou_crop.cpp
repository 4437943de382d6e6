// iou_crop: torchvision's RandomIoUCrop (transforms.v2), the SSD crop: a window drawn until one of
// the boxes whose centre it holds overlaps it by a drawn minimum IoU; boxes whose centre it leaves
// out are dropped.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <vector>

#include <opencv2/core.hpp>

#include "kernels/geometry/crop.hpp"
#include "lib/stages/geometry/window_op.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace iou_crop_impl {
namespace {

const Param<NumberParam> kMinScale{{.name = "min_scale",
                                    .doc = "smallest side of the window, as a fraction of the image's side "
                                           "(each side drawn on its own)",
                                    .default_value = 0.3,
                                    .min = Bound{0, true},
                                    .max = Bound{1}}};
const Param<NumberParam> kMaxScale{{.name = "max_scale",
                                    .doc = "largest side of the window, as a fraction of the image's side",
                                    .default_value = 1.0,
                                    .min = Bound{0, true},
                                    .max = Bound{1}}};
const Param<NumberParam> kMinAspect{{.name = "min_aspect_ratio",
                                     .doc = "smallest width / height of the window (in pixels)",
                                     .default_value = 0.5,
                                     .min = Bound{0, true}}};
const Param<NumberParam> kMaxAspect{{.name = "max_aspect_ratio",
                                     .doc = "largest width / height of the window (in pixels)",
                                     .default_value = 2.0,
                                     .min = Bound{0, true}}};
const Param<std::vector<double>> kOptions{
    {.name = "sampler_options",
     .doc = "the minimum IoUs, one drawn uniformly per round; a value of 1 or more returns the image unchanged",
     .default_value = nlohmann::json::array({0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0}),
     .min = Bound{0}}};
const Param<IntegerParam> kTrials{{.name = "trials",
                                   .doc = "windows drawn per round before the next minimum IoU is drawn",
                                   .default_value = 40,
                                   .min = Bound{1},
                                   .max = Bound{10000}}};

// torchvision loops for ever; here the draw stops after this many rounds (minimum IoUs drawn) and
// gives the image back unchanged, as the option 1 does.
constexpr int kMaxRounds = 100;

const StageSpec& iou_crop_spec() {
  static const StageSpec spec{
      .name = "iou_crop",
      .family = "geometry",
      .summary = "Cut a window that overlaps one of the image's boxes by a drawn minimum IoU, dropping the boxes "
                 "whose centre it leaves out (torchvision transforms.v2 RandomIoUCrop, the SSD crop); its draw "
                 "reads the labels.",
      .notes = {"As torchvision's RandomIoUCrop: each round draws a minimum IoU from sampler_options (uniformly); "
                "1 or more gives the image back unchanged. Otherwise up to `trials` windows are drawn: each side a "
                "fraction in [min_scale, max_scale] of the image's (width and height drawn apart), kept if width / "
                "height lies in [min_aspect_ratio, max_aspect_ratio], placed uniformly; a window is taken when it "
                "holds the centre of at least one box (strictly inside) and the largest IoU between those boxes "
                "and the window reaches the minimum. When no window of a round is taken, the next round draws "
                "another minimum.",
                "The boxes are the image's labels as they stand at the stage's input (moved through the stages "
                "before it): an object's box, or the enclosing box of its polygons. Boxes whose centre the window "
                "leaves out are DROPPED (counted as dropped, 'outside', in the run's label counts), where "
                "torchvision sets them to zeros for a later SanitizeBoundingBoxes to remove; the others are "
                "clipped to the window. Masks are cut with the window.",
                "Without labels (no --labels, or an image without objects) no window can hold a box centre, so "
                "every window is refused and only the minimum IoU 1 ends the draw: the output is the input, "
                "unchanged (with the default sampler_options, always). torchvision's loop has no end; here it "
                "stops after 100 rounds and gives the image back unchanged (with the default options and no "
                "box, the chance to get there is (6/7)^100, about 2e-7). p defaults to 1 (torchvision's "
                "transform has no p).",
                "Albumentations has no such transform."},
      .params = {kMinScale, kMaxScale, kMinAspect, kMaxAspect, kOptions, kTrials},
      .reads_labels = true,
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "iou_crop"}},
      .cases = {R"({})", R"({"sampler_options": [0.0, 0.5], "trials": 3})",
                R"({"min_scale": 0.5, "max_scale": 0.8, "min_aspect_ratio": 0.8, "max_aspect_ratio": 1.25})"},
      .identity = R"({"sampler_options": [1.0]})",
      .bench = {R"({})"},
      .arithmetic = R"md(
torchvision's RandomIoUCrop (transforms.v2), drawn from the keyed generator in the same order and
with the same float32 arithmetic: `u` below is one float32 uniform in [0, 1) with 24 bits (as
`torch.rand`), products are float32 and `int` truncates.

1. Draw a minimum IoU `m = sampler_options[integer(0, n - 1)]`; `m >= 1`: the output is the input.
2. Up to `trials` times: `r0 = min_scale + (max_scale - min_scale) u`, `r1` likewise (two draws);
   `w = int(W r0)`, `h = int(H r1)`; refuse when `w` or `h` is 0 or `w / h` (in double) lies outside
   `[min_aspect_ratio, max_aspect_ratio]`; then `x = int((W - w) u)`, `y = int((H - h) u)` (two more
   draws). Take the window when some box (x0, y0, x1, y1) at the stage's input, pixel edges at
   integers, has its centre `c = ((x0 + x1) / 2, (y0 + y1) / 2)` strictly inside, `x < cx < x + w`,
   `y < cy < y + h`, and the largest IoU of those boxes with the window (in double) is at least `m`.
3. No window taken: back to 1, at most 100 rounds (then the output is the input).

The output is the window, `out(x', y') = in(x' + x, y' + y)`: pixels moved, never computed, exact for
every type. The CPU backend copies one `memcpy` per row; the kernels are [crop](#crop)'s. Labels move
by `x' = x - window x` (likewise y); an object whose box centre falls outside the window (the same
test, on the box the draw saw) is dropped and counted as `outside`; the others are clipped to the
window. Masks are cut with the window. The manifest records the window, the minimum IoU drawn
(`option`) and the rounds it took (`rounds`).
)md",
      .no_import = "torchvision's RandomIoUCrop (transforms.v2; min_scale, max_scale, min_aspect_ratio, "
                   "max_aspect_ratio, sampler_options, trials, the same names here); Albumentations has no such "
                   "transform",
      .counterpart = {.call = "cv::Mat::copyTo of the ROI",
                      .how = "the resolved window (the whole image when the draw gave it back unchanged)",
                      .make = window_copy_counterpart},
  };
  return spec;
}

struct Window {
  int x = 0, y = 0, w = 0, h = 0;
};

// What the draw gave: a window, or the image unchanged (`taken` false).
struct IouDraw {
  bool taken = false;
  Window window;
  double option = 1;
  int rounds = 0;
};

class IouCropOp final : public Op {
 public:
  IouCropOp(const Shape& in, const IouDraw& d)
      : Op(in, d.taken ? Shape{d.window.w, d.window.h, in.channels, in.dtype} : in), d_(d) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (!d_.taken) return copy_image(ctx, in, out);
    crop_window(ctx, in, out, d_.window.x, d_.window.y);
  }
  nlohmann::json params() const override {
    nlohmann::json j{{"x", d_.window.x},          {"y", d_.window.y},    {"width", out_shape().width},
                     {"height", out_shape().height}, {"option", d_.option}, {"rounds", d_.rounds}};
    if (!d_.taken) j["identity"] = true;
    return j;
  }
  std::optional<Motion> motion() const override {
    if (!d_.taken) return std::nullopt;  // torchvision gives everything back as it was
    return Motion{.matrix = {1, 0, static_cast<double>(-d_.window.x), 0, 1, static_cast<double>(-d_.window.y), 0, 0, 1},
                  .out_width = d_.window.w,
                  .out_height = d_.window.h,
                  .drops_centres_outside = true};
  }
  std::unique_ptr<Op> for_mask(const Shape& mask, double) const override {
    if (!d_.taken) return nullptr;
    return std::make_unique<IouCropOp>(mask, d_);
  }

 private:
  IouDraw d_;
};

// One float32 uniform in [0, 1) with 24 bits, as torch.rand.
float iou_uniform(Draws& d) { return static_cast<float>(d.next_u32() >> 8) * (1.0f / 16777216.0f); }

// The box of each object the draw sees: its polygons' enclosing box, else its box.
std::vector<labels::Box> iou_boxes(const labels::ImageLabels* seen) {
  std::vector<labels::Box> boxes;
  if (!seen) return boxes;
  for (const labels::Object& o : seen->objects) {
    if (!o.polygons.empty()) {
      bool any = false;
      labels::Box b{0, 0, 0, 0};
      for (const labels::Polygon& poly : o.polygons)
        for (const labels::Point& p : poly) {
          if (!any) b = {p.x, p.y, p.x, p.y};
          b = {std::min(b.x0, p.x), std::min(b.y0, p.y), std::max(b.x1, p.x), std::max(b.y1, p.y)};
          any = true;
        }
      if (any) boxes.push_back(b);
    } else if (o.box) {
      boxes.push_back(*o.box);
    }
  }
  return boxes;
}

class IouCrop final : public Stage {
 public:
  explicit IouCrop(const StageConfig& c)
      : min_scale_(c.get(kMinScale).lo),
        max_scale_(c.get(kMaxScale).lo),
        min_aspect_(c.get(kMinAspect).lo),
        max_aspect_(c.get(kMaxAspect).lo),
        options_(c.get(kOptions)),
        trials_(static_cast<int>(c.get(kTrials).lo)) {
    if (options_.empty()) c.fail(kOptions, "needs at least one minimum IoU");
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override { return resolve_seeing(d, in, {}); }

  std::unique_ptr<Op> resolve_seeing(Draws& d, const Shape& in, const DrawInputs& seen) const override {
    return std::make_unique<IouCropOp>(in, draw(d, in.width, in.height, iou_boxes(seen.labels)));
  }

 private:
  IouDraw draw(Draws& d, int W, int H, const std::vector<labels::Box>& boxes) const {
    IouDraw r;
    const float span = static_cast<float>(max_scale_ - min_scale_), lo = static_cast<float>(min_scale_);
    for (r.rounds = 1; r.rounds <= kMaxRounds; ++r.rounds) {
      r.option = options_[static_cast<std::size_t>(d.integer(0, static_cast<std::int64_t>(options_.size()) - 1))];
      if (r.option >= 1.0) return r;
      for (int t = 0; t < trials_; ++t) {
        const float s0 = span * iou_uniform(d), s1 = span * iou_uniform(d);
        const float r0 = lo + s0, r1 = lo + s1;
        const int w = static_cast<int>(static_cast<float>(W) * r0), h = static_cast<int>(static_cast<float>(H) * r1);
        if (w <= 0 || h <= 0) continue;
        const double aspect = static_cast<double>(w) / h;
        if (!(min_aspect_ <= aspect && aspect <= max_aspect_)) continue;
        const float u0 = iou_uniform(d), u1 = iou_uniform(d);
        const int x = static_cast<int>(static_cast<float>(W - w) * u0), y = static_cast<int>(static_cast<float>(H - h) * u1);
        const double right = x + w, bottom = y + h;
        double best = -1;
        for (const labels::Box& b : boxes) {
          const double cx = 0.5 * (b.x0 + b.x1), cy = 0.5 * (b.y0 + b.y1);
          if (!(x < cx && cx < right && y < cy && cy < bottom)) continue;
          const double iw = std::max(0.0, std::min(b.x1, right) - std::max(b.x0, double(x)));
          const double ih = std::max(0.0, std::min(b.y1, bottom) - std::max(b.y0, double(y)));
          const double inter = iw * ih;
          const double uni = (b.x1 - b.x0) * (b.y1 - b.y0) + double(w) * h - inter;
          best = std::max(best, uni > 0 ? inter / uni : 0.0);
        }
        if (best < 0 || best < r.option) continue;  // no centre inside, or too little overlap
        r.taken = true;
        r.window = {x, y, w, h};
        return r;
      }
    }
    r.rounds = kMaxRounds;
    return r;
  }

  double min_scale_, max_scale_, min_aspect_, max_aspect_;
  std::vector<double> options_;
  int trials_;
};

}  // namespace
}  // namespace iou_crop_impl

StageType iou_crop_stage() { return stage_type<iou_crop_impl::IouCrop>(&iou_crop_impl::iou_crop_spec); }

}  // namespace aug
