// Per-channel gain, saturating.
//   integer images: out = sat((in * G[c] + 2^15) >> 16), G[c] = RNE(gain[c] * 2^16) (host)
//   float images:   out = clamp(in * gain[c], 0, 1)
// Channels at index >= `color_channels` (alpha) are copied unchanged.
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct GainArgs {
  AUG_FIELDS(GainArgs, fixed, gain, color_channels)
  std::int64_t fixed[4];  // Q16 gains, integer images
  float gain[4];          // float images
  int color_channels;
};

template <class T>
void channel_gain(View<const T> in, View<T> out, const GainArgs& args, const Exec& exec);

// The integer formula of one value.
AUG_HD std::int64_t gain_fixed(std::int64_t v, std::int64_t g) { return round_shift(v * g, 16); }

// One value `s` of channel `c`: the formula above for the sample type, alpha copied.
template <class T>
AUG_HD T gain_value(T s, int c, const GainArgs& a) {
  if (c >= a.color_channels) return s;
  if constexpr (std::is_same_v<T, float>) return clamp01(s * a.gain[c]);
  else return saturate<T>(gain_fixed(s, a.fixed[c]));
}

namespace cpu {  // the vectorised host driver (the CPU backend)
template <class T>
void channel_gain(View<const T> in, View<T> out, const GainArgs& args);
}  // namespace cpu

}  // namespace aug::k
