// The body of the stages that move pixels without computing any (flip, crop): output (x, y) takes
// every channel of input (x0 + dx * x, y0 + dy * y), with dx, dy = +1 or -1.
#pragma once

#include "kernels/core/common.hpp"

namespace aug::k {

template <class T>
struct MovePixels {
  AUG_FIELDS(MovePixels, in, out, x0, dx, y0, dy)
  View<const T> in;
  View<T> out;
  int x0, dx, y0, dy;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y0 + dy * y) + (x0 + dx * x) * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = s[c];
  }
};

}  // namespace aug::k
