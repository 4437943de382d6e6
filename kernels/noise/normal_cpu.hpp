// standard_normal (normal.hpp) eight words at a time with AVX2, for the host drivers that draw
// normals per value (gaussian_noise, fill_rects' random fill): the same binary32 operations lane
// by lane as the scalar formula. Host code only; callers check host_has_avx2() first.
#pragma once

#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/normal.hpp"

#if defined(AUG_AVX2_PHILOX)
namespace aug::k::cpu {
namespace {

// The inner cells' (a, b - a) side by side, b - a in binary32 as standard_normal computes it: one
// 64-bit load reads both.
[[maybe_unused]] std::vector<float> normal_cell_pairs(const float* normal) {
  std::vector<float> p(2 * kNormalCells);
  for (int i = 0; i < kNormalCells; ++i) {
    p[2 * i] = normal[i];
    p[2 * i + 1] = normal[i + 1] - normal[i];
  }
  return p;
}

// standard_normal of eight words: a + f (b - a) from the pairs, then, when any lane is in a tail
// cell (cell 0 or 4095; 2 draws in 4096), all eight by the scalar formula. The pairs are read with
// eight 64-bit loads: AVX2's gathers were slower on the AMD EPYC this was measured on.
[[maybe_unused, gnu::target("avx2"), gnu::always_inline]] inline __m256 standard_normal8(const std::uint32_t* w,
                                                                                         const float* pairs,
                                                                                         const float* normal) {
  const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
  const __m256i m = _mm256_srli_epi32(bits, 8);
  const __m256i cell = _mm256_srli_epi32(m, 12);
  const __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_and_si256(m, _mm256_set1_epi32(4095))),
                                 _mm256_set1_ps(1.0f / 4096.0f));
  // Lanes (0, 1, 4, 5) and (2, 3, 6, 7): shuffle_ps then puts them back in order.
  alignas(32) std::uint32_t c[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(c), cell);
  const auto* base = reinterpret_cast<const long long*>(pairs);
  const __m256 lo = _mm256_castsi256_ps(_mm256_setr_epi64x(base[c[0]], base[c[1]], base[c[4]], base[c[5]]));
  const __m256 hi = _mm256_castsi256_ps(_mm256_setr_epi64x(base[c[2]], base[c[3]], base[c[6]], base[c[7]]));
  const __m256 a = _mm256_shuffle_ps(lo, hi, 0x88), d = _mm256_shuffle_ps(lo, hi, 0xDD);
  const __m256i edge = _mm256_or_si256(_mm256_cmpeq_epi32(cell, _mm256_setzero_si256()),
                                       _mm256_cmpeq_epi32(cell, _mm256_set1_epi32(kNormalCells - 1)));
  if (__builtin_expect(!_mm256_testz_si256(edge, edge), 0)) {
    alignas(32) float zz[8];
    for (int l = 0; l < 8; ++l) zz[l] = standard_normal(w[l], normal);
    return _mm256_load_ps(zz);
  }
  return _mm256_add_ps(a, _mm256_mul_ps(f, d));
}

// z[i] = standard_normal(w[i]) for n words, eight at a time (the last n % 8 by the scalar formula).
[[maybe_unused, gnu::target("avx2")]] void standard_normals_avx2(const std::uint32_t* w, float* z, int n,
                                                                 const float* pairs, const float* normal) {
  int i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(z + i, standard_normal8(w + i, pairs, normal));
  for (; i < n; ++i) z[i] = standard_normal(w[i], normal);
}

}  // namespace
}  // namespace aug::k::cpu
#endif
