// gaussian_noise's host driver: the kernels' arithmetic (gaussian_noise.hpp) row by row, the row's
// Philox blocks first (computed across pixels, so that they vectorise), then each value. With AVX2
// the normals are read from the table eight values at a time (normal_cpu.hpp).
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/gaussian_noise.hpp"
#include "kernels/noise/normal_cpu.hpp"

namespace aug::k::cpu {

namespace gaussian_noise_cpu_impl {
namespace {

// z[i] = mean + sigma standard_normal(bits[i]): the noise of n values, in units of the range.
AUG_CLONES void noise_values(const std::uint32_t* __restrict bits, float* __restrict z, int n, const float* normal,
                             float mean, float sigma) {
  for (int i = 0; i < n; ++i) z[i] = mean + sigma * standard_normal(bits[i], normal);
}

// The same for RGB with a word per channel: z[3 x + c] from word c of block x.
AUG_CLONES void noise_rgb(const std::uint32_t* __restrict w0, const std::uint32_t* __restrict w1,
                          const std::uint32_t* __restrict w2, float* __restrict z, int width, const float* normal,
                          float mean, float sigma) {
  for (int x = 0; x < width; ++x) {
    z[3 * x] = mean + sigma * standard_normal(w0[x], normal);
    z[3 * x + 1] = mean + sigma * standard_normal(w1[x], normal);
    z[3 * x + 2] = mean + sigma * standard_normal(w2[x], normal);
  }
}

template <class T>
AUG_CLONES void add_noise(const T* s, T* d, const float* __restrict z, int n, bool clip) {
  if constexpr (std::is_same_v<T, float>) {
    for (int i = 0; i < n; ++i) d[i] = noisy_value(s[i], z[i], clip);
  } else {
    // noisy_value's sat(RNE(v + n max)) with the saturation done in binary32 (the same values for
    // every finite sum), so that the loop vectorises.
    const float max = static_cast<float>(SampleTraits<T>::max);
    for (int i = 0; i < n; ++i) {
      float y = __builtin_rintf(static_cast<float>(s[i]) + z[i] * max);
      y = y < 0.f ? 0.f : y;
      y = y > max ? max : y;
      d[i] = static_cast<T>(static_cast<std::int32_t>(y));
    }
  }
}

#if defined(AUG_AVX2_PHILOX)
// mean + sigma standard_normal(bits) for eight words.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256 normal8(const std::uint32_t* w, const float* pairs,
                                                                  const float* normal, __m256 mean, __m256 sigma) {
  return _mm256_add_ps(mean, _mm256_mul_ps(sigma, standard_normal8(w, pairs, normal)));
}

[[gnu::target("avx2")]] void noise_values_avx2(const std::uint32_t* bits, float* z, int n, const float* pairs,
                                               const float* normal, float mean, float sigma) {
  const __m256 mv = _mm256_set1_ps(mean), sv = _mm256_set1_ps(sigma);
  int i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(z + i, normal8(bits + i, pairs, normal, mv, sv));
  for (; i < n; ++i) z[i] = mean + sigma * standard_normal(bits[i], normal);
}

// The same for RGB: z[3 x + c] from word c of block x, the three vectors interleaved in registers.
[[gnu::target("avx2")]] void noise_rgb_avx2(const std::uint32_t* w0, const std::uint32_t* w1, const std::uint32_t* w2,
                                            float* z, int width, const float* pairs, const float* normal, float mean,
                                            float sigma) {
  const __m256 mv = _mm256_set1_ps(mean), sv = _mm256_set1_ps(sigma);
  int x = 0;
  for (; x + 8 <= width; x += 8)
    interleave3_avx2(normal8(w0 + x, pairs, normal, mv, sv), normal8(w1 + x, pairs, normal, mv, sv),
                     normal8(w2 + x, pairs, normal, mv, sv), z + 3 * static_cast<std::size_t>(x));
  for (float* zx = z + 3 * static_cast<std::size_t>(x); x < width; ++x, zx += 3) {
    zx[0] = mean + sigma * standard_normal(w0[x], normal);
    zx[1] = mean + sigma * standard_normal(w1[x], normal);
    zx[2] = mean + sigma * standard_normal(w2[x], normal);
  }
}

// add_noise's 8/16-bit loop: max(0, y) and min(max, y) are its two selects (NaN passing through,
// then converted to 0 like the scalar cast and the saturating packs).
template <class T>
[[gnu::target("avx2")]] void add_noise_avx2(const T* s, T* d, const float* z, int n) {
  const __m256 zero = _mm256_setzero_ps(), max = _mm256_set1_ps(static_cast<float>(SampleTraits<T>::max));
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i q[2];
    for (int h = 0; h < 2; ++h) {
      __m256i v;
      if constexpr (std::is_same_v<T, std::uint8_t>)
        v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + i + 8 * h)));
      else v = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 8 * h)));
      __m256 y = _mm256_add_ps(_mm256_cvtepi32_ps(v), _mm256_mul_ps(_mm256_loadu_ps(z + i + 8 * h), max));
      y = _mm256_round_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      y = _mm256_min_ps(max, _mm256_max_ps(zero, y));
      q[h] = _mm256_cvttps_epi32(y);
    }
    // packus within 128-bit halves: the quarters back in order.
    const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(q[0], q[1]), 0xD8);
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      const __m128i b = _mm_packus_epi16(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), b);
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), p);
    }
  }
  const float mx = static_cast<float>(SampleTraits<T>::max);
  for (; i < n; ++i) {
    float y = __builtin_rintf(static_cast<float>(s[i]) + z[i] * mx);
    y = y < 0.f ? 0.f : y;
    y = y > mx ? mx : y;
    d[i] = static_cast<T>(static_cast<std::int32_t>(y));
  }
}

