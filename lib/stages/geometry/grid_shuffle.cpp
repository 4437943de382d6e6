// grid_shuffle: Albumentations' RandomGridShuffle, the image cut into a grid and its cells of the
// same size shuffled among themselves (docs/stages/geometry.md#grid_shuffle).
#include <algorithm>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

#include "kernels/geometry/tile_shuffle.hpp"
#include "lib/stages/engines/numpy_like.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace grid_shuffle_impl {
namespace {

const Param<IntPair> kGrid{{.name = "grid",
                            .doc = "the grid's [rows, columns]",
                            .default_value = {3, 3},
                            .min = Bound{1},
                            .max = Bound{256},
                            .elements = "[rows, columns]"}};

const StageSpec& grid_shuffle_spec() {
  static const StageSpec spec{
      .name = "grid_shuffle",
      .family = "geometry",
      .summary = "Cut the image into a grid and shuffle its cells among those of the same size (Albumentations "
                 "RandomGridShuffle); labels move with their cells.",
      .notes = {"As Albumentations' RandomGridShuffle (2.x): each side is cut into parts as equal as they can be "
                "(the first H mod rows one pixel taller), the parts' order shuffled, rows first, then columns; the "
                "cells of each size are permuted among themselves, every permutation alike. Pixels are moved, never "
                "computed. The manifest records the row heights, the column widths and, per cell in row-major "
                "order, the cell it moves to.",
                "Labels move with their cells: keypoints exactly; boxes and polygons are cut into their pieces in "
                "each cell, and pieces that no longer touch become objects of their own, each judged by "
                "min_visibility as its share of the object (Albumentations' per-component boxes); an object with "
                "keypoints, an oriented box or an object mask stays one object around all its pieces. Label maps "
                "are shuffled with the image. Albumentations' default p is 0.5, this stage's too."},
      .params = {kGrid},
      .default_p = 0.5,
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "grid_shuffle"}, {"grid", {3, 3}}, {"p", 0.5}},
      .cases = {R"({})", R"({"grid": [2, 5]})", R"({"grid": [7, 4]})", R"({"grid": [1, 2]})"},
      .identity = R"({"grid": 1})",
      .bench = {R"({})", R"({"grid": [8, 8]})"},
      .arithmetic = R"md(
Albumentations' **RandomGridShuffle** (2.x; default `grid` (3, 3), `p` 0.5), with the stage's draws.

- **Cells**: `almost_equal_intervals(H, rows)`: `rows` parts of `H // rows`, the first `H % rows`
  one larger; the parts shuffled (Fisher-Yates, `j = integer(0, i)` from the last), their cumulative
  sums the row edges; then the columns alike. Cell `(i, j)` (row-major index `i * cols + j`) is
  `[x_j, x_{j+1}) x [y_i, y_{i+1})`.
- **Mapping**: cells grouped by their size `(h, w)` in the order each size first appears; each
  group's cells permuted uniformly (Fisher-Yates as above); `mapping[cell] = the cell it moves to`.
  The output's cell `mapping[t]` is a copy of the input's cell `t`
  (`kernels/geometry/tile_shuffle.hpp`; the CPU backend copies each cell's row pieces).
- **Labels**: keypoints move with their cell. Boxes and polygons are cut by the cells (Sutherland-
  Hodgman), each piece moved with its cell; pieces whose bounds no longer meet become separate
  objects, each keeping the whole object's area as its reference for min_visibility. Albumentations
  (2.x) rasterises each box, shuffles it and takes each 8-connected component's bounds: the same
  pieces for boxes, whose cells meet at pixel edges. Objects with keypoints, oriented boxes and object
  masks are not split (their box is the bounds of every piece). Label maps take the same cells.
- The manifest records `row_heights`, `col_widths` (in order, after shuffling) and `mapping`.
)md",
      .imports = {
          {.name = "RandomGridShuffle",
           .how = "grid (rows, columns)",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "grid_shuffle"}};
            if (t.has("grid")) {
              const nlohmann::json& g = t.saved().at("grid");
              if (!g.is_array() || g.size() != 2 || !g[0].is_number_integer() || !g[1].is_number_integer())
                t.fail("grid must be two integers (rows, columns), not " + g.dump());
              s["grid"] = ispan(g[0].get<double>(), g[1].get<double>());
            }
            return s;
          },
           .python = {{"RandomGridShuffle", "grid always_apply p", "grid p", 0.5}}}},
      .counterpart = {.none = "OpenCV has no cell shuffle; each cell's cv::Mat::copyTo would time the same copies"},
  };
  return spec;
}

// Cells of one grid and where each goes.
struct Layout {
  std::vector<int> heights, widths;  // in order, after shuffling
  std::vector<int> mapping;          // per input cell (row-major): the output cell it becomes
};

