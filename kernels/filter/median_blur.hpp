// median_blur: the median of the k x k window around every pixel, each channel alone, with the
// image extended by replicating its edge pixels (...aa|abc|cc...), k odd.
// The median is selected bit by bit from the top (a radix selection): with m = (k*k - 1) / 2, each
// pass counts the window's values that agree with the bits fixed so far and have a 0 in the next
// bit, and fixes that bit to 0 when more than m - (values already below) of them remain, to 1
// otherwise. 8 passes over the window for 8-bit images, 16 for 16-bit, 32 for float (whose values
// are compared through the order-preserving map of their bit patterns: -0 sorts below +0, NaN is
// not a number to sort). No local arrays, exact for every k; the cost grows as 8, 16 or 32 k^2.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

template <class T>
void median_blur(View<const T> in, View<T> out, int ksize, const Exec& exec);

// The unsigned key whose integer order is the order of the sample values.
template <class T>
AUG_HD std::uint32_t median_key(T v) {
  if constexpr (std::is_same_v<T, float>) {
#if defined(__CUDA_ARCH__)
    const std::uint32_t u = __float_as_uint(v);
#else
    std::uint32_t u;
    std::memcpy(&u, &v, sizeof u);
#endif
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  } else {
    return static_cast<std::uint32_t>(v);
  }
}
template <class T>
AUG_HD T median_value(std::uint32_t key) {
  if constexpr (std::is_same_v<T, float>) {
    const std::uint32_t u = (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float v;
    std::memcpy(&v, &u, sizeof v);
    return v;
#endif
  } else {
    return static_cast<T>(key);
  }
}

}  // namespace aug::k
