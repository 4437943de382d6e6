// coarse_dropout: Albumentations' CoarseDropout (docs/stages/noise.md#coarse_dropout).
#include <algorithm>
#include <cmath>
#include <functional>

#include <opencv2/imgproc.hpp>

#include "lib/stages/noise/fill_op.hpp"

namespace aug {

namespace coarse_dropout_impl {
namespace {

const Param<IntPair> kNumHoles{{.name = "num_holes",
                                .doc = "range of the number of holes per image (inclusive)",
                                .default_value = {1, 2},
                                .min = Bound{0},
                                .max = Bound{10000},
                                .ordered = true,
                                .elements = "[lo, hi]"}};
Param<NumberPair> side_param(const char* name, const char* side) {
  return Param<NumberPair>({.name = name,
                            .doc = std::string("range of the hole ") + side +
                                   ": fractions of the image's in [0, 1), or whole pixels (the upper end at least 1)",
                            .default_value = {0.1, 0.2},
                            .min = Bound{0},
                            .max = Bound{100000},
                            .ordered = true,
                            .elements = "[lo, hi]"});
}
const Param<NumberPair> kHoleHeight = side_param("hole_height", "height");
const Param<NumberPair> kHoleWidth = side_param("hole_width", "width");
const Param<std::vector<double>> kFill{{.name = "fill",
                                        .doc = "the value of the dropped pixels: one number or one per colour "
                                               "channel, fractions of the sample range (1 is white)",
                                        .default_value = 0.0,
                                        .min = Bound{0},
                                        .max = Bound{1}}};

const StageSpec& coarse_dropout_spec() {
  static const StageSpec spec{
      .name = "coarse_dropout",
      .family = "noise",
      .summary = "Drop random rectangular holes, set to a fill (Albumentations CoarseDropout).",
      .notes = {"As Albumentations' CoarseDropout with its current defaults (num_holes_range (1, 2), "
                "hole_height_range and hole_width_range (0.1, 0.2), fill 0, p 0.5) and its v1.4 sampling, with "
                "the stage's draws: the number of holes n uniform in num_holes; for each hole in turn its height "
                "(fractions: floor(H U(lo, hi)); pixels: an integer uniform in [lo, hi], at most H), its width "
                "likewise, then its top row uniform in [0, H - h] and its left column in [0, W - w]. Holes may "
                "overlap; a hole of zero size changes nothing. The manifest records each as [x, y, w, h].",
                "hole_height and hole_width are fractions when both ends are below 1 and pixels when both are "
                "whole numbers and the upper one is at least 1 (a lower end of 0, as Albumentations allows, draws "
                "some holes of no size). fill is a fraction of the sample range for every type (Albumentations takes "
                "it in the image's units); 8/16-bit fills are RNE(fill max). A list shorter than the colour "
                "channels repeats its last value. Alpha is left alone. Albumentations' default p is 0.5, this "
                "stage's too."},
      .params = {kNumHoles, kHoleHeight, kHoleWidth, kFill},
      .default_p = 0.5,
      .tolerance = {.reason = "values are copied or set to a fill computed on the host"},
      .example = {{"stage", "coarse_dropout"}, {"num_holes", {1, 8}}, {"hole_height", {0.05, 0.1}},
                  {"hole_width", {0.05, 0.1}}},
      .cases = {R"({})", R"({"num_holes": [3, 8], "hole_height": [2, 9], "hole_width": [1, 4], "fill": [1, 0.5, 0]})",
                R"({"num_holes": 4, "hole_height": 0.3, "hole_width": [0.05, 0.5], "fill": 0.25})"},
      .identity = R"({"num_holes": 0})",
      .bench = {R"({})", R"({"num_holes": [8, 16], "hole_height": [8, 32], "hole_width": [8, 32]})"},
      .arithmetic = R"md(
Albumentations' **CoarseDropout** with its current defaults (`num_holes` [1, 2], `hole_height` and
`hole_width` [0.1, 0.2], `fill` 0, `p` 0.5) and its v1.4 sampling, with the stage's draws:
`n = integer(num_holes)`; then per hole, in order: height, width, top, left.

- **Sizes**: a range below 1 is a fraction of the image side: `h = floor(H * uniform(lo, hi))`
  (Albumentations' `int(height * uniform)`); a range of whole numbers whose upper end is at least 1
  is pixels: `h = min(integer(lo, hi), H)` (a lower end of 0 draws some holes of no size, as
  Albumentations' integer ranges do); anything else is a pipeline error. Widths likewise with W.
- **Position**: `y = integer(0, H - h)`, `x = integer(0, W - w)`. Holes may overlap; a zero-size
  hole changes nothing; `num_holes` 0 is the identity.
- **Fill**: as random_erasing's constant fill (fractions of the range; Albumentations takes the
  image's units). The manifest records `rects: [[x, y, w, h], ...]`.
)md",
      .imports = {
          {.name = "CoarseDropout",
           .how = "max/min_holes or num_holes_range; max/min_height, max/min_width or hole_*_range (pixels or "
                  "fractions); fill_value / fill in pixels becomes a fraction of 255",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "coarse_dropout"}};
            // Defaults: 1.x's 8 holes of 8 x 8 pixels; 2.x's 1 to 2 holes of a tenth to a fifth of each side.
            auto pair_of = [&](const char* range, const char* max_key, const char* min_key, double fallback,
                               std::pair<double, double> fallback_2) {
              if (t.has(range)) return t.limit(range, fallback_2, false);
              if (t.release_2() && !t.has(max_key) && !t.has(min_key)) return fallback_2;
              const double hi = t.number(max_key, fallback);
              return std::pair{t.number(min_key, hi), hi};
            };
            const auto holes = pair_of("num_holes_range", "max_holes", "min_holes", 8, {1, 2});
            s["num_holes"] = ojson::array({std::llround(holes.first), std::llround(holes.second)});
            const auto h = pair_of("hole_height_range", "max_height", "min_height", 8, {0.1, 0.2});
            const auto w = pair_of("hole_width_range", "max_width", "min_width", 8, {0.1, 0.2});
            s["hole_height"] = ojson::array({h.first, h.second});
            s["hole_width"] = ojson::array({w.first, w.second});
            import_fill_in_pixels(t, s, t.first_of({"fill", "fill_value"}));
            t.mask_fill();
            return s;
          },
           .python = {
               {"CoarseDropout",
                "max_holes max_height max_width min_holes min_height min_width fill_value mask_fill_value "
                "always_apply p",
                "num_holes_range hole_height_range hole_width_range fill fill_mask p",
                0.5}}},
          // Albumentations 1.x (removed in 1.4): num_holes holes of max_h_size x max_w_size.
          {.name = "Cutout",
           .how = "num_holes, max_h_size x max_w_size holes (fixed), fill_value in pixels becomes a fraction of "
                  "255; holes lie inside the image (Cutout centres them anywhere and cuts them at the border)",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "coarse_dropout"}};
            const double n = t.number("num_holes", 8), h = t.number("max_h_size", 8), w = t.number("max_w_size", 8);
            s["num_holes"] = ojson::array({std::llround(n), std::llround(n)});
            s["hole_height"] = ojson::array({h, h});
            s["hole_width"] = ojson::array({w, w});
            import_fill_in_pixels(t, s, "fill_value");
            t.note("Cutout: its holes may be cut by the border; coarse_dropout's lie wholly inside the image");
            return s;
          },
           .python = {{"Cutout", "num_holes max_h_size max_w_size fill_value always_apply p", "-", 0.5}}}},
      .counterpart = {.call = "cv::Mat::copyTo, then cv::Mat::setTo per rectangle",
                      .how = "the resolved rectangles and constant value (random fills have none)",
                      .make = fill_rects_counterpart},
  };
  return spec;
}

