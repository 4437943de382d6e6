// shadow: Albumentations 2.x's RandomShadow. The polygons are drawn and rasterised on the host (as
// cv::fillPoly does); the kernels see a per-pixel bit set (bit k: shadow k covers the pixel) and
// darken each colour value by every covering shadow in order: v = trunc(clip(v * keep_k)) in double
// for 8/16-bit samples, keep_k = 1 - intensity_k; float samples: (float)(v * keep_k) clamped to [0, 1].
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

constexpr int kMaxShadows = 16;  // bits of the cover map

struct ShadowArgs {
  AUG_FIELDS(ShadowArgs, cover, keep, count, color_channels)
  const std::uint16_t* cover = nullptr;  // width * height values, row by row
  const double* keep = nullptr;          // count values: 1 - intensity of each shadow, in order
  int count = 0;
  int color_channels = 3;  // later channels (alpha) are copied
};

// One value darkened by one shadow.
template <class T>
AUG_HD T shade_value(T v, double keep) {
  const double r = static_cast<double>(v) * keep;
  if constexpr (std::is_same_v<T, float>) {
    const float f = static_cast<float>(r);
    return f < 0.f ? 0.f : (f > 1.f ? 1.f : f);
  } else {
    const double m = static_cast<double>(SampleTraits<T>::max);
    return static_cast<T>(r < 0 ? 0.0 : (r > m ? m : r));
  }
}

template <class T>
void shadow(View<const T> in, View<T> out, const ShadowArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend): rows copied, then the covered values darkened
template <class T>
void shadow(View<const T> in, View<T> out, const ShadowArgs& args);
}  // namespace cpu

}  // namespace aug::k