// With AVX-512 (BW, VBMI), 8-bit RGB with a word per channel: sixteen pixels at a time from their
// bytes to their bytes, each value's normal read from the pairs (sixteen 64-bit loads per channel,
// faster than AVX-512's gathers on the AMD EPYC this was measured on) and added in registers, the
// same binary32 operations as noise_rgb_avx2 and add_noise_avx2 in the same order.
#define AUG_NOISE_AVX512 gnu::target("avx512f,avx512bw,avx512vbmi")
AUG_AVX512_WARNINGS_OFF
// mean + sigma standard_normal(bits) of sixteen words; lanes outside `lanes` hold 0 words and are
// not used.
[[AUG_NOISE_AVX512, gnu::always_inline]] inline __m512 noise16(__m512i bits, const float* pairs, const float* normal,
                                                                __m512 mean, __m512 sigma) {
  const __m512i m = _mm512_srli_epi32(bits, 8);
  const __m512i cell = _mm512_srli_epi32(m, 12);
  const __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_and_si512(m, _mm512_set1_epi32(4095))),
                                 _mm512_set1_ps(1.0f / 4096.0f));
  alignas(64) std::uint32_t c[16];
  _mm512_store_si512(c, cell);
  const __mmask16 edge = _kor_mask16(_mm512_cmpeq_epi32_mask(cell, _mm512_setzero_si512()),
                                     _mm512_cmpeq_epi32_mask(cell, _mm512_set1_epi32(kNormalCells - 1)));
  __m512 z;
  if (__builtin_expect(edge != 0, 0)) {
    alignas(64) std::uint32_t w[16];
    alignas(64) float zz[16];
    _mm512_store_si512(w, bits);
    for (int l = 0; l < 16; ++l) zz[l] = standard_normal(w[l], normal);
    z = _mm512_load_ps(zz);
  } else {
    const auto* base = reinterpret_cast<const long long*>(pairs);
    const __m512i g0 = _mm512_setr_epi64(base[c[0]], base[c[1]], base[c[2]], base[c[3]], base[c[4]], base[c[5]],
                                         base[c[6]], base[c[7]]);
    const __m512i g1 = _mm512_setr_epi64(base[c[8]], base[c[9]], base[c[10]], base[c[11]], base[c[12]], base[c[13]],
                                         base[c[14]], base[c[15]]);
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    const __m512 a = _mm512_castsi512_ps(_mm512_permutex2var_epi32(g0, even, g1));
    const __m512 d = _mm512_castsi512_ps(_mm512_permutex2var_epi32(g0, odd, g1));
    z = _mm512_add_ps(a, _mm512_mul_ps(f, d));
  }
  return _mm512_add_ps(mean, _mm512_mul_ps(sigma, z));
}

[[AUG_NOISE_AVX512]] void noisy_rgb8_avx512(const std::uint8_t* s, std::uint8_t* d, const std::uint32_t* w0,
                                            const std::uint32_t* w1, const std::uint32_t* w2, int width,
                                            const float* pairs, const float* normal, float mean, float sigma) {
  const std::uint32_t* const w[3] = {w0, w1, w2};
  const __m512 mv = _mm512_set1_ps(mean), sv = _mm512_set1_ps(sigma), zero = _mm512_setzero_ps(),
               top = _mm512_set1_ps(255.f);
  for (int x = 0; x < width; x += 16) {
    const int n = width - x < 16 ? width - x : 16;
    const __mmask16 lanes = static_cast<__mmask16>((1u << n) - 1u);
    const __mmask64 bytes = (1ull << (3 * n)) - 1ull;
    const __m512i v = _mm512_maskz_loadu_epi8(bytes, s + 3 * static_cast<std::size_t>(x));
    __m512i px = _mm512_setzero_si512();
    for (int c = 0; c < 3; ++c) {
      const __m512 z = noise16(_mm512_maskz_loadu_epi32(lanes, w[c] + x), pairs, normal, mv, sv);
      const __m512 in = _mm512_cvtepi32_ps(rgb8_channel16(v, c));
      __m512 y = _mm512_add_ps(in, _mm512_mul_ps(z, top));
      y = _mm512_roundscale_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      y = _mm512_min_ps(top, _mm512_max_ps(zero, y));
      px = _mm512_or_si512(px, _mm512_slli_epi32(_mm512_cvttps_epi32(y), 8 * c));
    }
    _mm512_mask_storeu_epi8(d + 3 * static_cast<std::size_t>(x), bytes, rgb8_join16(px));
  }
}
AUG_AVX512_WARNINGS_ON
#endif

