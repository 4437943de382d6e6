// multiplicative_noise: every colour value times a multiplier (Albumentations' MultiplicativeNoise).
//   multiplier  elementwise: m = lo + uniform01f(word) (hi - lo), binary32, word c of Philox block
//               (pixel index, sub-stream 1) for colour channel c (word 0 for every channel without
//               per_channel); otherwise m[c], drawn per image on the host
//   8/16        out = trunc(min(max((float)v * m, 0), max)), binary32 (Albumentations' clip and cast)
//   float       out = clamp01(v * m)
// Alpha is copied. The 8/16-bit images without elementwise go through the pointwise engine's table
// of the same formula (lib/stages/noise/multiplicative_noise.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"
#include "kernels/core/philox.hpp"

namespace aug::k {

struct MultiplyArgs {
  AUG_FIELDS(MultiplyArgs, stream, lo, hi, m, elementwise, per_channel, color_channels)
  KeyedStream stream;
  float lo = 0.9f, hi = 1.1f;
  float m[4] = {1, 1, 1, 1};
  bool elementwise = false, per_channel = false;
  int color_channels = 3;
};

template <class T>
void multiplicative_noise(View<const T> in, View<T> out, const MultiplyArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend)
template <class T>
void multiplicative_noise(View<const T> in, View<T> out, const MultiplyArgs& args);
}  // namespace cpu

// One value times m.
template <class T>
AUG_HD T multiplied(T v, float m) {
  const float y = static_cast<float>(v) * m;
  if constexpr (std::is_same_v<T, float>) {
    return clamp01(y);
  } else {
    const float max = static_cast<float>(SampleTraits<T>::max);
    const float c = y < 0.f ? 0.f : (y > max ? max : y);
    return static_cast<T>(static_cast<std::int32_t>(c));  // truncation, as numpy's astype
  }
}

// The elementwise multiplier of a word.
AUG_HD float drawn_multiplier(std::uint32_t word, float lo, float hi) { return lo + uniform01f(word) * (hi - lo); }

}  // namespace aug::k
