// sun_flare: Albumentations 2.x's RandomSunFlare ('overlay') on 8-bit values (its uint8_io). The
// circles are drawn and rasterised on the host (cv::circle, filled); every pixel carries the index of
// its cover (which flare circles and which source circles fall on it), and the host tabulates, per
// cover and channel, what the sequence of blends makes of each 8-bit value:
// table[(cover * channels + c) * 256 + q]. The kernels look each value up and give it back in the
// image's type.
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

namespace cpu {  // the host driver (the CPU backend): the same look-ups, a row at a time
template <class T>
void sun_flare(View<const T> in, View<T> out, const SunFlareArgs& args);
}  // namespace cpu

}  // namespace aug::k
