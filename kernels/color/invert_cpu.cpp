// invert's host driver for 8- and 16-bit images: max - v is the bitwise complement of v, so the
// colour channels are complemented and alpha kept by one XOR mask per pixel. The same values as
// the pointwise table the kernels apply (max - v per colour channel, alpha copied).
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/color/invert.hpp"
#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace invert_cpu_impl {
namespace {

// Every value complemented (no alpha).
template <class T>
AUG_CLONES void complement(T* d, const T* s, int n) {
  for (int i = 0; i < n; ++i) d[i] = static_cast<T>(~s[i]);
}

// Pixels of four samples, the last (alpha) kept: one word of 4 samples XOR a mask of ones over the
// first three (little-endian: the first sample is the low one).
template <class T>
AUG_CLONES void complement_rgb_keep_alpha(T* d, const T* s, int pixels) {
  using W = std::conditional_t<sizeof(T) == 1, std::uint32_t, std::uint64_t>;
  constexpr W mask = (W{1} << (24 * sizeof(T))) - 1;
  for (int x = 0; x < pixels; ++x) {
    W w;
    std::memcpy(&w, s + 4 * x, sizeof w);
    w ^= mask;
    std::memcpy(d + 4 * x, &w, sizeof w);
  }
}

}  // namespace
}  // namespace invert_cpu_impl

template <class T>
void invert_integer(View<const T> in, View<T> out, int color_channels) {
  static_assert(sizeof(T) <= 2, "8- and 16-bit images");
  const int C = in.channels;
  for (int y = 0; y < out.height; ++y) {
    const T* s = in.row(y);
    T* d = out.row(y);
    if (color_channels == C) {
      invert_cpu_impl::complement(d, s, out.width * C);
    } else if (C == 4 && color_channels == 3) {
      invert_cpu_impl::complement_rgb_keep_alpha(d, s, out.width);
    } else {
      for (int x = 0; x < out.width; ++x)
        for (int c = 0; c < C; ++c) d[x * C + c] = c < color_channels ? static_cast<T>(~s[x * C + c]) : s[x * C + c];
    }
  }
}

template void invert_integer<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, int);
template void invert_integer<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, int);

}  // namespace aug::k::cpu
