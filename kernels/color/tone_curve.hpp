// tone_curve: Albumentations' RandomToneCurve. 8- and 16-bit images take a per-channel table built on
// the host (the pointwise engine); float images are quantised to 8 bits and read the 8-bit table
// (Albumentations 2.x's uint8_io): out = (float)lut[c][clamp(rint(v * 255), 0, 255)] / 255.f. Alpha is
// copied.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// `lut`: color_channels tables of 256 values, channel-major.
void tone_curve_float(View<const float> in, View<float> out, const std::uint8_t* lut, int color_channels,
                      const Exec& exec);

}  // namespace aug::k
