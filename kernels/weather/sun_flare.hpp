// sun_flare: Albumentations 2.x's RandomSunFlare ('overlay') on 8-bit values (its uint8_io). The
// circles are drawn and rasterised on the host (cv::circle, filled); every pixel carries the index of
// its cover (which flare circles and which source circles fall on it), and the host tabulates, per
// cover and channel, what the sequence of blends makes of each 8-bit value:
// table[(cover * channels + c) * 256 + q]. The kernels look each value up and give it back in the
// image's type. The physics_based method: the host builds the blurred flare layer (binary32, one
// value per pixel and channel) and the kernels screen-blend it over the 8-bit values:
// trunc(clip(255 - (255 - q) (255 - layer) / 255, 0, 255)), every step in binary32.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"
#include "kernels/core/uint8_io.hpp"  // to_u8_io, from_u8_io

namespace aug::k {

struct SunFlareArgs {
  AUG_FIELDS(SunFlareArgs, cover, table)
  const std::uint16_t* cover = nullptr;  // width * height values, row by row
  const std::uint8_t* table = nullptr;   // covers * channels * 256 values
};

template <class T>
void sun_flare(View<const T> in, View<T> out, const SunFlareArgs& args, const Exec& exec);

struct SunFlareScreenArgs {
  AUG_FIELDS(SunFlareScreenArgs, layer)
  const float* layer = nullptr;  // width * height * channels values, row by row
};

// Albumentations' screen blend of one 8-bit value q under the layer value f, clipped and truncated.
AUG_HD int sun_flare_screen_value(int q, float f) {
  const float v = 255.f - (static_cast<float>(255 - q) * (255.f - f)) / 255.f;
  return static_cast<int>(v < 0.f ? 0.f : (v > 255.f ? 255.f : v));
}

template <class T>
void sun_flare_screen(View<const T> in, View<T> out, const SunFlareScreenArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend): the same look-ups, a row at a time
template <class T>
void sun_flare(View<const T> in, View<T> out, const SunFlareArgs& args);
template <class T>
void sun_flare_screen(View<const T> in, View<T> out, const SunFlareScreenArgs& args);
}  // namespace cpu

}  // namespace aug::k
