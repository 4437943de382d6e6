// rotate90: the eight elements of the dihedral group D4 as one pixel move. The host composes
// "transpose, then k quarter turns counter-clockwise" into an integer map from output to input
// coordinates, out(x, y) = in(ax*x + bx*y + cx, ay*x + by*y + cy) with coefficients in {-1, 0, 1};
// every channel is copied. Pixels are moved, never computed.
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct IntMap {
  AUG_FIELDS(IntMap, ax, bx, cx, ay, by, cy)
  int ax = 1, bx = 0, cx = 0;
  int ay = 0, by = 1, cy = 0;
};

// The map for an input of width x height: transpose first when `transpose`, then k (0-3) turns.
IntMap rotate90_map(int width, int height, int k, bool transpose);

template <class T>
void rotate90(View<const T> in, View<T> out, IntMap map, const Exec& exec);

}  // namespace aug::k
