// mosaic: the image and partners drawn from the run's inputs on a grid of cells (Albumentations
// 2.x's Mosaic; with fit_mode contain and center_range [0, 1], Ultralytics' 2x2 layout).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/stages/mix/mix.hpp"

namespace aug {

namespace mosaic_impl {
namespace {

enum class Fit { Cover, Contain };
const Words<Fit> kFits{{{Fit::Cover, "cover"}, {Fit::Contain, "contain"}}};

const Param<IntPair> kGrid{{.name = "grid_yx",
                            .doc = "the grid's rows and columns",
                            .default_value = nlohmann::json::array({2, 2}),
                            .min = Bound{1},
                            .max = Bound{8},
                            .elements = "[rows, columns]"}};
const Param<IntPair> kTarget{{.name = "target_size",
                              .doc = "the output's size",
                              .default_value = nlohmann::json::array({512, 512}),
                              .min = Bound{1},
                              .max = Bound{16384},
                              .elements = "[height, width]"}};
const Param<IntPair> kCell{{.name = "cell_shape",
                            .doc = "the size of one cell of the grid",
                            .default_value = nlohmann::json::array({512, 512}),
                            .min = Bound{1},
                            .max = Bound{16384},
                            .elements = "[height, width]"}};
const Param<NumberPair> kCenter{{.name = "center_range",
                                 .doc = "where the output's centre falls on the grid, as a fraction of the room "
                                        "it has on each axis (one draw per axis)",
                                 .default_value = nlohmann::json::array({0.3, 0.7}),
                                 .min = Bound{0},
                                 .max = Bound{1},
                                 .ordered = true,
                                 .elements = "[lo, hi]"}};
const Choice<Fit> kFit{kFits, {}, Fit::Cover,
                       {.name = "fit_mode",
                        .doc = "cover: each image scaled to cover its cell, the part towards the centre kept; "
                               "contain: scaled to fit inside, placed against the centre, the rest fill"}};
const Choice<Interp> kInterpolation = resample_interpolation_param();
const Param<std::vector<double>> kFill = fill_param();

const StageSpec& mosaic_spec() {
  static const StageSpec spec{
      .name = "mosaic",
      .family = "mix",
      .summary = "The image and partners drawn from the run's inputs on a grid of cells, cut to the output size; "
                 "labels and masks of all of them (Albumentations' Mosaic; Ultralytics' 2x2 layout with contain).",
      .notes = {"Partners are drawn by the image's key among the whole sorted input list (never the shard), so "
                "--shard, --resume, threads and devices change no byte; the manifest records them. Without other "
                "inputs (a single image, preview) the image fills every cell; verify-devices draws partners from "
                "the images it compares.",
                "Ultralytics' mosaic of size s: grid_yx [2, 2], cell_shape [s, s], target_size [s, s], center_range "
                "[0, 1], fit_mode contain, fill 114 (its images' sizes round up where these round half to even)."},
      .params = {kGrid, kTarget, kCell, kCenter, kFit, kInterpolation, kFill},
      .reads_partners = true,
      .default_p = 0.5,
      .tolerance = {.reason = "each cell is resize's engine (integer arithmetic on 8/16-bit images, the same binary32 "
                              "sums for float) and pixels placed, never computed"},
      .example = {{"stage", "mosaic"}, {"target_size", {640, 640}}, {"cell_shape", {640, 640}}, {"fit_mode", "contain"},
                  {"center_range", {0.0, 1.0}}, {"fill", 114}},
      .cases = {R"({"target_size": [20, 30], "cell_shape": [16, 12]})",
                R"({"target_size": [13, 9], "cell_shape": [7, 11], "fit_mode": "contain", "fill": [10, 200, 30, 128]})",
                R"({"grid_yx": [3, 3], "target_size": [21, 17], "cell_shape": [9, 8], "center_range": [0, 1],)"
                R"( "interpolation": "bicubic"})",
                R"({"grid_yx": [1, 2], "target_size": [6, 25], "cell_shape": [6, 20], "interpolation": "nearest"})"},
      .no_identity = "the output is a new canvas of the cells",
      .bench = {R"({})", R"({"target_size": [1080, 1920], "cell_shape": [1080, 1920], "fit_mode": "contain"})"},
      .arithmetic = R"md(
Albumentations 2.x's Mosaic geometry, drawn from the keyed generator.

- **Grid**: `rows x cols` cells of `cell_shape` (`ch x cw`); the grid is `Hg = rows ch` by `Wg = cols cw`.
  An output (`target_size`, `Ht x Wt`) larger than the grid on an axis has the grid in its middle there
  (`cx = Wt//2 - (Wt - Wg)//2`) and `fill` around it.
- **Centre**: `u = uniform(center_range)` (x first, then y), `cx = Wt//2 + int((Wg - Wt + 1) u)` clamped
  to `[Wt//2, Wg - (Wt + 1)//2]`; the output is the grid's window `[cx - Wt//2, +Wt) x [cy - Ht//2, +Ht)`.
- **Segments**: each cell cut to the window; the one with the largest area (the first in row order
  on a tie) takes the image, the others partners in row order.
- **Partners**: drawn uniformly among the run's other inputs (distinct while there are enough), by
  the image's key, from the whole sorted input list; a partner of another sample type or channel
  count is converted (docs/labels.md).
- **Each cell**: the image scaled by `s = max(ch/h, cw/w)` (cover) or `min(...)` (contain) to
  `max(1, rne(w s)) x max(1, rne(h s))` with resize's engine (`interpolation`; 8-bit bilinear is
  `cv::resize` INTER_LINEAR_EXACT), then the segment's part of it: on each axis, a cell before the
  grid's middle keeps the image's far end (it touches the centre), one after it the near end, the
  middle one (odd grids) the centred part, `floor((new - segment)/2)`. Where the scaled image does not
  reach (contain), `fill`.
- **Labels** of each cell's image are scaled and shifted with it, clipped to its segment, then filtered
  by the labels block (visibility against the scaled object). Label maps are placed the same way
  (nearest, pixel centres), the labels block's `mask_fill` where no map reaches.
)md",
      .imports = {{.name = "Mosaic",
                   .how = "grid_yx, target_size, cell_shape, center_range, fit_mode, interpolation and fill as they are; "
                          "the extra images are drawn from the run's inputs instead of mosaic_metadata",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "mosaic"}};
                     for (const char* key : {"grid_yx", "target_size", "cell_shape", "center_range", "fit_mode"})
                       if (t.has(key)) s[key] = t.saved().at(key);
                     s["interpolation"] = t.interpolation();
                     t.fill(s);
                     return s;
                   },
                   .python = {{"Mosaic", "-",
                               "grid_yx target_size cell_shape center_range fit_mode interpolation mask_interpolation "
                               "fill fill_mask metadata_key p",
                               0.5}}}},
      .counterpart = {.none = "no OpenCV call builds a mosaic"},
  };
  return spec;
}

