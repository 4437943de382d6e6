// The pointwise engine: stages whose output value depends only on the input value and its channel.
//   8- and 16-bit images: a table per colour channel, built on the host (lib/stages/engines/
//     pointwise.hpp) and applied identically everywhere: out = table[c * entries + in].
//   float images: the stage's own AUG_HD formula f(v, c), run by for_values.
// Channels at index >= `color_channels` (alpha) are copied unchanged.
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// `table` holds color_channels * (max + 1) values of T, channel-major.
template <class T>
void apply_table(View<const T> in, View<T> out, const T* table, int color_channels, const Exec& exec);

namespace cpu {  // the vectorised host driver of apply_table (the CPU backend)
template <class T>
void apply_table(View<const T> in, View<T> out, const T* table, int color_channels);
}  // namespace cpu

template <class T, class F>
struct PerValue {
  AUG_FIELDS(PerValue, in, out, f, color_channels)
  View<const T> in;
  View<T> out;
  F f;
  int color_channels;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = c < color_channels ? f(s[c], c) : s[c];
  }
};

// out = f(in, c) for every value of a colour channel; alpha copied. F: a trivially copyable functor.
template <class T, class F>
void for_values(View<const T> in, View<T> out, const F& f, int color_channels, const Exec& exec, const char* what) {
  for_2d(PerValue<T, F>{in, out, f, color_channels}, out.width, out.height, exec, what);
}

}  // namespace aug::k
