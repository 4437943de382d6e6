// multiplicative_noise's host driver: the kernels' arithmetic (multiplicative_noise.hpp) row by
// row; elementwise, the row's Philox blocks first (computed across pixels, so that they vectorise),
// then the row's multipliers, then each value. With AVX2, RGB rows with a word per channel get their
// multipliers eight pixels at a time, interleaved in registers, and 8/16-bit rows are multiplied
// with explicit vectors: the same binary32 operations lane by lane.
#include <cstdint>
#include <type_traits>
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

#if defined(AUG_AVX2_PHILOX)
// drawn_multiplier of eight words: lo + uniform01f(w) (hi - lo).
[[gnu::target("avx2"), gnu::always_inline]] inline __m256 multiplier8(const std::uint32_t* w, __m256 lo, __m256 span) {
  const __m256i bits = _mm256_srli_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)), 8);
  const __m256 u = _mm256_mul_ps(_mm256_cvtepi32_ps(bits), _mm256_set1_ps(1.0f / 16777216.0f));
  return _mm256_add_ps(lo, _mm256_mul_ps(u, span));
}

// m[3 x + c] = the multiplier of word c of block x.
[[gnu::target("avx2")]] void multipliers_rgb_avx2(const std::uint32_t* w0, const std::uint32_t* w1,
                                                  const std::uint32_t* w2, float* m, int width, float lo, float hi) {
  const __m256 lov = _mm256_set1_ps(lo), span = _mm256_set1_ps(hi - lo);
  int x = 0;
  for (; x + 8 <= width; x += 8)
    interleave3_avx2(multiplier8(w0 + x, lov, span), multiplier8(w1 + x, lov, span), multiplier8(w2 + x, lov, span),
                     m + 3 * static_cast<std::size_t>(x));
  for (float* mx = m + 3 * static_cast<std::size_t>(x); x < width; ++x, mx += 3) {
    mx[0] = drawn_multiplier(w0[x], lo, hi);
    mx[1] = drawn_multiplier(w1[x], lo, hi);
    mx[2] = drawn_multiplier(w2[x], lo, hi);
  }
}

// multiplied's 8/16-bit formula: max(0, y) and min(max, y) are its two selects (NaN passing
// through, then converted to 0 like the scalar cast and the saturating packs); truncation.
template <class T>
[[gnu::target("avx2")]] void multiply_row_avx2(const T* s, T* d, const float* m, int n) {
  const __m256 zero = _mm256_setzero_ps(), max = _mm256_set1_ps(static_cast<float>(SampleTraits<T>::max));
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i q[2];
    for (int h = 0; h < 2; ++h) {
      __m256i v;
      if constexpr (std::is_same_v<T, std::uint8_t>)
        v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + i + 8 * h)));
      else v = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 8 * h)));
      const __m256 y = _mm256_mul_ps(_mm256_cvtepi32_ps(v), _mm256_loadu_ps(m + i + 8 * h));
      q[h] = _mm256_cvttps_epi32(_mm256_min_ps(max, _mm256_max_ps(zero, y)));
    }
    const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(q[0], q[1]), 0xD8);  // packs work per half
    if constexpr (std::is_same_v<T, std::uint8_t>)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i),
                       _mm_packus_epi16(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1)));
    else _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), p);
  }
  for (; i < n; ++i) d[i] = multiplied(s[i], m[i]);
}
#endif

template <class T>
void multiply(const T* s, T* d, const float* m, int n) {
#if defined(AUG_AVX2_PHILOX)
  if constexpr (!std::is_same_v<T, float>)
    if (host_has_avx2()) return multiply_row_avx2(s, d, m, n);
#endif
  multiply_row(s, d, m, n);
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
#if defined(AUG_AVX2_PHILOX)
      if (C == 3 && cc == 3 && a.per_channel && host_has_avx2()) {
        multiplicative_noise_cpu_impl::multipliers_rgb_avx2(words.data(), words.data() + n, words.data() + 2 * n,
                                                            m.data(), W, a.lo, a.hi);
      } else
#endif
      {
        const int rows = a.per_channel ? cc : 1;
        for (int k = 0; k < rows; ++k) multiplicative_noise_cpu_impl::multipliers(words.data() + k * n, drawn.data() + k * n, W, a.lo, a.hi);
        for (int x = 0; x < W; ++x)
          for (int c = 0; c < C; ++c) m[x * C + c] = c < cc ? drawn[(a.per_channel ? c : 0) * n + x] : 1.0f;
      }
    }
    const T* s = in.row(y);
    T* d = out.row(y);
    multiplicative_noise_cpu_impl::multiply(s, d, m.data(), W * C);
    if (cc < C)  // alpha copied (the multiplier 1 would saturate nothing, but floats are not clamped there)
      for (int x = 0; x < W; ++x) d[x * C + 3] = s[x * C + 3];
  }
}

template void multiplicative_noise<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const MultiplyArgs&);
template void multiplicative_noise<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const MultiplyArgs&);
template void multiplicative_noise<float>(View<const float>, View<float>, const MultiplyArgs&);

}  // namespace aug::k::cpu
