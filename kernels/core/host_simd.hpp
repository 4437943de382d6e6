// What the vectorised host drivers (kernels/*/*_cpu.cpp) share: AVX2 clones of hot row loops,
// eight-lane binary32 vectors and the weighted sums of the float filters. Host code only.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AUG_AVX2_PHILOX 1
#endif

#include "kernels/core/common.hpp"
#include "kernels/core/philox.hpp"

// Hot loops get an AVX2 clone next to the baseline one; the loader picks per machine. Not under
// GCC's ThreadSanitizer: the clones' resolver is instrumented and runs while the dynamic loader
// relocates the program, before the TSan runtime exists, and crashes it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define AUG_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define AUG_CLONES
#endif

namespace aug::k::cpu {
// Each driver's translation unit gets its own copies (internal linkage), so the clones never clash.
namespace {

// Eight binary32 lanes (GCC/Clang vector extension): lane-wise IEEE operations, never contracted.
using f8 = float __attribute__((vector_size(32)));

[[maybe_unused]] void load8(f8& v, const float* p) { std::memcpy(&v, p, sizeof v); }

// out[i] = sum_k w[k] * src(k)[i] in binary32, terms added in k order from 0: per lane, as the
// kernels' loops. Four vectors at a time keep four independent sums in flight.
template <class Src>
[[gnu::always_inline]] inline void weighted_sum(float* out, Src src, int n, const float* w, int taps) {
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    f8 a0 = {}, a1 = {}, a2 = {}, a3 = {};
    for (int k = 0; k < taps; ++k) {
      const float* p = src(k) + i;
      f8 v0, v1, v2, v3;
      load8(v0, p);
      load8(v1, p + 8);
      load8(v2, p + 16);
      load8(v3, p + 24);
      a0 = a0 + w[k] * v0;
      a1 = a1 + w[k] * v1;
      a2 = a2 + w[k] * v2;
      a3 = a3 + w[k] * v3;
    }
    std::memcpy(out + i, &a0, sizeof a0);
    std::memcpy(out + i + 8, &a1, sizeof a1);
    std::memcpy(out + i + 16, &a2, sizeof a2);
    std::memcpy(out + i + 24, &a3, sizeof a3);
  }
  for (; i < n; ++i) {
    float acc = 0.f;
    for (int k = 0; k < taps; ++k) acc = acc + w[k] * src(k)[i];
    out[i] = acc;
  }
}
// A convolution along a row: src(k) = m + k * step.
[[maybe_unused]] AUG_CLONES void conv_row(float* out, const float* m, int n, const float* w, int taps, int step) {
  weighted_sum(out, [&](int k) { return m + k * step; }, n, w, taps);
}
// A weighted sum of rows.
[[maybe_unused]] AUG_CLONES void sum_rows(float* out, const float* const* rows, int n, const float* w, int taps) {
  weighted_sum(out, [&](int k) { return rows[k]; }, n, w, taps);
}

// Words 0 .. 2 of Philox blocks (first + i, purpose) of `stream` for i in [0, n): w[k][i] is word k of
// KeyedStream::block(first + i, purpose). The same rounds as philox4x32_10, across blocks so that
// they vectorise; with AVX2, eight blocks at a time with explicit 32 x 32 -> 64-bit products.
[[maybe_unused]] AUG_CLONES void philox_blocks_portable(const KeyedStream& stream, std::uint32_t first,
                                                        std::uint32_t purpose, int n, std::uint32_t* __restrict w0,
                                                        std::uint32_t* __restrict w1,
                                                        std::uint32_t* __restrict w2) {
  std::uint32_t k0[10], k1[10];
  for (int r = 0; r < 10; ++r) {
    k0[r] = stream.key0 + static_cast<std::uint32_t>(r) * kPhiloxW0;
    k1[r] = stream.key1 + static_cast<std::uint32_t>(r) * kPhiloxW1;
  }
  for (int i = 0; i < n; ++i) {
    std::uint32_t c0 = first + static_cast<std::uint32_t>(i), c1 = purpose, c2 = stream.stage, c3 = stream.copy;
    for (int r = 0; r < 10; ++r) {
      const std::uint64_t p0 = static_cast<std::uint64_t>(kPhiloxM0) * c0;
      const std::uint64_t p1 = static_cast<std::uint64_t>(kPhiloxM1) * c2;
      const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1 ^ k0[r];
      const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3 ^ k1[r];
      c1 = static_cast<std::uint32_t>(p1);
      c3 = static_cast<std::uint32_t>(p0);
      c0 = n0;
      c2 = n2;
    }
    w0[i] = c0;
    w1[i] = c1;
    w2[i] = c2;
  }
}

#if defined(AUG_AVX2_PHILOX)
// lo and hi halves of the eight 32 x 32-bit products a * m.
[[gnu::target("avx2"), gnu::always_inline]] inline void mulhilo8(__m256i a, __m256i m, __m256i& lo, __m256i& hi) {
  const __m256i even = _mm256_mul_epu32(a, m);                          // lanes 0, 2, 4, 6 as 64 bits
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);  // lanes 1, 3, 5, 7
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

[[maybe_unused, gnu::target("avx2")]] void philox_blocks_avx2(const KeyedStream& stream, std::uint32_t first,
                                                              std::uint32_t purpose, int n, std::uint32_t* w0,
                                                              std::uint32_t* w1, std::uint32_t* w2) {
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(kPhiloxM0)), m1 = _mm256_set1_epi32(static_cast<int>(kPhiloxM1));
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i k0[10], k1[10];
  for (int r = 0; r < 10; ++r) {
    k0[r] = _mm256_set1_epi32(static_cast<int>(stream.key0 + static_cast<std::uint32_t>(r) * kPhiloxW0));
    k1[r] = _mm256_set1_epi32(static_cast<int>(stream.key1 + static_cast<std::uint32_t>(r) * kPhiloxW1));
  }
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i c0 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(first + static_cast<std::uint32_t>(i))), lanes);
    __m256i c1 = _mm256_set1_epi32(static_cast<int>(purpose));
    __m256i c2 = _mm256_set1_epi32(static_cast<int>(stream.stage));
    __m256i c3 = _mm256_set1_epi32(static_cast<int>(stream.copy));
    for (int r = 0; r < 10; ++r) {
      __m256i lo0, hi0, lo1, hi1;
      mulhilo8(c0, m0, lo0, hi0);
      mulhilo8(c2, m1, lo1, hi1);
      c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), k0[r]);
      c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1[r]);
      c1 = lo1;
      c3 = lo0;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(w0 + i), c0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(w1 + i), c1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(w2 + i), c2);
  }
  for (; i < n; ++i) {
    const Philox4x32 b = stream.block(first + static_cast<std::uint32_t>(i), purpose);
    w0[i] = b.v[0];
    w1[i] = b.v[1];
    w2[i] = b.v[2];
  }
}
#endif

[[maybe_unused]] void philox_blocks(const KeyedStream& stream, std::uint32_t first, std::uint32_t purpose, int n,
                                    std::uint32_t* w0, std::uint32_t* w1, std::uint32_t* w2) {
#if defined(AUG_AVX2_PHILOX)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return philox_blocks_avx2(stream, first, purpose, n, w0, w1, w2);
#endif
  philox_blocks_portable(stream, first, purpose, n, w0, w1, w2);
}
}  // namespace
}  // namespace aug::k::cpu
