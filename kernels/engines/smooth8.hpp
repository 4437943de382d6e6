// smooth8: cv::GaussianBlur's 8-bit fixed-point arithmetic with a symmetric kernel of n (odd) 8-bit
// taps k[0..n) summing to 256, the same on both axes:
//   H[y][x] = sum_i k[i] * p[y][bx(x + i - r)]                  exact, <= 65280
//   out     = (sum_j k[j] * H[by(y + j - r)][x] + 2^15) >> 16    exact, <= 255
// with r = n / 2 and bx, by border_index for the border (a tap outside the image under a constant
// border contributes 0). Every sum is of whole numbers, so any order gives the same values. Host
// only (the CPU backend); the kernels compute the same with the separable engine's tables.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"

namespace aug::k::cpu {

// Whether smooth8 can run here (AVX-512 BW and VNNI; the caller has another way otherwise).
bool smooth8_available();

// `in` and `out` the same shape, distinct. Returns false, writing nothing, when smooth8_available()
// is false or the kernel is not symmetric with 8-bit taps summing to 256.
bool smooth8(View<const std::uint8_t> in, View<std::uint8_t> out, const std::uint16_t* k, int n, int border);

}  // namespace aug::k::cpu
