// rgb_shift: add a per-channel shift (a fraction of the range).
//   8/16-bit: out = sat(RNE((v / max + shift[c]) * max)) through the pointwise engine's tables
//             (lib/stages/color/rgb_shift.cpp, double on the host)
//   float:    out = clamp(v + shift[c], 0, 1) (here, binary32)
// Alpha is copied.
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct ShiftArgs {
  AUG_FIELDS(ShiftArgs, shift)
  float shift[3];
};

void rgb_shift_float(View<const float> in, View<float> out, const ShiftArgs& args, int color_channels, const Exec& exec);

}  // namespace aug::k
