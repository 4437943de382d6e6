// box_blur: the mean of the k x k window around every pixel (k odd), each channel alone, the image
// extended by reflection without repeating the edge (...cb|abc|ba..., OpenCV's BORDER_REFLECT_101).
//   8/16-bit: S = the exact integer sum of the k*k values; out = floor((S + floor(d / 2)) / d) with
//             d = k*k, the mean rounded to nearest (d is odd, so no mean lies half-way). The quotient
//             is taken by a multiply and a shift (BoxDivisor), exact while S + d / 2 <= 2^31.
//   float:    H = each window row's k values summed left to right in double, S = the k row sums
//             added top to bottom in double, out = (float)(S * (1.0 / d)).
// The kernel bodies sum each window directly (a horizontal pass into scratch, then a vertical one);
// the CPU backend's host driver (box_blur_cpu.cpp) keeps running sums, which for integer images
// give the same exact sums, and for float images sums the window in the bodies' order.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// floor((s + add) / d) as ((s + add) * mul) >> shift, with add = floor(d / 2),
// shift = 32 + floor(log2 d) and mul = ceil(2^shift / d) <= 2^32 - 1 (d odd and > 1). Writing
// x = s + add and e = mul * d - 2^shift (0 <= e < d): x * mul / 2^shift = x / d + x * e / (d * 2^shift),
// and the second term is below 1/d, which keeps the quotient, whenever x * d <= 2^shift; since
// 2^shift / d > 2^31, every x <= 2^31 qualifies: every 8-bit and 16-bit window sum up to 181 x 181.
struct BoxDivisor {
  AUG_FIELDS(BoxDivisor, add, mul, shift)
  std::uint32_t add = 0;
  std::uint32_t mul = 1;
  int shift = 0;
};

// The divisor of a k x k window (k odd, >= 1): host and device compute it alike.
AUG_HD BoxDivisor box_divisor(int ksize) {
  const std::uint64_t d = static_cast<std::uint64_t>(ksize) * static_cast<std::uint64_t>(ksize);
  BoxDivisor b;
  if (d == 1) return b;  // mul 1, shift 0: the value itself
  int lg = 0;
  while ((std::uint64_t{2} << lg) <= d) ++lg;  // floor(log2 d)
  b.shift = 32 + lg;
  b.mul = static_cast<std::uint32_t>(((std::uint64_t{1} << b.shift) + d - 1) / d);
  b.add = static_cast<std::uint32_t>(d / 2);
  return b;
}

// The rounded mean of a window whose integer sum is s.
AUG_HD std::uint32_t box_mean(std::uint32_t s, const BoxDivisor& b) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(s + b.add) * b.mul) >> b.shift);
}

// `scratch` holds the bodies' intermediate plane (W x H x C sums); the CPU backend's driver needs none.
template <class T>
void box_blur(View<const T> in, View<T> out, int ksize, Scratch& scratch, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend)
template <class T>
void box_blur(View<const T> in, View<T> out, int ksize);
}  // namespace cpu

}  // namespace aug::k