struct Cell {
  Taken source;  // null partner: the image itself
  bool own = false;  // the image's own cell (the largest); others may repeat it without partners
  int row = 0, col = 0;
  mix::Rect segment;          // on the output
  int w = 0, h = 0;           // the source's size
  int nw = 0, nh = 0;         // scaled
  int ox = 0, oy = 0;         // segment's (0, 0) in the scaled image
};

class MosaicOp final : public Op {
 public:
  MosaicOp(const Shape& in, const Shape& out, std::vector<Cell> cells, nlohmann::json drawn, Interp interp,
           std::vector<double> fill, bool uncovered, bool centred = false)
      : Op(in, out), cells_(std::move(cells)), drawn_(std::move(drawn)), interp_(interp), fill_(std::move(fill)),
        uncovered_(uncovered), centred_(centred) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (uncovered_)  // the output reaches past the grid: fill first
      mix::fill_rect(ctx, out, mix::Rect{0, 0, out.shape.width, out.shape.height}, fill_);
    for (const Cell& c : cells_) {
      if (!mix::has_pixels(c.source)) {  // a partner without a label map: the fill
        mix::fill_rect(ctx, out, c.segment, fill_);
        continue;
      }
      const mix::Source src = mix::source_pixels(ctx, in, c.source);  // one partner at a time
      const ImageRef scaled = mix::resampled(ctx, src.ref, c.nw, c.nh, interp_, centred_);
      mix::place(ctx, scaled, out, c.segment, c.ox, c.oy, fill_);
    }
  }

  nlohmann::json params() const override {
    nlohmann::json j = drawn_;
    nlohmann::json cells = nlohmann::json::array();
    for (const Cell& c : cells_)
      cells.push_back({{"image", c.source.from ? c.source.rel() : std::string()},
                       {"cell", {c.row, c.col}},
                       {"segment", c.segment.json()},
                       {"size", {c.nw, c.nh}},
                       {"offset", {c.ox, c.oy}}});
    j["cells"] = std::move(cells);
    j["interpolation"] = interp_words().name(interp_);
    return j;
  }

  // The image's own cell moves its labels.
  std::vector<Motion> motions() const override {
    for (const Cell& c : cells_)
      if (c.own) return moves(c);
    return {};
  }

  std::vector<PartnerLabels> partner_labels() const override {
    std::vector<PartnerLabels> out;
    for (const Cell& c : cells_)
      if (!c.own) out.push_back(PartnerLabels{c.source.from, moves(c)});
    return out;
  }

  std::unique_ptr<Op> for_mask(const Shape& mask, double fill) const override {
    std::vector<Cell> cells = cells_;
    std::vector<Taken> sources;
    for (const Cell& c : cells_) sources.push_back(c.source);
    const std::vector<Taken> maps = mix::partner_masks(sources, mask);
    for (std::size_t i = 0; i < cells.size(); ++i) cells[i].source = maps[i];
    const Shape out{out_shape().width, out_shape().height, 1, mask.dtype};
    return std::make_unique<MosaicOp>(mask, out, std::move(cells), drawn_, Interp::Nearest, std::vector<double>{fill},
                                      uncovered_, true);
  }

 private:
  std::vector<Motion> moves(const Cell& c) const {
    return mix::placement(c.w, c.h, c.nw, c.nh, c.ox, c.oy, c.segment, out_shape().width, out_shape().height);
  }

  std::vector<Cell> cells_;
  nlohmann::json drawn_;
  Interp interp_;
  std::vector<double> fill_;
  bool uncovered_;  // some of the output lies outside every cell
  bool centred_;
};

