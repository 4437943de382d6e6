// grid_dropout: Albumentations' GridDropout (docs/stages/noise.md#grid_dropout).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include <opencv2/core.hpp>

#include "lib/stages/engines/numpy_like.hpp"
#include "lib/stages/noise/fill_op.hpp"

namespace aug {

namespace grid_dropout_impl {
namespace {

const Param<NumberParam> kRatio{{.name = "ratio",
                                 .doc = "side of a hole over the side of its cell",
                                 .default_value = 0.5,
                                 .min = Bound{0, true},
                                 .max = Bound{1}}};
const Param<IntPair> kUnitSize{{.name = "unit_size_range",
                                .doc = "range of the cell side in pixels (inclusive), drawn per image; without "
                                       "it and holes_number_xy, a tenth of each side (at least 2)",
                                .optional = true,
                                .min = Bound{2},
                                .max = Bound{100000},
                                .ordered = true,
                                .elements = "[lo, hi]"}};
const Param<IntPair> kHolesNumber{{.name = "holes_number_xy",
                                   .doc = "the number of cells across and down",
                                   .optional = true,
                                   .min = Bound{1},
                                   .max = Bound{100000},
                                   .elements = "[x, y]"}};
const Param<bool> kRandomOffset{{.name = "random_offset",
                                 .doc = "place each hole at a random offset inside its cell (false: at shift_xy)",
                                 .default_value = true}};
const Param<IntPair> kShift{{.name = "shift_xy",
                             .doc = "offset of every hole inside its cell, pixels (without random_offset)",
                             .default_value = {0, 0},
                             .min = Bound{0},
                             .max = Bound{100000},
                             .elements = "[x, y]"}};
const Param<std::vector<double>> kFill{{.name = "fill",
                                        .doc = "the value of the dropped pixels: one number or one per colour "
                                               "channel, fractions of the sample range (1 is white)",
                                        .default_value = 0.0,
                                        .min = Bound{0},
                                        .max = Bound{1}}};

const StageSpec& grid_dropout_spec() {
  static const StageSpec spec{
      .name = "grid_dropout",
      .family = "noise",
      .summary = "Drop a grid of rectangular holes, one per cell, set to a fill (Albumentations GridDropout).",
      .notes = {"As Albumentations 2.x's GridDropout (ratio 0.5, random_offset true, a tenth of each side per cell, "
                "fill 0, p 0.5) with the stage's draws: the image is split into near-equal cells (the longer ones "
                "shuffled along each axis), each gets a hole of ratio times its sides, at a random offset inside "
                "the cell or at shift_xy. holes_number_xy is [across, down] (2.x reads its pair the other way "
                "round; the import swaps it). 1.x's parameters import onto this sampling. fill as coarse_dropout; "
                "the manifest records the holes as [x, y, w, h]. Alpha is left alone."},
      .params = {kRatio, kUnitSize, kHolesNumber, kRandomOffset, kShift, kFill},
      .default_p = 0.5,
      .tolerance = {.reason = "values are copied or set to a fill computed on the host"},
      .example = {{"stage", "grid_dropout"}, {"ratio", 0.4}},
      .cases = {R"({})", R"({"ratio": 0.3, "unit_size_range": [3, 9], "fill": [1, 0.5, 0]})",
                R"({"ratio": 0.7, "holes_number_xy": [3, 2], "random_offset": false, "shift_xy": [1, 2]})",
                R"({"ratio": 1, "holes_number_xy": [40, 30]})"},
      .no_identity = "every cell of two pixels or more gets a hole of at least one pixel",
      .bench = {R"({})"},
      .arithmetic = R"md(
Albumentations 2.x's **GridDropout** (`ratio` 0.5, `random_offset` true, `shift_xy` [0, 0],
`fill` 0, `p` 0.5) with the stage's draws, in this order:

- **Cells**: `unit_size_range` [lo, hi] (inclusive; 2.x's `integers(lo, hi)` excludes hi and the
  import subtracts 1, 1.x's `randint(min, max + 1)` includes max + 1 and the import adds 1):
  `u = integer(lo, hi)`, `rows = H / u`, `cols = W / u`. `holes_number_xy` [x, y]: `cols = x`,
  `rows = y`. Neither: `rows = H / max(2, H / 10)`, `cols = W / max(2, W / 10)` (integer
  divisions). Each count is then kept within [1, side].
- **Splits** per axis (rows first, then columns): `side = q n + r`; sizes `q + 1` for the first `r`,
  `q` for the rest, shuffled (Fisher-Yates from the end: for `i = n-1 .. 1`, swap `i` with
  `integer(0, i)`, as numpy's `shuffle`), then summed into boundaries from 0.
- **Holes**, cells in row-major order: `h = trunc(min(max(ch * ratio, 1), ch - 1))` (double; a cell
  of one pixel gets none), `w` likewise. Offsets: with `random_offset`, `integer(0, ch - h)` for every
  cell in order, then `integer(0, cw - w)` for every cell; otherwise `shift_xy` for all.
  `y = min(max(cell_y + oy, 0), H - h)`, `x` likewise; the hole is `[x, x + w) x [y, y + h)`.
- **Fill**: as coarse_dropout (fractions of the range, 8/16-bit `rne(f max)`); alpha is copied.
  Albumentations 1.x lays a fixed grid of `unit` cells from the top-left corner instead; its
  parameters import onto this sampling, with a note.
)md",
      .imports = {{.name = "GridDropout",
                   .how = "ratio; unit_size_range (2.x, high excluded) or unit_size_min/max (1.x, max + 1 included) "
                          "to an inclusive range; holes_number_xy (2.x, swapped) or holes_number_x/y; shift_xy or "
                          "shift_x/y; random_offset; fill / fill_value in pixels to a fraction of 255",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "grid_dropout"}};
                     s["ratio"] = t.number("ratio", 0.5);
                     const bool v1 = t.has("unit_size_min") || t.has("holes_number_x") || t.has("holes_number_y") ||
                                     t.has("shift_x") || t.has("shift_y") || t.has("fill_value") ||
                                     t.release().first == 1;
                     if (t.has("unit_size_range")) {
                       const auto [lo, hi] = t.limit("unit_size_range", {2, 3}, false);
                       s["unit_size_range"] = ispan(lo, std::max(lo, hi - 1));
                     } else if (t.has("unit_size_min") && t.has("unit_size_max")) {
                       s["unit_size_range"] = ispan(t.number("unit_size_min", 2), t.number("unit_size_max", 2) + 1);
                     }
                     if (t.has("holes_number_xy")) {
                       const auto [a, b] = t.limit("holes_number_xy", {1, 1}, false);
                       const nlohmann::json& v = t.saved().at("holes_number_xy");
                       // 2.x reads its pair as (rows, columns): the first number is the count down.
                       const double first = v.is_array() ? v[0].get<double>() : a, second = v.is_array() ? v[1].get<double>() : b;
                       s["holes_number_xy"] = ojson::array({std::llround(second), std::llround(first)});
                     } else if (t.has("holes_number_x") || t.has("holes_number_y")) {
                       // 1.x: a missing count falls back to its default unit (a tenth of the side).
                       if (!(t.has("holes_number_x") && t.has("holes_number_y")))
                         t.fail("holes_number_x and holes_number_y are imported together");
                       s["holes_number_xy"] = ojson::array(
                           {std::llround(t.number("holes_number_x", 1)), std::llround(t.number("holes_number_y", 1))});
                     }
                     s["random_offset"] = t.flag("random_offset", !v1);
                     if (t.has("shift_xy")) {
                       const nlohmann::json& v = t.saved().at("shift_xy");
                       s["shift_xy"] = ojson::array({std::llround(v[0].get<double>()), std::llround(v[1].get<double>())});
                     } else if (t.has("shift_x") || t.has("shift_y")) {
                       s["shift_xy"] =
                           ojson::array({std::llround(t.number("shift_x", 0)), std::llround(t.number("shift_y", 0))});
                     }
                     import_fill_in_pixels(t, s, t.first_of({"fill", "fill_value"}));
                     if (v1) t.note("GridDropout (1.x): its fixed grid from the corner becomes 2.x's near-equal cells");
                     t.mask_fill();
                     return s;
                   },
                   .python = {
                       {"GridDropout",
                        "ratio unit_size_min unit_size_max holes_number_x holes_number_y shift_x shift_y "
                        "random_offset fill_value mask_fill_value always_apply p",
                        "ratio random_offset unit_size_range holes_number_xy shift_xy fill fill_mask p",
                        0.5}}}},
      .counterpart = {.call = "cv::Mat::copyTo, then cv::Mat::setTo per rectangle",
                      .how = "the resolved holes and constant value",
                      .make = fill_rects_counterpart},
  };
  return spec;
}

