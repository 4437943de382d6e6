// shadow: Albumentations' RandomShadow (docs/stages/weather.md#shadow).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "kernels/weather/shadow.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace shadow_impl {
namespace {

const Param<IntPair> kNumShadows{{.name = "num_shadows",
                                  .doc = "range of the number of shadows per image (inclusive)",
                                  .default_value = {1, 2},
                                  .min = Bound{1},
                                  .max = Bound{k::kMaxShadows},
                                  .ordered = true,
                                  .elements = "[lo, hi]"}};
const Param<std::vector<double>> kRoi{{.name = "shadow_roi",
                                       .doc = "where the vertices fall: [x_min, y_min, x_max, y_max], fractions of the "
                                              "width and height, each in [0, 1]",
                                       .default_value = {0.0, 0.5, 1.0, 1.0}}};
const Param<IntegerParam> kDimension{{.name = "shadow_dimension",
                                      .doc = "vertices of each shadow polygon",
                                      .default_value = 5,
                                      .min = Bound{3},
                                      .max = Bound{64}}};
const Param<NumberParam> kIntensity{{.name = "shadow_intensity",
                                     .doc = "how dark a shadow is (0 none, 1 black); [lo, hi] draws one per shadow",
                                     .default_value = 0.5,
                                     .random = true,
                                     .min = Bound{0},
                                     .max = Bound{1}}};

const StageSpec& shadow_spec() {
  static const StageSpec spec{
      .name = "shadow",
      .family = "weather",
      .summary = "Darken random polygons, as shadows (Albumentations RandomShadow).",
      .notes = {"As Albumentations 2.x's RandomShadow, with the stage's draws: n shadows, each a polygon of "
                "shadow_dimension vertices drawn uniformly inside shadow_roi (in the order drawn, so it may cross "
                "itself), filled as cv::fillPoly fills it, and one intensity per shadow. Inside a shadow each colour "
                "value becomes trunc(clip(v * (1 - intensity))); overlapping shadows compound. Alpha is left alone; "
                "labels are not moved. Albumentations' default p is 0.5, this stage's too."},
      .params = {kNumShadows, kRoi, kDimension, kIntensity},
      .default_p = 0.5,
      .tolerance = {.reason = "the polygons are rasterised once on the host; every backend multiplies each value by "
                              "the same doubles and truncates"},
      .example = {{"stage", "shadow"}, {"num_shadows", {1, 3}}, {"shadow_intensity", {0.3, 0.7}}},
      .cases = {R"({})", R"({"num_shadows": [3, 6], "shadow_roi": [0, 0, 1, 1], "shadow_dimension": 7, )"
                         R"("shadow_intensity": [0.1, 0.9]})",
                R"({"num_shadows": 16, "shadow_dimension": 3, "shadow_intensity": [0.2, 1]})"},
      .identity = R"({"shadow_intensity": 0})",
      .bench = {R"({})", R"({"num_shadows": [4, 4], "shadow_roi": [0, 0, 1, 1], "shadow_intensity": [0.3, 0.7]})"},
      .arithmetic = R"md(
Albumentations 2.x's **RandomShadow** (its defaults: `num_shadows_limit` (1, 2), `shadow_roi`
(0, 0.5, 1, 1), `shadow_dimension` 5, `shadow_intensity_range` (0.5, 0.5), `p` 0.5), with the stage's
draws in Albumentations' order:

- **Region**: `x0 = int(x_min * W)`, `x1 = int(x_max * W)`, `y0 = int(y_min * H)`, `y1 = int(y_max * H)`.
- **Draws**: `n = integer(num_shadows)`; per shadow, `shadow_dimension` x coordinates uniform in
  `[x0, x1)` (exclusive, as numpy's `integers`), then as many y in `[y0, y1)`; after every polygon, one
  intensity per shadow from `shadow_intensity`. A region of zero width (or height) puts every vertex on
  `x0` (`y0`), where numpy would refuse. The manifest records `shadows: [{vertices, intensity}]`.
- **Mask**: each polygon, its vertices in the order drawn (it may cross itself), filled on the host
  exactly as `cv::fillPoly` (8-connected edges, even-odd spans) fills it; the kernels read one
  16-bit word per pixel, bit k set where shadow k covers it (so at most 16 shadows).
- **Values**: for each covering shadow in order, `v = trunc(clip(v * (1 - intensity), 0, max))` in
  double on 8- and 16-bit samples (numpy multiplies uint8 by a Python float in float64, then casts
  back); float samples `clamp01((float)(v * (1 - intensity)))`. Alpha is copied.
- Albumentations 1.x darkened the L channel of HLS by half instead (`num_shadows_lower/upper`); the
  importer maps its parameters onto the 2.x arithmetic (intensity 0.5).
)md",
      .imports = {{.name = "RandomShadow",
                   .how = "num_shadows_limit (or num_shadows_lower/upper), shadow_roi, shadow_dimension, "
                          "shadow_intensity_range (1.x: HLS lightness halved, imported as intensity 0.5)",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "shadow"}};
                     if (t.has("num_shadows_limit")) {
                       const auto [lo, hi] = t.limit("num_shadows_limit", {1, 2}, false);
                       s["num_shadows"] = ojson::array({std::llround(lo), std::llround(hi)});
                     } else {
                       const double lo = t.number("num_shadows_lower", 1), hi = t.number("num_shadows_upper", 2);
                       s["num_shadows"] = ojson::array({std::llround(lo), std::llround(hi)});
                     }
                     if (t.has("shadow_roi")) s["shadow_roi"] = t.saved().at("shadow_roi");
                     s["shadow_dimension"] = std::llround(t.number("shadow_dimension", 5));
                     if (t.has("shadow_intensity_range")) {
                       const auto [lo, hi] = t.limit("shadow_intensity_range", {0.5, 0.5}, false);
                       s["shadow_intensity"] = ojson::array({lo, hi});
                     } else if (t.has("num_shadows_lower") || t.has("num_shadows_upper")) {
                       t.note("RandomShadow (1.x) halves HLS lightness; shadow multiplies RGB by 0.5 (2.x)");
                     }
                     return s;
                   },
                   .python = {
                       {"RandomShadow",
                        "shadow_roi num_shadows_lower num_shadows_upper shadow_dimension always_apply p",
                        "shadow_roi num_shadows_limit shadow_dimension shadow_intensity_range p",
                        0.5}}}},
      .counterpart = {.none = "OpenCV has no call that darkens drawn polygons; cv::fillPoly is only the mask"},
  };
  return spec;
}

