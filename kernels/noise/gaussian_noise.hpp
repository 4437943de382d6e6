// gaussian_noise: additive Gaussian noise per pixel (torchvision v2 GaussianNoise).
//   z      standard_normal (kernels/noise/normal.hpp) of word c of Philox block (pixel index,
//          sub-stream 1) for colour channel c; with per_channel false, word 0 for every channel
//   float  out = v + (mean + sigma z), clamped to [0, 1] when clip
//   8/16   out = sat(RNE(v + (mean + sigma z) max)), binary32, max = 255 or 65535
// mean and sigma are fractions of the range. Alpha is copied.
#pragma once

#include <cstddef>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"
#include "kernels/core/philox.hpp"
#include "kernels/noise/normal.hpp"

namespace aug::k {

struct NoiseArgs {
  AUG_FIELDS(NoiseArgs, stream, normal, mean, sigma, per_channel, clip, color_channels)
  KeyedStream stream;
  const float* normal = nullptr;  // kNormalTableSize entries (ctx.table)
  float mean = 0, sigma = 0.1f;
  bool per_channel = true, clip = true;
  int color_channels = 3;
};

template <class T>
void gaussian_noise(View<const T> in, View<T> out, const NoiseArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend)
template <class T>
void gaussian_noise(View<const T> in, View<T> out, const NoiseArgs& args);
}  // namespace cpu

// One value v plus the noise n (units of the range).
template <class T>
AUG_HD T noisy_value(T v, float n, bool clip) {
  if constexpr (std::is_same_v<T, float>) {
    const float y = v + n;
    return clip ? clamp01(y) : y;
  } else {
    return saturate<T>(rne(static_cast<float>(v) + n * static_cast<float>(SampleTraits<T>::max)));
  }
}

}  // namespace aug::k
