// invert: out = max - v for 8- and 16-bit images (through the pointwise engine's tables) and
// out = 1 - v for float images (here); alpha is copied.
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

void invert_float(View<const float> in, View<float> out, int color_channels, const Exec& exec);

}  // namespace aug::k