struct Shadow {
  std::vector<cv::Point> vertices;
  double intensity = 0;
};

class ShadowOp final : public Op {
 public:
  ShadowOp(const Shape& s, std::vector<Shadow> shadows) : Op(s, s), shadows_(std::move(shadows)) {
    cover_.assign(static_cast<std::size_t>(s.width) * static_cast<std::size_t>(s.height), 0);
    for (std::size_t k = 0; k < shadows_.size(); ++k) {
      keep_.push_back(1.0 - shadows_[k].intensity);
      const cv::Rect box = cv::boundingRect(shadows_[k].vertices) & cv::Rect(0, 0, s.width, s.height);
      if (box.empty()) continue;
      // cv::fillPoly over the polygon's bounding box: the same spans as over the whole image.
      cv::Mat mask(box.height, box.width, CV_8U, cv::Scalar(0));
      const std::vector<std::vector<cv::Point>> polys{shadows_[k].vertices};
      cv::fillPoly(mask, polys, cv::Scalar(255), cv::LINE_8, 0, -box.tl());
      const auto bit = static_cast<std::uint16_t>(1u << k);
      for (int y = 0; y < box.height; ++y) {
        const std::uint8_t* m = mask.ptr<std::uint8_t>(y);
        std::uint16_t* c = cover_.data() + static_cast<std::size_t>(y + box.y) * s.width + box.x;
        for (int x = 0; x < box.width; ++x) c[x] = static_cast<std::uint16_t>(c[x] | (m[x] ? bit : 0));
      }
    }
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::ShadowArgs a;
    a.cover = ctx.table(cover_);
    a.keep = keep_.empty() ? nullptr : ctx.table(keep_);
    a.count = static_cast<int>(keep_.size());
    a.color_channels = in.shape.channels == 4 ? 3 : in.shape.channels;
    with_views(in, out, [&](auto src, auto dst) { k::shadow(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    nlohmann::json list = nlohmann::json::array();
    for (const Shadow& s : shadows_) {
      nlohmann::json v = nlohmann::json::array();
      for (const cv::Point& p : s.vertices) v.push_back({p.x, p.y});
      list.push_back({{"vertices", v}, {"intensity", s.intensity}});
    }
    return {{"shadows", list}};
  }

 private:
  std::vector<Shadow> shadows_;
  std::vector<std::uint16_t> cover_;
  std::vector<double> keep_;
};

class ShadowStage final : public Stage {
 public:
  explicit ShadowStage(const StageConfig& c)
      : num_(c.get(kNumShadows)), roi_(c.get(kRoi)), dimension_(static_cast<int>(c.get(kDimension).lo)),
        intensity_(c.get(kIntensity)) {
    if (roi_.size() != 4) c.fail(kRoi, "give four numbers: [x_min, y_min, x_max, y_max]");
    for (double v : roi_)
      if (!(v >= 0 && v <= 1)) c.fail(kRoi, "each number must be in [0, 1]");
    if (roi_[0] > roi_[2] || roi_[1] > roi_[3]) c.fail(kRoi, "x_min must not exceed x_max, nor y_min y_max");
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int W = in.width, H = in.height;
    const auto x0 = static_cast<std::int64_t>(roi_[0] * W), y0 = static_cast<std::int64_t>(roi_[1] * H);
    const auto x1 = static_cast<std::int64_t>(roi_[2] * W), y1 = static_cast<std::int64_t>(roi_[3] * H);
    const std::int64_t n = d.integer(num_[0], num_[1]);
    std::vector<Shadow> shadows(static_cast<std::size_t>(n));
    for (Shadow& s : shadows) {
      s.vertices.resize(static_cast<std::size_t>(dimension_));
      for (cv::Point& p : s.vertices) p.x = static_cast<int>(d.integer(x0, std::max(x0, x1 - 1)));
      for (cv::Point& p : s.vertices) p.y = static_cast<int>(d.integer(y0, std::max(y0, y1 - 1)));
    }
    for (Shadow& s : shadows) s.intensity = intensity_.sample(d);
    return std::make_unique<ShadowOp>(in, std::move(shadows));
  }

 private:
  IntPair num_;
  std::vector<double> roi_;
  int dimension_;
  NumberParam intensity_;
};

}  // namespace
}  // namespace shadow_impl

StageType shadow_stage() { return stage_type<shadow_impl::ShadowStage>(&shadow_impl::shadow_spec); }

}  // namespace aug
