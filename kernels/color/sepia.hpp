// sepia: Albumentations' ToSepia, the fixed 3x3 sepia matrix applied to R, G and B (RGB order):
//     R' = 0.393 R + 0.769 G + 0.189 B
//     G' = 0.349 R + 0.686 G + 0.168 B
//     B' = 0.272 R + 0.534 G + 0.131 B
//   8-bit:  OpenCV's fixed-point cv::transform: the coefficients in Q10, rounded to nearest from
//           their binary32 values (402 787 194 / 357 702 172 / 279 547 134), out = min(255,
//           (sum + 512) >> 10); exact integers.
//   16-bit: the decimal coefficients as exact integers: out = min(65535, (393 R + 769 G + 189 B +
//           500) / 1000), the exact value rounded to nearest, halves up; exact integers.
//   float:  ((0.393f R + 0.769f G) + 0.189f B), each product and sum rounded to binary32 in this
//           order (no FMA), then clamped to [0, 1] (NaN passes through).
// Alpha is copied. Gray images are not passed here (the stage copies them).
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// One output channel, row `Row` (0 R', 1 G', 2 B') of the matrix, of the pixel (r, g, b).
template <int Row>
AUG_HD std::uint8_t sepia_u8(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
  constexpr std::uint32_t cr = Row == 0 ? 402 : (Row == 1 ? 357 : 279);
  constexpr std::uint32_t cg = Row == 0 ? 787 : (Row == 1 ? 702 : 547);
  constexpr std::uint32_t cb = Row == 0 ? 194 : (Row == 1 ? 172 : 134);
  const std::uint32_t v = (cr * r + cg * g + cb * b + 512u) >> 10;
  return static_cast<std::uint8_t>(v > 255u ? 255u : v);
}

template <int Row>
AUG_HD std::uint16_t sepia_u16(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
  constexpr std::uint32_t cr = Row == 0 ? 393 : (Row == 1 ? 349 : 272);
  constexpr std::uint32_t cg = Row == 0 ? 769 : (Row == 1 ? 686 : 534);
  constexpr std::uint32_t cb = Row == 0 ? 189 : (Row == 1 ? 168 : 131);
  const std::uint32_t v = (cr * r + cg * g + cb * b + 500u) / 1000u;  // at most 88,537,785: no overflow
  return static_cast<std::uint16_t>(v > 65535u ? 65535u : v);
}

template <int Row>
AUG_HD float sepia_f32(float r, float g, float b) {
  constexpr float cr = Row == 0 ? 0.393f : (Row == 1 ? 0.349f : 0.272f);
  constexpr float cg = Row == 0 ? 0.769f : (Row == 1 ? 0.686f : 0.534f);
  constexpr float cb = Row == 0 ? 0.189f : (Row == 1 ? 0.168f : 0.131f);
  float v = cr * r;
  v = v + cg * g;
  v = v + cb * b;
  return clamp01(v);
}

// The three outputs of one pixel, in any sample type.
template <class T>
AUG_HD void sepia_pixel(const T* s, T* d) {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    const std::uint32_t r = s[0], g = s[1], b = s[2];
    d[0] = sepia_u8<0>(r, g, b);
    d[1] = sepia_u8<1>(r, g, b);
    d[2] = sepia_u8<2>(r, g, b);
  } else if constexpr (std::is_same_v<T, std::uint16_t>) {
    const std::uint32_t r = s[0], g = s[1], b = s[2];
    d[0] = sepia_u16<0>(r, g, b);
    d[1] = sepia_u16<1>(r, g, b);
    d[2] = sepia_u16<2>(r, g, b);
  } else {
    const float r = s[0], g = s[1], b = s[2];
    d[0] = sepia_f32<0>(r, g, b);
    d[1] = sepia_f32<1>(r, g, b);
    d[2] = sepia_f32<2>(r, g, b);
  }
}

// `in` has 3 or 4 channels (the fourth, alpha, is copied). The CPU backend runs the host driver
// below, the same formulas.
template <class T>
void sepia(View<const T> in, View<T> out, const Exec& exec);

namespace cpu {  // the vectorised host driver (the CPU backend)
template <class T>
void sepia(View<const T> in, View<T> out);
}  // namespace cpu

}  // namespace aug::k
