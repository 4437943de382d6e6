// posterize and solarize on float images (8- and 16-bit images take the pointwise engine's tables).
//   posterize: L = 2^bits; out = clamp(floor(v * L), 0, L - 1) * (1 / L)   (torchvision, exact)
//   solarize:  out = v >= t ? 1 - v : v                                    (t in binary32)
// Alpha is copied.
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

void posterize_float(View<const float> in, View<float> out, int bits, int color_channels, const Exec& exec);
void solarize_float(View<const float> in, View<float> out, float threshold, int color_channels, const Exec& exec);

}  // namespace aug::k