// The normals of n words (noise_values), or of RGB pixels' three words (noise_rgb), with AVX2 where
// the machine has it; `pairs` from normal_cell_pairs, empty without AVX2.
void noise_of_values(const std::uint32_t* bits, float* z, int n, const std::vector<float>& pairs, const float* normal,
                     float mean, float sigma) {
#if defined(AUG_AVX2_PHILOX)
  if (!pairs.empty()) return noise_values_avx2(bits, z, n, pairs.data(), normal, mean, sigma);
#endif
  noise_values(bits, z, n, normal, mean, sigma);
}

void noise_of_rgb(const std::uint32_t* w0, const std::uint32_t* w1, const std::uint32_t* w2, float* z, int width,
                  const std::vector<float>& pairs, const float* normal, float mean, float sigma) {
#if defined(AUG_AVX2_PHILOX)
  if (!pairs.empty()) return noise_rgb_avx2(w0, w1, w2, z, width, pairs.data(), normal, mean, sigma);
#endif
  noise_rgb(w0, w1, w2, z, width, normal, mean, sigma);
}

template <class T>
void add_noise_row(const T* s, T* d, const float* z, int n, bool clip) {
#if defined(AUG_AVX2_PHILOX)
  if constexpr (!std::is_same_v<T, float>)
    if (host_has_avx2()) return add_noise_avx2(s, d, z, n);
#endif
  add_noise(s, d, z, n, clip);
}

}  // namespace
}  // namespace gaussian_noise_cpu_impl

template <class T>
void gaussian_noise(View<const T> in, View<T> out, const NoiseArgs& a) {
  const int W = in.width, C = in.channels, cc = a.color_channels;
  const std::size_t n = static_cast<std::size_t>(W);
  std::vector<std::uint32_t> words(3 * n), bits(n * C);
  std::vector<float> z(n * C);
#if defined(AUG_AVX2_PHILOX)
  const std::vector<float> pairs = host_has_avx2() ? normal_cell_pairs(a.normal)
                                                                       : std::vector<float>{};
  static const bool rgb8_avx512 = host_has_avx512_vbmi();
#else
  const std::vector<float> pairs;
#endif
  for (int y = 0; y < in.height; ++y) {
    const std::uint32_t first = static_cast<std::uint32_t>(static_cast<std::size_t>(y) * n);
    philox_blocks(a.stream, first, 1, W, words.data(), words.data() + n, words.data() + 2 * n);
    // Value c of pixel x takes word c (word 0 without per_channel) of block x; alpha takes none.
#if defined(AUG_AVX2_PHILOX)
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      if (rgb8_avx512 && C == 3 && cc == 3 && a.per_channel) {
        gaussian_noise_cpu_impl::noisy_rgb8_avx512(in.row(y), out.row(y), words.data(), words.data() + n,
                                                   words.data() + 2 * n, W, pairs.data(), a.normal, a.mean, a.sigma);
        continue;
      }
    }
#endif
    if (C == 3 && cc == 3 && a.per_channel) {
      gaussian_noise_cpu_impl::noise_of_rgb(words.data(), words.data() + n, words.data() + 2 * n, z.data(), W, pairs,
                                            a.normal, a.mean, a.sigma);
    } else {
      for (int x = 0; x < W; ++x)
        for (int c = 0; c < cc; ++c) bits[x * C + c] = words[(a.per_channel ? c : 0) * n + x];
      gaussian_noise_cpu_impl::noise_of_values(bits.data(), z.data(), W * C, pairs, a.normal, a.mean,
                                                a.sigma);
    }
    const T* s = in.row(y);
    T* d = out.row(y);
    if (cc == C) {
      gaussian_noise_cpu_impl::add_noise_row(s, d, z.data(), W * C, a.clip);
      continue;
    }
    for (int i = 0; i < W * C; ++i) d[i] = i % C < cc ? noisy_value(s[i], z[i], a.clip) : s[i];
  }
}

template void gaussian_noise<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const NoiseArgs&);
template void gaussian_noise<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const NoiseArgs&);
template void gaussian_noise<float>(View<const float>, View<float>, const NoiseArgs&);

}  // namespace aug::k::cpu
