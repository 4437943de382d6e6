// copy_paste: objects cut from a partner drawn from the run's inputs by their polygons and pasted
// over the image where they overlap its objects little (Ultralytics' CopyPaste with another image).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "kernels/mix/paste.hpp"
#include "lib/stages/mix/mix.hpp"

namespace aug {

namespace copy_paste_impl {
namespace {

const Param<NumberParam> kFraction{{.name = "fraction",
                                    .doc = "the share of the partner's eligible objects pasted (Ultralytics' "
                                           "copy_paste), round(fraction n), least overlapping first",
                                    .default_value = 0.5,
                                    .min = Bound{0},
                                    .max = Bound{1}}};
const Param<NumberParam> kMaxOverlap{{.name = "max_overlap",
                                      .doc = "a partner's object is eligible when it covers less than this fraction "
                                             "of every box of the image's (intersection over the image box's area)",
                                      .default_value = 0.3,
                                      .min = Bound{0, true},
                                      .max = Bound{1}}};
const Choice<Interp> kInterpolation = resample_interpolation_param();

const StageSpec& copy_paste_spec() {
  static const StageSpec spec{
      .name = "copy_paste",
      .family = "mix",
      .summary = "Objects cut from a partner drawn from the run's inputs (by their polygons, else their boxes) and "
                 "pasted where they overlap the image's objects little (Ultralytics' CopyPaste); their labels join.",
      .notes = {"Partners are drawn by the image's key among the whole sorted input list (never the shard), so "
                "--shard, --resume, threads and devices change no byte; the manifest records the partner and the "
                "objects pasted (their indices in the partner's labels).",
                "It needs labels (--labels): without them there is nothing to cut and the image is left as it is. "
                "The image's objects under pasted ones lose the part the pasted objects' boxes cover, by the rules "
                "of cutmix's box (docs/labels.md)."},
      .params = {kFraction, kMaxOverlap, kInterpolation},
      .reads_labels = true,
      .reads_partners = true,
      .default_p = 0.5,
      .tolerance = {.reason = "pixels are copied under a mask drawn on the host; the partner's resize is resize's "
                              "engine"},
      .example = {{"stage", "copy_paste"}, {"fraction", 0.5}},
      .cases = {R"({})", R"({"fraction": 1, "max_overlap": 1, "interpolation": "nearest"})"},
      .identity = R"({"fraction": 0})",
      .bench = {R"({})"},
      .arithmetic = R"md(
Ultralytics' CopyPaste with another image (its "mixup" mode), on the keyed draws: the partner is drawn
uniformly among the run's other inputs and resized to the image's size with resize's engine
(`interpolation`); its objects' polygons (an object without polygons: its box) are scaled with it.

- **Eligible**: a partner object j whose box covers less than `max_overlap` of every box m of the
  image's objects, `area(j ∩ m) / area(m) < max_overlap` (Ultralytics' `bbox_ioa(new, old) < 0.30`).
- **Chosen**: the eligible ones sorted by their largest such overlap (ascending, stable), the first
  `round(fraction n)` (half to even, as Python's `round`).
- **Pixels**: the chosen outlines filled on a W x H mask with `cv::drawContours(..., FILLED)` of
  their vertices truncated to integers (Ultralytics' `segments.astype(np.int32)`); the output is the
  resized partner where the mask is set, the image elsewhere. The mask is a table computed on the host.
- **Labels**: the chosen objects join, scaled to the image; the image's objects lose what the chosen
  objects' boxes cover (docs/labels.md). Label maps take the partner's map under the mask.
)md",
      .no_import = "Albumentations has no CopyPaste (Ultralytics' copy_paste hyperparameter is its `fraction`)",
      .counterpart = {.none = "a pixel copy under a mask (cv::Mat::copyTo with a mask); no call to compare"},
  };
  return spec;
}

class CopyPasteOp final : public Op {
 public:
  CopyPasteOp(const Shape& in, Taken partner, std::shared_ptr<const Image> mask, std::shared_ptr<const Partner> pasted,
              std::vector<int> chosen, Interp interp, std::vector<double> fill, bool centred = false)
      : Op(in, in), partner_(std::move(partner)), mask_(std::move(mask)), pasted_(std::move(pasted)),
        chosen_(std::move(chosen)), interp_(interp), fill_(std::move(fill)), centred_(centred) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (chosen_.empty()) return copy_image(ctx, in, out);
    ImageRef b;
    mix::Source src;
    if (mix::has_pixels(partner_)) {
      src = mix::source_pixels(ctx, in, partner_);
      b = mix::resampled(ctx, src.ref, in.shape.width, in.shape.height, interp_, centred_);
    } else {  // a partner without a label map: the fill under its objects
      b = ImageRef{ctx.scratch(in.shape.bytes()), in.shape, in.shape.row_bytes()};
      mix::fill_rect(ctx, b, mix::Rect{0, 0, in.shape.width, in.shape.height}, fill_);
    }
    const auto* mask = static_cast<const std::uint8_t*>(ctx.table(mask_->data(), mask_->shape().bytes()));
    with_sample_type(in.shape.dtype, [&](auto tag) {
      using T = decltype(tag);
      k::paste(in.view<const T>(), b.view<const T>(), mask, out.view<T>(), ctx.exec());
    });
  }

