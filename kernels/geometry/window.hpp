// window: out(x, y) = in(ix(x), iy(y)), every channel, where each axis maps an output position
// through up to two nested paddings of the input (the shared body of pad and crop):
//   q = border_index(p + origin - outer_before, mid_len, border)   (the outer padding's frame)
//   i = border_index(q - inner_before, len, border)                (the input)
// with mid_len = len + the inner padding on both sides. Either level returning -1 (constant border
// outside) gives the channel's fill. One level (pad) sets outer_before = 0 and mid_len to the
// output's extent, where the outer level is the identity; a plain crop sets both paddings to 0.
#pragma once

#include "kernels/core/border.hpp"
#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct WindowAxis {
  AUG_FIELDS(WindowAxis, origin, outer_before, mid_len, inner_before, len)
  int origin = 0;        // output position 0 sits here in the outer frame
  int outer_before = 0;  // padding added before the middle frame (left or top)
  int mid_len = 0;       // length of the middle frame (the input with its inner padding)
  int inner_before = 0;  // padding added before the input
  int len = 0;           // the input's length

  AUG_HD int index(int p, int border) const {
    const int q = border_index(p + origin - outer_before, mid_len, border);
    if (q < 0) return -1;
    return border_index(q - inner_before, len, border);
  }
};

// The fill of each channel (up to 4), already saturated to the sample type, passed by value.
template <class T>
struct WindowFill {
  AUG_FIELDS(WindowFill, value)
  T value[4];
};

// The CPU backend runs the host driver below (the same map, rows copied in runs).
template <class T>
void window(View<const T> in, View<T> out, WindowAxis x, WindowAxis y, int border, WindowFill<T> fill,
            const Exec& exec);

namespace cpu {  // the host driver (the CPU backend)
template <class T>
void window(View<const T> in, View<T> out, WindowAxis x, WindowAxis y, int border, WindowFill<T> fill);
}  // namespace cpu

}  // namespace aug::k
