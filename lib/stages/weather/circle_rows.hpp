// What the weather stages that fill circles share (fog's particles, sun_flare's circles): the rows
// of a filled cv::circle (8-connected, no shift), without drawing it. OpenCV fills such a circle
// with its integer midpoint walk: row centre + t or centre - t, |t| <= radius, holds the columns
// within half[|t|] of the centre (clipped to the image, which cuts nothing else). The walk below
// visits each octant's spans as OpenCV's does; a row met twice keeps its widest span. The stages'
// reference tests compare against cv::circle.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <vector>

namespace aug {

inline std::vector<int> filled_circle_half_widths(int radius) {
  std::vector<int> half(static_cast<std::size_t>(radius) + 1, 0);
  int err = 0, dx = radius, dy = 0, plus = 1, minus = 2 * radius - 1;
  while (dx >= dy) {
    half[static_cast<std::size_t>(dy)] = std::max(half[static_cast<std::size_t>(dy)], dx);
    half[static_cast<std::size_t>(dx)] = std::max(half[static_cast<std::size_t>(dx)], dy);
    ++dy;
    err += plus;
    plus += 2;
    if (err > 0) {
      err -= minus;
      --dx;
      minus -= 2;
    }
  }
  return half;
}

// A filled circle's span on one row of an image W wide: the columns [x0, x1); false where none.
struct CircleRows {
  int x = 0, y = 0, radius = 0;
  std::vector<int> half;  // filled_circle_half_widths(radius)
  bool span(int row, int W, int& x0, int& x1) const {
    const int t = std::abs(row - y);
    if (t > radius) return false;
    const int h = half[static_cast<std::size_t>(t)];
    x0 = std::max(x - h, 0);
    x1 = std::min(x + h + 1, W);
    return x0 < x1;
  }
};

}  // namespace aug