  nlohmann::json params() const override {
    return {{"partner", partner_.rel()}, {"pasted", chosen_}, {"interpolation", interp_words().name(interp_)}};
  }

  std::vector<Motion> motions() const override {
    if (!pasted_ || pasted_->labels->objects.empty()) return {};
    Motion m{.out_width = in_shape().width, .out_height = in_shape().height};
    for (const labels::Object& o : pasted_->labels->objects)
      m.covers.push_back({o.box->x0, o.box->y0, o.box->x1, o.box->y1});
    return {std::move(m)};
  }

  // The chosen objects, already scaled to the image.
  std::vector<PartnerLabels> partner_labels() const override {
    if (!pasted_) return {};
    const int W = in_shape().width, H = in_shape().height;
    return {PartnerLabels{pasted_, {Motion{.out_width = W, .out_height = H}}}};
  }

  std::unique_ptr<Op> for_mask(const Shape& mask, double fill) const override {
    const std::vector<Taken> maps = mix::partner_masks({partner_}, mask);
    return std::make_unique<CopyPasteOp>(mask, maps[0], mask_, pasted_, chosen_, Interp::Nearest,
                                         std::vector<double>{fill}, true);
  }

 private:
  Taken partner_;
  std::shared_ptr<const Image> mask_;     // W x H, 1 under the pasted objects
  std::shared_ptr<const Partner> pasted_;  // the chosen objects in the image's pixels (labels only)
  std::vector<int> chosen_;
  Interp interp_;
  std::vector<double> fill_;
  bool centred_;
};

// An object's outlines: its polygons, else its box.
std::vector<labels::Polygon> outlines(const labels::Object& o) {
  if (!o.polygons.empty()) return o.polygons;
  if (!o.box) return {};
  const labels::Box& b = *o.box;
  return {{{b.x0, b.y0}, {b.x1, b.y0}, {b.x1, b.y1}, {b.x0, b.y1}}};
}

labels::Box bounds_of(const std::vector<labels::Polygon>& polys) {
  labels::Box b{1e300, 1e300, -1e300, -1e300};
  for (const auto& p : polys)
    for (const auto& pt : p) b.x0 = std::min(b.x0, pt.x), b.y0 = std::min(b.y0, pt.y), b.x1 = std::max(b.x1, pt.x),
                             b.y1 = std::max(b.y1, pt.y);
  return b;
}

class CopyPaste final : public Stage {
 public:
  explicit CopyPaste(const StageConfig& c)
      : fraction_(c.get(kFraction).lo), max_overlap_(c.get(kMaxOverlap).lo), interp_(c.get(kInterpolation)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override { return resolve_seeing(d, in, DrawInputs{}); }

  std::unique_ptr<Op> resolve_seeing(Draws& d, const Shape& in, const DrawInputs& seen) const override {
    std::vector<Taken> partner = draw_partners(d, seen, 1, in);
    const Interp interp = interp_.sample(d);
    const int W = in.width, H = in.height;
    const labels::ImageLabels* theirs = partner[0].from ? (partner[0].from->labels ? &*partner[0].from->labels : nullptr)
                                                        : seen.labels;
    auto mask = std::make_shared<Image>(Shape{W, H, 1, DType::U8});
    std::memset(mask->data(), 0, mask->shape().bytes());
    std::vector<int> chosen;
    std::shared_ptr<Partner> pasted;
    if (theirs && !theirs->objects.empty()) {
      const double sx = static_cast<double>(W) / partner[0].width;
      const double sy = static_cast<double>(H) / partner[0].height;
      std::vector<labels::Box> mine;
      if (seen.labels)
        for (const labels::Object& o : seen.labels->objects) {
          const auto out = outlines(o);
          if (!out.empty()) mine.push_back(bounds_of(out));
        }
      // Each partner object's outline in the image's pixels and its largest overlap with the image's boxes.
      std::vector<std::vector<labels::Polygon>> scaled(theirs->objects.size());
      std::vector<std::pair<double, int>> eligible;
      for (std::size_t j = 0; j < theirs->objects.size(); ++j) {
        scaled[j] = outlines(theirs->objects[j]);
        for (auto& p : scaled[j])
          for (auto& pt : p) pt.x *= sx, pt.y *= sy;
        if (scaled[j].empty()) continue;
        const labels::Box b = bounds_of(scaled[j]);
        double worst = 0;
        bool ok = true;
        for (const labels::Box& m : mine) {
          const double w = std::min(b.x1, m.x1) - std::max(b.x0, m.x0), h = std::min(b.y1, m.y1) - std::max(b.y0, m.y0);
          const double ioa = w > 0 && h > 0 && m.area() > 0 ? w * h / m.area() : 0;
          worst = std::max(worst, ioa);
          ok = ok && ioa < max_overlap_;
        }
        if (ok) eligible.emplace_back(worst, static_cast<int>(j));
      }
      std::stable_sort(eligible.begin(), eligible.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      const auto take = static_cast<std::size_t>(std::nearbyint(fraction_ * static_cast<double>(eligible.size())));
      cv::Mat m(H, W, CV_8UC1, mask->data(), mask->pitch());
      pasted = std::make_shared<Partner>();
      pasted->rel = partner[0].rel();
      pasted->labels = labels::ImageLabels{W, H, {}, true, theirs->extra};
      for (std::size_t i = 0; i < take && i < eligible.size(); ++i) {
        const int j = eligible[i].second;
        chosen.push_back(j);
        std::vector<std::vector<cv::Point>> contours;
        for (const auto& p : scaled[static_cast<std::size_t>(j)]) {
          std::vector<cv::Point> c;
          for (const auto& pt : p) c.emplace_back(static_cast<int>(pt.x), static_cast<int>(pt.y));
          contours.push_back(std::move(c));
        }
        cv::drawContours(m, contours, -1, cv::Scalar(1), cv::FILLED);
        labels::Object o = theirs->objects[static_cast<std::size_t>(j)];
        o.mask.reset();
        if (!o.polygons.empty()) o.polygons = scaled[static_cast<std::size_t>(j)];
        o.box = bounds_of(scaled[static_cast<std::size_t>(j)]);
        for (labels::Keypoint& k : o.keypoints) k.x *= sx, k.y *= sy;
        pasted->labels->objects.push_back(std::move(o));
      }
      if (chosen.empty()) pasted.reset();
    }
    return std::make_unique<CopyPasteOp>(in, std::move(partner[0]), std::move(mask), std::move(pasted),
                                         std::move(chosen), interp, std::vector<double>{0.0});
  }

 private:
  double fraction_, max_overlap_;
  Drawn<Interp> interp_;
};

}  // namespace
}  // namespace copy_paste_impl

StageType copy_paste_stage() { return stage_type<copy_paste_impl::CopyPaste>(&copy_paste_impl::copy_paste_spec); }

}  // namespace aug