int hole_side(int cell, double ratio) {
  return static_cast<int>(std::trunc(std::min(std::max(cell * ratio, 1.0), cell - 1.0)));
}

class GridDropout final : public Stage {
 public:
  explicit GridDropout(const StageConfig& c)
      : ratio_(c.get(kRatio).lo), has_unit_(c.has(kUnitSize)), has_number_(c.has(kHolesNumber)),
        random_offset_(c.get(kRandomOffset)), shift_(c.get(kShift)), fill_(c.get(kFill)) {
    if (has_unit_) unit_ = c.get(kUnitSize);
    if (has_number_) number_ = c.get(kHolesNumber);
    if (has_unit_ && has_number_) c.fail(kHolesNumber, "give unit_size_range or holes_number_xy, not both");
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int H = in.height, W = in.width;
    std::int64_t rows, cols;
    if (has_unit_) {
      const std::int64_t u = d.integer(unit_[0], unit_[1]);
      rows = H / u, cols = W / u;
    } else if (has_number_) {
      cols = number_[0], rows = number_[1];
    } else {
      rows = H / std::max(2, H / 10), cols = W / std::max(2, W / 10);
    }
    rows = std::clamp<std::int64_t>(rows, 1, H), cols = std::clamp<std::int64_t>(cols, 1, W);
    const std::vector<int> ys = shuffled_splits(H, static_cast<int>(rows), d);
    const std::vector<int> xs = shuffled_splits(W, static_cast<int>(cols), d);
    const std::size_t n = static_cast<std::size_t>(rows * cols);
    std::vector<int> hh(n), hw(n), oy(n, static_cast<int>(shift_[1])), ox(n, static_cast<int>(shift_[0]));
    for (std::size_t i = 0; i < n; ++i) {
      hh[i] = hole_side(ys[i / cols + 1] - ys[i / cols], ratio_);
      hw[i] = hole_side(xs[i % cols + 1] - xs[i % cols], ratio_);
    }
    if (random_offset_) {
      for (std::size_t i = 0; i < n; ++i) oy[i] = static_cast<int>(d.integer(0, ys[i / cols + 1] - ys[i / cols] - hh[i]));
      for (std::size_t i = 0; i < n; ++i) ox[i] = static_cast<int>(d.integer(0, xs[i % cols + 1] - xs[i % cols] - hw[i]));
    }
    std::vector<Rect> rects;
    for (std::size_t i = 0; i < n; ++i) {
      if (hh[i] <= 0 || hw[i] <= 0) continue;
      const int y = std::clamp(ys[i / cols] + oy[i], 0, H - hh[i]), x = std::clamp(xs[i % cols] + ox[i], 0, W - hw[i]);
      rects.push_back({x, y, std::min(x + hw[i], W), std::min(y + hh[i], H)});
    }
    return std::make_unique<FillRectsOp>(in, std::move(rects), fill_, false, d.stream());
  }

 private:
  double ratio_;
  bool has_unit_, has_number_;
  IntPair unit_{}, number_{};
  bool random_offset_;
  IntPair shift_;
  std::vector<double> fill_;
};

}  // namespace
}  // namespace grid_dropout_impl

StageType grid_dropout_stage() { return stage_type<grid_dropout_impl::GridDropout>(&grid_dropout_impl::grid_dropout_spec); }

}  // namespace aug
