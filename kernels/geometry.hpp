// Pixel-moving kernels: flip and crop (a crop at (0, 0) of the full size is a copy).
#pragma once

#include "common.hpp"
#include "launch.hpp"

namespace aug::k {

// out(x, y) = in(horizontal ? W-1-x : x, vertical ? H-1-y : y), every channel.
template <class T>
void flip(View<const T> in, View<T> out, bool horizontal, bool vertical, const Exec& exec);

// out(x, y) = in(x + x0, y + y0), every channel; `out` gives the size.
template <class T>
void crop(View<const T> in, View<T> out, int x0, int y0, const Exec& exec);

}  // namespace aug::k
