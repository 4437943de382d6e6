// multiplicative_noise's host driver: the kernels' arithmetic (multiplicative_noise.hpp) row by
// row; elementwise, the row's Philox blocks first (computed across pixels, so that they vectorise),
// then the row's multipliers, then each value.
#include <cstdint>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/multiplicative_noise.hpp"

namespace aug::k::cpu {

namespace multiplicative_noise_cpu_impl {
namespace {

template <class T>
AUG_CLONES void multiply_row(const T* __restrict s, T* __restrict d, const float* __restrict m, int n) {
  for (int i = 0; i < n; ++i) d[i] = multiplied(s[i], m[i]);
}

AUG_CLONES void multipliers(const std::uint32_t* __restrict w, float* __restrict m, int n, float lo, float hi) {
  for (int i = 0; i < n; ++i) m[i] = drawn_multiplier(w[i], lo, hi);
}

}  // namespace
}  // namespace multiplicative_noise_cpu_impl

template <class T>
void multiplicative_noise(View<const T> in, View<T> out, const MultiplyArgs& a) {
  const int W = in.width, C = in.channels, cc = a.color_channels;
  const std::size_t n = static_cast<std::size_t>(W);
  std::vector<std::uint32_t> words(3 * n);
  std::vector<float> drawn(3 * n), m(n * C);
  if (!a.elementwise)  // the same multipliers on every row
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) m[x * C + c] = c < cc ? a.m[c] : 1.0f;
  for (int y = 0; y < in.height; ++y) {
    if (a.elementwise) {
      const std::uint32_t first = static_cast<std::uint32_t>(static_cast<std::size_t>(y) * n);
      philox_blocks(a.stream, first, 1, W, words.data(), words.data() + n, words.data() + 2 * n);
      const int rows = a.per_channel ? cc : 1;
      for (int k = 0; k < rows; ++k) multiplicative_noise_cpu_impl::multipliers(words.data() + k * n, drawn.data() + k * n, W, a.lo, a.hi);
      for (int x = 0; x < W; ++x)
        for (int c = 0; c < C; ++c) m[x * C + c] = c < cc ? drawn[(a.per_channel ? c : 0) * n + x] : 1.0f;
    }
    const T* s = in.row(y);
    T* d = out.row(y);
    multiplicative_noise_cpu_impl::multiply_row(s, d, m.data(), W * C);
    if (cc < C)  // alpha copied (the multiplier 1 would saturate nothing, but floats are not clamped there)
      for (int x = 0; x < W; ++x) d[x * C + 3] = s[x * C + 3];
  }
}

template void multiplicative_noise<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const MultiplyArgs&);
template void multiplicative_noise<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const MultiplyArgs&);
template void multiplicative_noise<float>(View<const float>, View<float>, const MultiplyArgs&);

}  // namespace aug::k::cpu