// Where a segment's (0, 0) falls in its scaled image on one axis: grid index i of n cells.
int offset_for(int i, int n, int scaled, int segment) {
  const double middle = (n - 1) / 2.0;
  if (i < middle) return scaled - segment;  // before the middle: the far end touches the centre
  if (i > middle) return 0;
  const int d = scaled - segment;
  return d >= 0 ? d / 2 : -((-d + 1) / 2);  // floor division
}

class Mosaic final : public Stage {
 public:
  explicit Mosaic(const StageConfig& c)
      : grid_(c.get(kGrid)), target_(c.get(kTarget)), cell_(c.get(kCell)), center_(c.get(kCenter)),
        fit_(c.get(kFit)), interp_(c.get(kInterpolation)), fill_(c.get(kFill)) {
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override { return resolve_seeing(d, in, DrawInputs{}); }

  std::unique_ptr<Op> resolve_seeing(Draws& d, const Shape& in, const DrawInputs& seen) const override {
    const int rows = static_cast<int>(grid_[0]), cols = static_cast<int>(grid_[1]);
    const int ch = static_cast<int>(cell_[0]), cw = static_cast<int>(cell_[1]);
    const int Ht = static_cast<int>(target_[0]), Wt = static_cast<int>(target_[1]);
    const int Hg = rows * ch, Wg = cols * cw;
    auto centre = [&](int t, int g) {
      const double u = d.uniform(center_[0], center_[1]);
      if (t >= g) return t / 2 - (t - g) / 2;  // an output larger than the grid: the grid in its middle
      const int c = t / 2 + static_cast<int>((g - t + 1) * u);
      return std::clamp(c, t / 2, g - (t + 1) / 2);
    };
    const int cx = centre(Wt, Wg);
    const int cy = centre(Ht, Hg);
    const int x0 = cx - Wt / 2, y0 = cy - Ht / 2;

    std::vector<Cell> cells;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const int sx0 = std::max(c * cw, x0), sx1 = std::min((c + 1) * cw, x0 + Wt);
        const int sy0 = std::max(r * ch, y0), sy1 = std::min((r + 1) * ch, y0 + Ht);
        if (sx1 <= sx0 || sy1 <= sy0) continue;
        Cell cell;
        cell.row = r, cell.col = c;
        cell.segment = {sx0 - x0, sy0 - y0, sx1 - sx0, sy1 - sy0};
        cells.push_back(cell);
      }
    std::size_t own = 0;
    for (std::size_t i = 1; i < cells.size(); ++i)
      if (cells[i].segment.w * cells[i].segment.h > cells[own].segment.w * cells[own].segment.h) own = i;
    std::vector<Taken> partners = draw_partners(d, seen, static_cast<int>(cells.size()) - 1, in);
    const Fit fit = fit_.sample(d);
    const Interp interp = interp_.sample(d);
    for (std::size_t i = 0, next = 0; i < cells.size(); ++i) {
      Cell& c = cells[i];
      if (i != own) c.source = partners[next++];
      else c.source = Taken{nullptr, in.width, in.height, nullptr};
      c.own = i == own;
      c.w = c.source.width;
      c.h = c.source.height;
      const double sx = static_cast<double>(cw) / c.w, sy = static_cast<double>(ch) / c.h;
      const double s = fit == Fit::Cover ? std::max(sx, sy) : std::min(sx, sy);
      c.nw = std::max(1, static_cast<int>(std::nearbyint(c.w * s)));
      c.nh = std::max(1, static_cast<int>(std::nearbyint(c.h * s)));
      c.ox = offset_for(c.col, cols, c.nw, c.segment.w);
      c.oy = offset_for(c.row, rows, c.nh, c.segment.h);
    }
    nlohmann::json drawn{{"grid_yx", {rows, cols}},
                         {"target_size", {Ht, Wt}},
                         {"cell_shape", {ch, cw}},
                         {"center", {cx, cy}},
                         {"fit_mode", kFits.name(fit)},
                         {"partners", mix::partner_names(partners)}};
    const bool uncovered = x0 < 0 || y0 < 0 || x0 + Wt > Wg || y0 + Ht > Hg;
    return std::make_unique<MosaicOp>(in, Shape{Wt, Ht, in.channels, in.dtype}, std::move(cells), std::move(drawn),
                                      interp, fill_, uncovered);
  }

 private:
  IntPair grid_, target_, cell_;
  NumberPair center_;
  Drawn<Fit> fit_;
  Drawn<Interp> interp_;
  std::vector<double> fill_;
};

}  // namespace
}  // namespace mosaic_impl

StageType mosaic_stage() { return stage_type<mosaic_impl::Mosaic>(&mosaic_impl::mosaic_spec); }

}  // namespace aug
