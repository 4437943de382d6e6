// pixel_dropout's host driver: the kernels' arithmetic (pixel_dropout.hpp) row by row: the Philox
// blocks of the row's decisions first (computed across blocks, so that they vectorise), their words
// in decision order, a 0/1 mask per decision, then each value a select.
#include <cstdint>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/pixel_dropout.hpp"

namespace aug::k::cpu {

namespace pixel_dropout_cpu_impl {
namespace {

// mask[j] = words[j] < t (or every one when all).
AUG_CLONES void decide(const std::uint32_t* __restrict words, std::uint8_t* __restrict mask, int n, std::uint32_t t,
                       bool all) {
  for (int j = 0; j < n; ++j) mask[j] = static_cast<std::uint8_t>(all | (words[j] < t));
}

// d[x C + c] = mask of (x, c) ? value[c] : s[x C + c]; PerChannel: mask[x cc + c], else mask[x].
template <class T, int C, bool PerChannel>
AUG_CLONES void select_row(const T* __restrict s, T* __restrict d, const std::uint8_t* __restrict mask, int width,
                           int cc, const T* __restrict value) {
  for (int x = 0; x < width; ++x)
    for (int c = 0; c < C; ++c) {
      const bool drop = c < cc && mask[PerChannel ? x * cc + c : x];
      d[x * C + c] = drop ? value[c] : s[x * C + c];
    }
}

// Three decisions per pixel, the words of block x in order: mask[3 x + c] = word c < t.
AUG_CLONES void decide3(const std::uint32_t* __restrict w0, const std::uint32_t* __restrict w1,
                        const std::uint32_t* __restrict w2, std::uint8_t* __restrict mask, int width, std::uint32_t t,
                        bool all) {
  for (int x = 0; x < width; ++x) {
    mask[3 * x] = static_cast<std::uint8_t>(all | (w0[x] < t));
    mask[3 * x + 1] = static_cast<std::uint8_t>(all | (w1[x] < t));
    mask[3 * x + 2] = static_cast<std::uint8_t>(all | (w2[x] < t));
  }
}

#if defined(AUG_AVX2_PHILOX)
// decide3 eight pixels at a time: the three words' decisions (unsigned w < t, as signed compares of
// w and t with the top bit flipped) interleaved in registers, packed to bytes 0xFF / 0.
[[gnu::target("avx2")]] void decide3_avx2(const std::uint32_t* w0, const std::uint32_t* w1, const std::uint32_t* w2,
                                          std::uint8_t* mask, int width, std::uint32_t t, bool all) {
  const __m256i flip = _mm256_set1_epi32(INT32_MIN);
  const __m256i tv = _mm256_set1_epi32(static_cast<int>(t ^ 0x80000000u));
  const __m256i every = all ? _mm256_set1_epi32(-1) : _mm256_setzero_si256();
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  alignas(32) std::uint32_t o[24];
  int x = 0;
  for (; x + 8 <= width; x += 8) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w0 + x));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w1 + x));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w2 + x));
    interleave3_avx2(_mm256_castsi256_ps(_mm256_or_si256(every, _mm256_cmpgt_epi32(tv, _mm256_xor_si256(a, flip)))),
                     _mm256_castsi256_ps(_mm256_or_si256(every, _mm256_cmpgt_epi32(tv, _mm256_xor_si256(b, flip)))),
                     _mm256_castsi256_ps(_mm256_or_si256(every, _mm256_cmpgt_epi32(tv, _mm256_xor_si256(c, flip)))), o);
    // Bytes of o[0..3], o[8..11], o[16..19], again, o[4..7], o[12..15], o[20..23], again; then in order.
    const __m256i o0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(o));
    const __m256i o1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(o + 8));
    const __m256i o2 = _mm256_load_si256(reinterpret_cast<const __m256i*>(o + 16));
    const __m256i bytes = _mm256_permutevar8x32_epi32(
        _mm256_packs_epi16(_mm256_packs_epi32(o0, o1), _mm256_packs_epi32(o2, o2)), order);
    std::uint8_t* m = mask + 3 * static_cast<std::size_t>(x);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(m), _mm256_castsi256_si128(bytes));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(m + 16), _mm256_extracti128_si256(bytes, 1));
  }
  for (std::uint8_t* m = mask + 3 * static_cast<std::size_t>(x); x < width; ++x, m += 3) {
    m[0] = static_cast<std::uint8_t>(all | (w0[x] < t));
    m[1] = static_cast<std::uint8_t>(all | (w1[x] < t));
    m[2] = static_cast<std::uint8_t>(all | (w2[x] < t));
  }
}
#endif

void decide_rgb(const std::uint32_t* w0, const std::uint32_t* w1, const std::uint32_t* w2, std::uint8_t* mask,
                int width, std::uint32_t t, bool all) {
#if defined(AUG_AVX2_PHILOX)
  if (host_has_avx2()) return decide3_avx2(w0, w1, w2, mask, width, t, all);
#endif
  decide3(w0, w1, w2, mask, width, t, all);
}

// d[i] = mask[i] ? fill[i] : s[i] over a row of n values.
template <class T>
AUG_CLONES void select_flat(const T* __restrict s, T* __restrict d, const std::uint8_t* __restrict mask,
                            const T* __restrict fill, int n) {
  for (int i = 0; i < n; ++i) d[i] = mask[i] ? fill[i] : s[i];
}

