// channel_dropout: Albumentations' ChannelDropout, the colour channels whose bit is set in `dropped`
// are set to `fill` (already in the sample type: RNE(fill * max) for 8/16-bit images); the others
// and alpha are copied. Values are moved or set, never computed.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

template <class T>
struct ChannelDropoutArgs {
  AUG_FIELDS(ChannelDropoutArgs, dropped, fill)
  int dropped;  // bit c: colour channel c takes `fill`
  T fill;
};

// The pixel at s into d.
template <class T>
AUG_HD void channel_dropout_pixel(const T* s, T* d, int channels, const ChannelDropoutArgs<T>& a) {
  for (int c = 0; c < channels; ++c) d[c] = (a.dropped >> c) & 1 ? a.fill : s[c];
}

// `in` has 3 or 4 channels. The CPU backend runs the host driver below (the same values).
template <class T>
void channel_dropout(View<const T> in, View<T> out, const ChannelDropoutArgs<T>& args, const Exec& exec);

namespace cpu {  // the vectorised host driver (the CPU backend)
template <class T>
void channel_dropout(View<const T> in, View<T> out, const ChannelDropoutArgs<T>& args);
}  // namespace cpu

}  // namespace aug::k
