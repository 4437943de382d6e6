// autocontrast: torchvision's autocontrast (v2), per colour channel.
//   1. lo[c], hi[c]: the channel's minimum and maximum, as binary32: each run of 64 pixels of a
//      row takes its own, then atomically the row's, and each row the channel's (atomic minimum
//      and maximum of keys that order as the floats do: exact, whatever order the items run in).
//   2. per value, in binary32 (bound = max of the type, 1 for float images; inv = (float)(1.0 / bound)):
//        hi == lo: m = 0, s = 1;  otherwise m = lo, s = (hi - lo) * inv
//        r = clamp((v - m) / s, 0, bound)    (an IEEE division)
//      integer images: out = (T)r truncated toward zero, through a table of every value built by a
//      kernel from lo/hi; float images: out = r.
// Alpha is copied. NaN samples do not take part in the minimum and maximum.
#pragma once

#include <cstddef>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

AUG_HD float autocontrast_value(float v, float lo, float hi, float bound, float inv_bound) {
  float m = lo, s = (hi - lo) * inv_bound;
  if (hi == lo) {
    m = 0.f;
    s = 1.f;
  }
  float r = (v - m) / s;
  r = r < 0.f ? 0.f : r;
  return r > bound ? bound : r;
}

template <class T>
std::size_t autocontrast_scratch_bytes(int height, int color_channels);

template <class T>
void autocontrast(View<const T> in, View<T> out, int color_channels, Scratch& scratch, const Exec& exec);

}  // namespace aug::k