// A side's range: fractions of the image side or pixels.
struct Side {
  NumberPair range;
  bool pixels;
};

Side read_side(const StageConfig& c, const Param<NumberPair>& p) {
  const NumberPair r = c.get(p);
  const bool whole = r[0] >= 0 && r[1] >= 1 && r[0] == std::floor(r[0]) && r[1] == std::floor(r[1]);
  const bool fraction = r[0] < 1 && r[1] < 1;
  if (!whole && !fraction)
    c.fail(p, "give fractions of the image side (both below 1) or whole pixels (the upper at least 1)");
  return {r, whole};
}

std::int64_t draw_side(const Side& s, int size, Draws& d) {
  if (s.pixels)
    return std::min<std::int64_t>(d.integer(static_cast<std::int64_t>(s.range[0]), static_cast<std::int64_t>(s.range[1])), size);
  return static_cast<std::int64_t>(std::floor(size * d.uniform(s.range[0], s.range[1])));
}

class CoarseDropout final : public Stage {
 public:
  explicit CoarseDropout(const StageConfig& c)
      : holes_(c.get(kNumHoles)), height_(read_side(c, kHoleHeight)), width_(read_side(c, kHoleWidth)),
        fill_(c.get(kFill)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int H = in.height, W = in.width;
    const std::int64_t n = d.integer(holes_[0], holes_[1]);
    std::vector<Rect> rects;
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t h = draw_side(height_, H, d), w = draw_side(width_, W, d);
      const std::int64_t y = d.integer(0, H - h), x = d.integer(0, W - w);
      rects.push_back({static_cast<int>(x), static_cast<int>(y), static_cast<int>(x + w), static_cast<int>(y + h)});
    }
    return std::make_unique<FillRectsOp>(in, std::move(rects), fill_, false, d.stream());
  }

 private:
  IntPair holes_;
  Side height_, width_;
  std::vector<double> fill_;
};

}  // namespace
}  // namespace coarse_dropout_impl

StageType coarse_dropout_stage() { return stage_type<coarse_dropout_impl::CoarseDropout>(&coarse_dropout_impl::coarse_dropout_spec); }

}  // namespace aug
