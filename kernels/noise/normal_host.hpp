// The keyed generator's standard normals (normal.hpp) eight at a time on the host, for the fields
// that stages draw per pixel (spatter's liquid, snow's texture): pixel i takes word i % 4 of Philox
// block i / 4, so eight blocks' words are put in pixel order in registers, and each word becomes
// standard_normal(word, table) by the same binary32 operations (table reads by gather,
// a + f (b - a) without contraction; the two tail cells, 2 in 4096, word by word). Host code only.
#pragma once

#include <cstdint>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/normal.hpp"

namespace aug::k::cpu {

#if defined(AUG_AVX2_PHILOX)
// standard_normal of eight words.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256 standard_normal8(__m256i bits, const float* table) {
  const __m256i m = _mm256_srli_epi32(bits, 8);
  const __m256i cell = _mm256_srli_epi32(m, 12), sub = _mm256_and_si256(m, _mm256_set1_epi32(4095));
  const __m256 a = _mm256_i32gather_ps(table, cell, 4), b = _mm256_i32gather_ps(table + 1, cell, 4);
  const __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(sub), _mm256_set1_ps(1.0f / 4096.0f));
  const __m256 z = _mm256_add_ps(a, _mm256_mul_ps(f, _mm256_sub_ps(b, a)));
  const __m256i tail = _mm256_or_si256(_mm256_cmpeq_epi32(cell, _mm256_setzero_si256()),
                                       _mm256_cmpeq_epi32(cell, _mm256_set1_epi32(kNormalCells - 1)));
  if (_mm256_testz_si256(tail, tail)) return z;
  alignas(32) std::uint32_t w[8];
  alignas(32) float zs[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(w), bits);
  for (int j = 0; j < 8; ++j) zs[j] = standard_normal(w[j], table);
  return _mm256_load_ps(zs);
}

// The words of blocks i .. i + 7 (word k of block j at wk[j]) in pixel order: out[q] holds pixels
// 8q .. 8q + 7 of the 32, pixel 4j + k being word k of block i + j.
[[gnu::target("avx2"), gnu::always_inline]] inline void blocks_in_pixel_order(const std::uint32_t* w0,
                                                                            const std::uint32_t* w1,
                                                                            const std::uint32_t* w2,
                                                                            const std::uint32_t* w3, int i,
                                                                            __m256i out[4]) {
  const __m256i A = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w0 + i));
  const __m256i B = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w1 + i));
  const __m256i C = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w2 + i));
  const __m256i D = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w3 + i));
  const __m256i t0 = _mm256_unpacklo_epi32(A, B), t1 = _mm256_unpackhi_epi32(A, B);
  const __m256i t2 = _mm256_unpacklo_epi32(C, D), t3 = _mm256_unpackhi_epi32(C, D);
  const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
  const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
  out[0] = _mm256_permute2x128_si256(u0, u1, 0x20);
  out[1] = _mm256_permute2x128_si256(u2, u3, 0x20);
  out[2] = _mm256_permute2x128_si256(u0, u1, 0x31);
  out[3] = _mm256_permute2x128_si256(u2, u3, 0x31);
}
#endif

}  // namespace aug::k::cpu