class GridShuffleOp final : public Op {
 public:
  GridShuffleOp(const Shape& s, Layout layout) : Op(s, s), l_(std::move(layout)) {
    const int rows = static_cast<int>(l_.heights.size()), cols = static_cast<int>(l_.widths.size());
    row_start_.assign(1, 0);
    for (int h : l_.heights) row_start_.push_back(row_start_.back() + h);
    col_start_.assign(1, 0);
    for (int w : l_.widths) col_start_.push_back(col_start_.back() + w);
    for (int r = 0; r < rows; ++r)
      for (int y = row_start_[r]; y < row_start_[r + 1]; ++y) row_tile_.push_back(r);
    for (int c = 0; c < cols; ++c)
      for (int x = col_start_[c]; x < col_start_[c + 1]; ++x) col_tile_.push_back(c);
    off_x_.assign(static_cast<std::size_t>(rows) * cols, 0);
    off_y_.assign(static_cast<std::size_t>(rows) * cols, 0);
    for (int t = 0; t < rows * cols; ++t) {
      const int o = l_.mapping[t];  // input cell t becomes output cell o
      off_x_[o] = col_start_[t % cols] - col_start_[o % cols];
      off_y_[o] = row_start_[t / cols] - row_start_[o / cols];
    }
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::TileShuffleArgs a;
    a.row_tile = ctx.table(row_tile_);
    a.col_tile = ctx.table(col_tile_);
    a.col_start = ctx.table(col_start_);
    a.off_x = ctx.table(off_x_);
    a.off_y = ctx.table(off_y_);
    a.cols = static_cast<int>(l_.widths.size());
    with_views(in, out, [&](auto src, auto dst) { k::tile_shuffle(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{"row_heights", l_.heights}, {"col_widths", l_.widths}, {"mapping", l_.mapping}};
  }

  std::optional<Motion> motion() const override {
    Motion m;
    m.out_width = in_shape().width;
    m.out_height = in_shape().height;
    const int cols = static_cast<int>(l_.widths.size());
    for (std::size_t t = 0; t < l_.mapping.size(); ++t) {
      const int r = static_cast<int>(t) / cols, c = static_cast<int>(t) % cols, o = l_.mapping[t];
      m.tiles.push_back({static_cast<double>(col_start_[c]), static_cast<double>(row_start_[r]),
                         static_cast<double>(col_start_[c + 1]), static_cast<double>(row_start_[r + 1]),
                         static_cast<double>(col_start_[o % cols] - col_start_[c]),
                         static_cast<double>(row_start_[o / cols] - row_start_[r])});
    }
    return m;
  }

  std::unique_ptr<Op> for_mask(const Shape& mask, double) const override {
    return std::make_unique<GridShuffleOp>(mask, l_);
  }

 private:
  Layout l_;
  std::vector<int> row_start_, col_start_, row_tile_, col_tile_, off_x_, off_y_;
};

class GridShuffle final : public Stage {
 public:
  explicit GridShuffle(const StageConfig& c) : grid_(c.get(kGrid)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int rows = static_cast<int>(grid_[0]), cols = static_cast<int>(grid_[1]);
    Layout l;
    const std::vector<int> ys = shuffled_splits(in.height, rows, d), xs = shuffled_splits(in.width, cols, d);
    for (int r = 0; r < rows; ++r) l.heights.push_back(ys[r + 1] - ys[r]);
    for (int c = 0; c < cols; ++c) l.widths.push_back(xs[c + 1] - xs[c]);
    // Cells grouped by size, in the order each size first appears; each group permuted.
    std::vector<std::pair<std::pair<int, int>, std::vector<int>>> groups;
    for (int t = 0; t < rows * cols; ++t) {
      const std::pair<int, int> size{l.heights[static_cast<std::size_t>(t / cols)], l.widths[static_cast<std::size_t>(t % cols)]};
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == size; });
      if (it == groups.end()) groups.push_back({size, {t}});
      else it->second.push_back(t);
    }
    l.mapping.assign(static_cast<std::size_t>(rows) * cols, 0);
    for (auto& [size, cells] : groups) {
      std::vector<int> to = cells;
      numpy_shuffle(to, d);
      for (std::size_t k = 0; k < cells.size(); ++k) l.mapping[static_cast<std::size_t>(cells[k])] = to[k];
    }
    return std::make_unique<GridShuffleOp>(in, std::move(l));
  }

 private:
  IntPair grid_;
};

}  // namespace
}  // namespace grid_shuffle_impl

StageType grid_shuffle_stage() {
  return stage_type<grid_shuffle_impl::GridShuffle>(&grid_shuffle_impl::grid_shuffle_spec);
}

}  // namespace aug