#if defined(AUG_AVX2_PHILOX)
// select_flat with explicit vectors: a zero mask byte keeps the source value.
template <class T>
[[gnu::target("avx2")]] void select_flat_avx2(const T* s, T* d, const std::uint8_t* mask, const T* fill, int n) {
  constexpr int step = 32 / sizeof(T);
  int i = 0;
  for (; i + step <= n; i += step) {
    const __m256i sv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
    const __m256i fv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(fill + i));
    __m256i keep;
    if constexpr (sizeof(T) == 1) {
      keep = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mask + i));
    } else if constexpr (sizeof(T) == 2) {
      keep = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(mask + i)));
    } else {
      keep = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(mask + i)));
    }
    keep = sizeof(T) == 1 ? _mm256_cmpeq_epi8(keep, _mm256_setzero_si256())
                          : (sizeof(T) == 2 ? _mm256_cmpeq_epi16(keep, _mm256_setzero_si256())
                                            : _mm256_cmpeq_epi32(keep, _mm256_setzero_si256()));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), _mm256_blendv_epi8(fv, sv, keep));
  }
  for (; i < n; ++i) d[i] = mask[i] ? fill[i] : s[i];
}
#endif

template <class T>
void select_values(const T* s, T* d, const std::uint8_t* mask, const T* fill, int n) {
#if defined(AUG_AVX2_PHILOX)
  if (host_has_avx2()) return select_flat_avx2(s, d, mask, fill, n);
#endif
  select_flat(s, d, mask, fill, n);
}

template <class T, int C>
void select_of(bool per_channel, const T* s, T* d, const std::uint8_t* mask, int width, int cc, const T* value) {
  if (per_channel) select_row<T, C, true>(s, d, mask, width, cc, value);
  else select_row<T, C, false>(s, d, mask, width, cc, value);
}

}  // namespace
}  // namespace pixel_dropout_cpu_impl

template <class T>
void pixel_dropout(View<const T> in, View<T> out, const DropoutArgs& a) {
  const int W = in.width, C = in.channels, cc = a.color_channels;
  const std::size_t per_row = static_cast<std::size_t>(W) * (a.per_channel ? cc : 1);
  const std::size_t blocks = per_row / 3 + 2;
  std::vector<std::uint32_t> bw(3 * blocks), words(3 * blocks);
  std::vector<std::uint8_t> mask(per_row);
  const bool all = a.threshold > 0xFFFFFFFFull;
  const std::uint32_t t = all ? 0u : static_cast<std::uint32_t>(a.threshold);
  T value[4];
  for (int c = 0; c < 4; ++c) value[c] = static_cast<T>(a.value[c < 3 ? c : 0]);
  if (a.per_channel && cc == 3) {
    // Decision 3 i + c is word c of block i: the row's blocks are its pixels.
    std::vector<T> fill(static_cast<std::size_t>(W) * 3);
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 3; ++c) fill[3 * x + c] = value[c];
    for (int y = 0; y < in.height; ++y) {
      philox_blocks(a.stream, static_cast<std::uint32_t>(static_cast<std::size_t>(y) * W), 1, W, bw.data(),
                    bw.data() + blocks, bw.data() + 2 * blocks);
      pixel_dropout_cpu_impl::decide_rgb(bw.data(), bw.data() + blocks, bw.data() + 2 * blocks, mask.data(), W, t, all);
      if (C == 3) pixel_dropout_cpu_impl::select_values(in.row(y), out.row(y), mask.data(), fill.data(), 3 * W);
      else pixel_dropout_cpu_impl::select_row<T, 4, true>(in.row(y), out.row(y), mask.data(), W, cc, value);
    }
    return;
  }
  for (int y = 0; y < in.height; ++y) {
    const std::size_t j0 = static_cast<std::size_t>(y) * per_row, b0 = j0 / 3, b1 = (j0 + per_row - 1) / 3 + 1;
    const int nb = static_cast<int>(b1 - b0);
    philox_blocks(a.stream, static_cast<std::uint32_t>(b0), 1, nb, bw.data(), bw.data() + blocks,
                  bw.data() + 2 * blocks);
    for (int k = 0; k < nb; ++k) {
      words[3 * k] = bw[k];
      words[3 * k + 1] = bw[blocks + k];
      words[3 * k + 2] = bw[2 * blocks + k];
    }
    pixel_dropout_cpu_impl::decide(words.data() + (j0 - 3 * b0), mask.data(), static_cast<int>(per_row), t, all);
    const T* s = in.row(y);
    T* d = out.row(y);
    switch (C) {
      case 1: pixel_dropout_cpu_impl::select_of<T, 1>(a.per_channel, s, d, mask.data(), W, cc, value); break;
      case 3: pixel_dropout_cpu_impl::select_of<T, 3>(a.per_channel, s, d, mask.data(), W, cc, value); break;
      default: pixel_dropout_cpu_impl::select_of<T, 4>(a.per_channel, s, d, mask.data(), W, cc, value); break;
    }
  }
}

template void pixel_dropout<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const DropoutArgs&);
template void pixel_dropout<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const DropoutArgs&);
template void pixel_dropout<float>(View<const float>, View<float>, const DropoutArgs&);

}  // namespace aug::k::cpu
