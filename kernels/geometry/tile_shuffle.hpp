// tile_shuffle: the image cut into a grid of tiles, each output tile a copy of an input tile of the
// same size (grid_shuffle). Output pixel (x, y) lies in the output tile o = row_tile[y] * cols +
// col_tile[x] and takes the input pixel (x + off_x[o], y + off_y[o]). Values are moved, never
// computed: every backend gives the same bytes.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct TileShuffleArgs {
  AUG_FIELDS(TileShuffleArgs, row_tile, col_tile, col_start, off_x, off_y, cols)
  const int* row_tile = nullptr;   // height entries: the tile row of output row y (ctx.table)
  const int* col_tile = nullptr;   // width entries: the tile column of output column x
  const int* col_start = nullptr;  // cols + 1 entries: the first column of each tile column, then the width
  const int* off_x = nullptr;      // rows * cols entries, per output tile: input minus output position
  const int* off_y = nullptr;
  int cols = 1;
};

template <class T>
void tile_shuffle(View<const T> in, View<T> out, const TileShuffleArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend)
template <class T>
void tile_shuffle(View<const T> in, View<T> out, const TileShuffleArgs& args);
}  // namespace cpu

}  // namespace aug::k
