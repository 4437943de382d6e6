// sharpness: torchvision's adjust_sharpness (transforms.v2 arithmetic). The degenerate image is the
// 3x3 kernel [[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13 on the interior pixels; the output is
//   y = settle(x + (1 - f) * (d - x))   interior pixels,   x on the one-pixel border,
// settle = clamp to [0, max] and, for integer images, truncation. Integer images: d is the rounded
// convolution, computed exactly as round((sum of the 8 neighbours + 5 x) / 13) in integers (a
// quotient of 13 is never a tie); float images: d in binary32, taps in row order, and every output
// (border included) clamped to [0, 1]. Images of width or height <= 2 are copied. Alpha is copied.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct SharpnessArgs {
  AUG_FIELDS(SharpnessArgs, rest, color_channels)
  float rest;          // (float)(1 - factor), the difference taken in double
  int color_channels;  // 1 or 3
};

template <class T>
void sharpness(View<const T> in, View<T> out, const SharpnessArgs& args, const Exec& exec);

namespace cpu {  // the vectorised host driver for 8-bit images wider and taller than 2 (the CPU backend)
void sharpness(View<const std::uint8_t> in, View<std::uint8_t> out, const SharpnessArgs& args);
}  // namespace cpu

// The rounded degenerate value of an integer image from the 8 neighbours' sum and the centre.
AUG_HD std::int64_t sharpness_degenerate(std::int64_t neighbours, std::int64_t centre) {
  return (2 * (neighbours + 5 * centre) + 13) / 26;
}

}  // namespace aug::k
