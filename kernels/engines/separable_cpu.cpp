// The separable engine's vectorised host driver (see separable.hpp): the same function as the kernels.
#include "kernels/engines/separable.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace separable_cpu_impl {
namespace {


// acc[i] += w * s[i]
AUG_CLONES void mac_row(std::int32_t* acc, const std::uint8_t* s, int n, std::int32_t w) {
  for (int i = 0; i < n; ++i) acc[i] += w * static_cast<std::int32_t>(s[i]);
}
AUG_CLONES void mac_row(std::int32_t* acc, const std::uint16_t* s, int n, std::int32_t w) {
  for (int i = 0; i < n; ++i) acc[i] += w * static_cast<std::int32_t>(s[i]);
}
// 8-bit images with non-negative 8-bit weights summing to 256 (bilinear, nearest, blur): every
// vertical sum fits in 16 bits (<= 255 * 256 = 65280) and every horizontal one in 32. Both passes
// keep their sums in registers, a block of values at a time, all taps inside; with AVX2 16 values
// at a time (the same exact integers).

// mid[i] = sum_k w[k] rows[k][i], exact in 16 bits.
void vertical_u16_scalar(std::uint16_t* mid, const std::uint8_t* const* rows, const std::int32_t* w, int taps, int i,
                         int n) {
  for (; i < n; ++i) {
    std::uint32_t a = 0;
    for (int k = 0; k < taps; ++k) a += static_cast<std::uint32_t>(w[k]) * rows[k][i];
    mid[i] = static_cast<std::uint16_t>(a);
  }
}

// out[i] = (sum_k w[k] m[i + k step] + 2^15) >> 16: the weights total 256, so the result is <= 255.
void horizontal_u8_scalar(std::uint8_t* out, const std::uint16_t* m, const std::int32_t* w, int taps, int step, int i,
                          int n) {
  for (; i < n; ++i) {
    std::uint32_t a = 32768u;
    for (int k = 0; k < taps; ++k) a += static_cast<std::uint32_t>(w[k]) * m[i + k * step];
    out[i] = static_cast<std::uint8_t>(a >> 16);
  }
}

#if defined(AUG_AVX2_PHILOX)
[[gnu::target("avx2")]] void vertical_u16_avx2(std::uint16_t* mid, const std::uint8_t* const* rows,
                                               const std::int32_t* w, int taps, int n) {
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
    for (int k = 0; k < taps; ++k) {
      const __m256i wk = _mm256_set1_epi16(static_cast<short>(w[k]));
      const __m256i v0 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[k] + i)));
      const __m256i v1 = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[k] + i + 16)));
      a0 = _mm256_add_epi16(a0, _mm256_mullo_epi16(v0, wk));
      a1 = _mm256_add_epi16(a1, _mm256_mullo_epi16(v1, wk));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(mid + i), a0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(mid + i + 16), a1);
  }
  vertical_u16_scalar(mid, rows, w, taps, i, n);
}

// 16 outputs: two taps at a time, their values side by side (unpacked within the 128-bit lanes;
// packus_epi32 puts the lanes' values back in order) and one multiply-add of 16-bit pairs for both.
// The values (<= 65280) do not fit a signed 16-bit lane, so they enter offset by -32768 and the sums
// get 32768 sum(w) back: the same integers.
[[gnu::target("avx2")]] void horizontal_u8_avx2(std::uint8_t* out, const std::uint16_t* m, int n, const std::int32_t* w,
                                                int taps, int step) {
  std::int32_t total = 0;
  for (int k = 0; k < taps; ++k) total += w[k];
  const __m256i base = _mm256_set1_epi32(32768 * total + 32768), offset = _mm256_set1_epi16(-32768);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i lo = base, hi = base;
    for (int k = 0; k < taps; k += 2) {
      const bool pair = k + 1 < taps;
      const __m256i a = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + i + k * step)), offset);
      const __m256i b =
          pair ? _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + i + (k + 1) * step)), offset)
               : _mm256_setzero_si256();
      const __m256i wk = _mm256_set1_epi32(static_cast<std::int32_t>(
          (static_cast<std::uint32_t>(pair ? w[k + 1] : 0) << 16) | static_cast<std::uint32_t>(w[k])));
      lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), wk));
      hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), wk));
    }
    const __m256i words = _mm256_packus_epi32(_mm256_srli_epi32(lo, 16), _mm256_srli_epi32(hi, 16));
    const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(words, words), 0x08);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_castsi256_si128(bytes));
  }
  horizontal_u8_scalar(out, m, w, taps, step, i, n);
}
#endif

void vertical_u16(std::uint16_t* mid, const std::uint8_t* const* rows, const std::int32_t* w, int taps, int n) {
#if defined(AUG_AVX2_PHILOX)
  if (host_has_avx2()) return vertical_u16_avx2(mid, rows, w, taps, n);
#endif
  vertical_u16_scalar(mid, rows, w, taps, 0, n);
}

void horizontal_u8(std::uint8_t* out, const std::uint16_t* m, int n, const std::int32_t* w, int taps, int step) {
#if defined(AUG_AVX2_PHILOX)
  if (host_has_avx2()) return horizontal_u8_avx2(out, m, n, w, taps, step);
#endif
  horizontal_u8_scalar(out, m, w, taps, step, 0, n);
}

// acc[i] = w * s[i] (the first tap of a row, instead of clearing and adding)
template <class S>
AUG_CLONES void mul_row(std::int32_t* acc, const S* s, int n, std::int32_t w) {
  for (int i = 0; i < n; ++i) acc[i] = w * static_cast<std::int32_t>(s[i]);
}

// The largest sum of |weights| of one output of a table: with it, a bound on every partial sum.
std::int64_t max_abs_sum(const AxisTaps& t, int length) {
  std::int64_t best = 0;
  for (int o = 0; o < length; ++o) {
    std::int64_t s = 0;
    for (int k = 0; k < t.taps; ++k) s += t.iweight[o * t.taps + k] < 0 ? -t.iweight[o * t.taps + k] : t.iweight[o * t.taps + k];
    best = std::max(best, s);
  }
  return best;
}

// The horizontal pass over the vertical pass's row `mid` (source columns from cmin): outputs
// [x0, x1), NT taps each (0: t.taps at run time), C channels, summed in Acc with the rounding
// constant first; Acc is int32 only where the caller has shown that no sum can overflow it.
template <class T, class Acc, int C, int NT>
void gather_row(T* dst, const std::int32_t* mid, const AxisTaps& h, int x0, int x1, int cmin, int shift) {
  const int taps = NT > 0 ? NT : h.taps;
  const Acc half = Acc{1} << (shift - 1);
  for (int x = x0; x < x1; ++x) {
    const std::int32_t* idx = h.index + x * taps;
    const std::int32_t* w = h.iweight + x * taps;
    Acc a[C];
    for (int c = 0; c < C; ++c) a[c] = half;
    for (int k = 0; k < taps; ++k) {
      const std::int32_t* m = mid + (idx[k] - cmin) * C;
      const Acc wk = w[k];
      for (int c = 0; c < C; ++c) a[c] += wk * m[c];
    }
    for (int c = 0; c < C; ++c) dst[x * C + c] = saturate<T>(a[c] >> shift);
  }
}

template <class T, class Acc, int C>
void gather_row_taps(T* dst, const std::int32_t* mid, const AxisTaps& h, int x0, int x1, int cmin, int shift) {
  switch (h.taps) {
    case 1: return gather_row<T, Acc, C, 1>(dst, mid, h, x0, x1, cmin, shift);
    case 2: return gather_row<T, Acc, C, 2>(dst, mid, h, x0, x1, cmin, shift);
    case 3: return gather_row<T, Acc, C, 3>(dst, mid, h, x0, x1, cmin, shift);
    case 4: return gather_row<T, Acc, C, 4>(dst, mid, h, x0, x1, cmin, shift);
    default: return gather_row<T, Acc, C, 0>(dst, mid, h, x0, x1, cmin, shift);
  }
}

// Every output of a row from the int32 vertical sums; false for a channel count it does not cover.
template <class T, class Acc>
bool gather_row_any(T* dst, const std::int32_t* mid, const AxisTaps& h, int width, int channels, int cmin, int shift) {
  switch (channels) {
    case 1: gather_row_taps<T, Acc, 1>(dst, mid, h, 0, width, cmin, shift); return true;
    case 2: gather_row_taps<T, Acc, 2>(dst, mid, h, 0, width, cmin, shift); return true;
    case 3: gather_row_taps<T, Acc, 3>(dst, mid, h, 0, width, cmin, shift); return true;
    case 4: gather_row_taps<T, Acc, 4>(dst, mid, h, 0, width, cmin, shift); return true;
    default: return false;
  }
}

template <int C>
void bilinear_row(std::uint8_t* out, const std::uint16_t* mid, const std::int32_t* index, const std::int32_t* w, int x0,
                  int x1, int cmin) {
  for (int x = x0; x < x1; ++x) {
    const std::uint16_t* m0 = mid + (index[2 * x] - cmin) * C;
    const std::uint16_t* m1 = mid + (index[2 * x + 1] - cmin) * C;
    const auto a = static_cast<std::uint32_t>(w[2 * x]), b = static_cast<std::uint32_t>(w[2 * x + 1]);
    for (int c = 0; c < C; ++c) out[x * C + c] = static_cast<std::uint8_t>((a * m0[c] + b * m1[c] + 32768u) >> 16);
  }
}

#if defined(AUG_AVX2_PHILOX)
// bilinear_row for 3 or 4 channels, a pixel per 128-bit vector: where its two taps are neighbouring
// columns, one load reads both pixels' values; each channel's pair goes side by side and one
// multiply-add of 16-bit pairs makes its sum. The values (<= 65280) do not fit a signed 16-bit lane,
// so they enter offset by -32768 and the sum gets 32768 (a + b) back: the same integers. `mid` must
// be readable 8 values past the last pixel's second tap; an RGB pixel is written as 4 bytes, the
// 4th rewritten by the next pixel, so the row's last pixel takes the scalar path.
template <int C>
[[gnu::target("avx2")]] void bilinear_row_avx2(std::uint8_t* out, const std::uint16_t* mid, const std::int32_t* index,
                                               const std::int32_t* w, int width, int cmin) {
  static_assert(C == 3 || C == 4);
  const __m128i pairs = C == 3 ? _mm_setr_epi8(0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11, -1, -1, -1, -1)
                               : _mm_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
  const __m128i offset = C == 3 ? _mm_setr_epi16(-32768, -32768, -32768, -32768, -32768, -32768, 0, 0)
                                : _mm_set1_epi16(-32768);
  const int last = C == 3 ? width - 1 : width;
  for (int x = 0; x < last; ++x) {
    const int i0 = index[2 * x], i1 = index[2 * x + 1];
    const std::int32_t a = w[2 * x], b = w[2 * x + 1];
    if (i1 != i0 + 1) {
      bilinear_row<C>(out, mid, index, w, x, x + 1, cmin);
      continue;
    }
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(mid + (i0 - cmin) * C));
    const __m128i s = _mm_xor_si128(_mm_shuffle_epi8(v, pairs), offset);
    __m128i sum = _mm_madd_epi16(s, _mm_set1_epi32(static_cast<std::int32_t>((static_cast<std::uint32_t>(b) << 16) |
                                                                            static_cast<std::uint32_t>(a))));
    sum = _mm_srli_epi32(_mm_add_epi32(sum, _mm_set1_epi32(32768 * (a + b) + 32768)), 16);
    const int px = _mm_cvtsi128_si32(_mm_packus_epi16(_mm_packus_epi32(sum, sum), sum));
    std::memcpy(out + x * C, &px, 4);
  }
  bilinear_row<C>(out, mid, index, w, last, width, cmin);
}
#endif

#if defined(AUG_AVX2_PHILOX)
AUG_AVX512_WARNINGS_OFF
// bilinear_row_avx2 four pixels at a time, one per 128-bit lane of an AVX-512 register (the same
// loads, shuffle and multiply-add per pixel, each lane with its pixel's weights), the four pixels'
// bytes then joined by one byte permute (VBMI). Groups whose taps are not neighbouring columns, and
// the row's last pixels, take the scalar path.
// Byte c of 128-bit lane k goes to byte C k + c (c < C, k < 4).
struct LaneJoin {
  std::uint8_t bytes[64];
};
template <int C>
constexpr LaneJoin lane_join() {
  LaneJoin j{};
  for (int k = 0; k < 4; ++k)
    for (int c = 0; c < C; ++c) j.bytes[C * k + c] = static_cast<std::uint8_t>(16 * k + c);
  return j;
}
template <int C>
alignas(64) constexpr LaneJoin kLaneJoin = lane_join<C>();

template <int C>
[[gnu::target("avx512f,avx512bw,avx512vbmi")]] void bilinear_row_avx512(std::uint8_t* out, const std::uint16_t* mid,
                                                                       const std::int32_t* index,
                                                                       const std::int32_t* w, int width, int cmin) {
  static_assert(C == 3 || C == 4);
  const __m512i pairs = _mm512_broadcast_i32x4(C == 3 ? _mm_setr_epi8(0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11, -1, -1, -1, -1)
                                                      : _mm_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15));
  const __m512i offset = _mm512_broadcast_i32x4(C == 3 ? _mm_setr_epi16(-32768, -32768, -32768, -32768, -32768, -32768, 0, 0)
                                                       : _mm_set1_epi16(-32768));
  const __m512i spread = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
  const __m512i joiner = _mm512_load_si512(kLaneJoin<C>.bytes);
  const int last = C == 3 ? width - 1 : width;  // an RGB group writes 4 bytes past its last pixel's
  int x = 0;
  for (; x + 4 <= last; x += 4) {
    const std::int32_t* ix = index + 2 * x;
    if (ix[1] != ix[0] + 1 || ix[3] != ix[2] + 1 || ix[5] != ix[4] + 1 || ix[7] != ix[6] + 1) {
      _mm256_zeroupper();
      bilinear_row<C>(out, mid, index, w, x, x + 4, cmin);
      continue;
    }
    auto at = [&](int k) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(mid + (ix[2 * k] - cmin) * C)); };
    __m512i v = _mm512_castsi128_si512(at(0));
    v = _mm512_inserti32x4(v, at(1), 1);
    v = _mm512_inserti32x4(v, at(2), 2);
    v = _mm512_inserti32x4(v, at(3), 3);
    const __m512i sv = _mm512_xor_si512(_mm512_shuffle_epi8(v, pairs), offset);
    const std::int32_t* wx = w + 2 * x;
    const __m128i ab = _mm_setr_epi32(
        static_cast<std::int32_t>((static_cast<std::uint32_t>(wx[1]) << 16) | static_cast<std::uint32_t>(wx[0])),
        static_cast<std::int32_t>((static_cast<std::uint32_t>(wx[3]) << 16) | static_cast<std::uint32_t>(wx[2])),
        static_cast<std::int32_t>((static_cast<std::uint32_t>(wx[5]) << 16) | static_cast<std::uint32_t>(wx[4])),
        static_cast<std::int32_t>((static_cast<std::uint32_t>(wx[7]) << 16) | static_cast<std::uint32_t>(wx[6])));
    const __m128i back = _mm_setr_epi32(32768 * (wx[0] + wx[1]) + 32768, 32768 * (wx[2] + wx[3]) + 32768,
                                        32768 * (wx[4] + wx[5]) + 32768, 32768 * (wx[6] + wx[7]) + 32768);
    __m512i sum = _mm512_madd_epi16(sv, _mm512_permutexvar_epi32(spread, _mm512_castsi128_si512(ab)));
    sum = _mm512_srli_epi32(_mm512_add_epi32(sum, _mm512_permutexvar_epi32(spread, _mm512_castsi128_si512(back))), 16);
    const __m512i bytes = _mm512_packus_epi16(_mm512_packus_epi32(sum, sum), sum);
    const __m128i px = _mm512_castsi512_si128(_mm512_permutexvar_epi8(joiner, bytes));
    if constexpr (C == 4) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 4 * x), px);
    } else {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 3 * x), px);
      const int tail = _mm_extract_epi32(px, 2);
      std::memcpy(out + 3 * x + 8, &tail, 4);
    }
  }
  // GCC 12 leaves the upper halves dirty here (no vzeroupper of its own in this function); the
  // SSE code that runs next (OpenCV's, libjpeg's) would then run several times slower.
  _mm256_zeroupper();
  bilinear_row<C>(out, mid, index, w, x, width, cmin);
}
AUG_AVX512_WARNINGS_ON
#endif

// bilinear_row with the vector path where it has one (3 and 4 channels, AVX2 or AVX-512 VBMI).
template <int C>
void bilinear_row_any(std::uint8_t* out, const std::uint16_t* mid, const std::int32_t* index, const std::int32_t* w,
                      int width, int cmin) {
#if defined(AUG_AVX2_PHILOX)
  if constexpr (C == 3 || C == 4) {
    static const bool vbmi = host_has_avx512_vbmi();
    if (vbmi) return bilinear_row_avx512<C>(out, mid, index, w, width, cmin);
    if (host_has_avx2()) return bilinear_row_avx2<C>(out, mid, index, w, width, cmin);
  }
#endif
  bilinear_row<C>(out, mid, index, w, 0, width, cmin);
}

// The horizontal taps of a blur are a plain convolution away from the borders: outputs [x0, x1)
// read index x - r + k with the same weights. Found from the table, so any table works.
struct ConvRange {
  int x0 = 0, x1 = 0, r = 0;
};

ConvRange conv_range(const AxisTaps& h, int out_width, bool use_float) {
  ConvRange best;
  const int T = h.taps;
  auto same_weights = [&](int a, int b) {
    for (int k = 0; k < T; ++k)
      if (use_float ? h.fweight[a * T + k] != h.fweight[b * T + k] : h.iweight[a * T + k] != h.iweight[b * T + k])
        return false;
    return true;
  };
  auto conv_at = [&](int x, int r) {
    for (int k = 0; k < T; ++k)
      if (h.index[x * T + k] != x - r + k) return false;
    return true;
  };
  for (int x = 0; x < out_width;) {
    const int r = x - h.index[x * T];
    if (!conv_at(x, r)) {
      ++x;
      continue;
    }
    int end = x + 1;
    while (end < out_width && conv_at(end, r) && same_weights(x, end)) ++end;
    if (end - x > best.x1 - best.x0) best = ConvRange{x, end, r};
    x = end;
  }
  return best;
}

// The horizontal pass of one source row into exact int32 sums (no rounding yet): NT taps (0: t.taps
// at run time), C channels.
template <class T, int C, int NT>
void hsum_row(std::int32_t* dst, const T* src, const AxisTaps& h, int width) {
  const int taps = NT > 0 ? NT : h.taps;
  for (int x = 0; x < width; ++x) {
    const std::int32_t* idx = h.index + x * taps;
    const std::int32_t* w = h.iweight + x * taps;
    std::int32_t a[C] = {};
    for (int k = 0; k < taps; ++k) {
      const T* p = src + idx[k] * C;
      for (int c = 0; c < C; ++c) a[c] += w[k] * static_cast<std::int32_t>(p[c]);
    }
    for (int c = 0; c < C; ++c) dst[x * C + c] = a[c];
  }
}

template <class T, int C>
void hsum_row_taps(std::int32_t* dst, const T* src, const AxisTaps& h, int width) {
  switch (h.taps) {
    case 1: return hsum_row<T, C, 1>(dst, src, h, width);
    case 2: return hsum_row<T, C, 2>(dst, src, h, width);
    case 3: return hsum_row<T, C, 3>(dst, src, h, width);
    case 4: return hsum_row<T, C, 4>(dst, src, h, width);
    default: return hsum_row<T, C, 0>(dst, src, h, width);
  }
}

template <class T>
void hsum_row_any(std::int32_t* dst, const T* src, const AxisTaps& h, int width, int channels) {
  switch (channels) {
    case 1: return hsum_row_taps<T, 1>(dst, src, h, width);
    case 2: return hsum_row_taps<T, 2>(dst, src, h, width);
    case 3: return hsum_row_taps<T, 3>(dst, src, h, width);
    default: return hsum_row_taps<T, 4>(dst, src, h, width);
  }
}

// out[i] = sat((half + sum_k w[k] * rows[k][i]) >> shift); four taps in one loop, others through acc.
template <class T, class Acc>
AUG_CLONES void vsum_row4(T* out, const std::int32_t* r0, const std::int32_t* r1, const std::int32_t* r2,
                          const std::int32_t* r3, const std::int32_t* w, int n, int shift) {
  const Acc half = Acc{1} << (shift - 1), w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
  constexpr Acc top = static_cast<Acc>(SampleTraits<T>::max);
  for (int i = 0; i < n; ++i) {
    Acc v = (half + w0 * r0[i] + w1 * r1[i] + w2 * r2[i] + w3 * r3[i]) >> shift;
    v = v < 0 ? 0 : v;
    v = v > top ? top : v;
    out[i] = static_cast<T>(v);
  }
}
template <class Acc>
AUG_CLONES void vsum_first(Acc* acc, const std::int32_t* r, std::int32_t w, int n, int shift) {
  const Acc half = Acc{1} << (shift - 1);
  for (int i = 0; i < n; ++i) acc[i] = half + static_cast<Acc>(w) * r[i];
}
template <class Acc>
AUG_CLONES void vsum_add(Acc* acc, const std::int32_t* r, std::int32_t w, int n) {
  for (int i = 0; i < n; ++i) acc[i] += static_cast<Acc>(w) * r[i];
}
template <class T, class Acc>
AUG_CLONES void vsum_finish(T* out, const Acc* acc, int n, int shift) {
  constexpr Acc top = static_cast<Acc>(SampleTraits<T>::max);
  for (int i = 0; i < n; ++i) {
    Acc v = acc[i] >> shift;
    v = v < 0 ? 0 : v;
    v = v > top ? top : v;
    out[i] = static_cast<T>(v);
  }
}

// Integer images with wide weights, horizontal pass first (cheaper when enlarging vertically: each
// source row is resampled once, into a ring of rows as deep as the rows one output reads), then
// the vertical sums of whole rows. Acc: int32 where the caller has bounded every sum below 2^31.
template <class T, class Acc>
void separable_integer_rows(View<const T> in, View<T> out, const AxisTaps& h, const AxisTaps& v, int frac_bits) {
  const int C = in.channels, n = out.width * C, shift = 2 * frac_bits;
  int depth = 1;
  for (int y = 0; y < out.height; ++y) {
    const std::int32_t* vi = v.index + y * v.taps;
    const auto [lo, hi] = std::minmax_element(vi, vi + v.taps);
    depth = std::max(depth, *hi - *lo + 1);
  }
  std::vector<std::int32_t> ring(static_cast<std::size_t>(depth) * n);
  std::vector<int> held(static_cast<std::size_t>(depth), -1);  // the source row in each slot
  std::vector<Acc> acc(static_cast<std::size_t>(n));
  std::vector<const std::int32_t*> rows(static_cast<std::size_t>(v.taps));
  for (int y = 0; y < out.height; ++y) {
    const std::int32_t* vi = v.index + y * v.taps;
    const std::int32_t* vw = v.iweight + y * v.taps;
    // The rows of one output span at most `depth` consecutive source rows: distinct slots.
    for (int k = 0; k < v.taps; ++k) {
      const int slot = vi[k] % depth;
      std::int32_t* r = ring.data() + static_cast<std::size_t>(slot) * n;
      if (held[slot] != vi[k]) {
        hsum_row_any(r, in.row(vi[k]), h, out.width, C);
        held[slot] = vi[k];
      }
      rows[k] = r;
    }
    T* dst = out.row(y);
    if (v.taps == 4) {
      vsum_row4<T, Acc>(dst, rows[0], rows[1], rows[2], rows[3], vw, n, shift);
      continue;
    }
    vsum_first(acc.data(), rows[0], vw[0], n, shift);
    for (int k = 1; k < v.taps; ++k)
      if (vw[k] != 0) vsum_add(acc.data(), rows[k], vw[k], n);
    vsum_finish(dst, acc.data(), n, shift);
  }
}

// Integer images, vertical pass first. M is the intermediate: uint16 for 8-bit images with 8-bit
// weights (bilinear, nearest, blur: non-negative, summing to 256), int32 otherwise.
template <class T, class M>
void separable_integer(View<const T> in, View<T> out, const AxisTaps& h, const AxisTaps& v, int frac_bits) {
  constexpr bool narrow = std::is_same_v<M, std::uint16_t>;
  const int C = in.channels;
  const int shift = 2 * frac_bits;
  int cmin = in.width, cmax = 0;
  for (int i = 0; i < out.width * h.taps; ++i) {
    cmin = std::min(cmin, h.index[i]);
    cmax = std::max(cmax, h.index[i]);
  }
  const int n_mid = (cmax - cmin + 1) * C;
  std::vector<M> mid(static_cast<std::size_t>(n_mid) + 8);  // + 8: bilinear_row_avx2 reads past the last pixel
  std::vector<const std::uint8_t*> rows(narrow ? static_cast<std::size_t>(v.taps) : 0);
  std::vector<std::int32_t> row_weights(rows.size());
  const ConvRange conv = narrow ? conv_range(h, out.width, false) : ConvRange{};

  // Wide intermediates: every partial sum of the horizontal pass is bounded by the largest
  // intermediate times the largest sum of |horizontal weights|; int32 holds them when that bound
  // (with the rounding constant) does.
  bool int32_sums = false;
  if constexpr (!narrow) {
    const std::int64_t max = SampleTraits<T>::max, hsum = max_abs_sum(h, out.width), vsum = max_abs_sum(v, out.height);
    int32_sums = max * vsum * hsum + (std::int64_t{1} << (shift - 1)) <= INT32_MAX;
    // Horizontal pass first when that costs less: it resamples each source row once (gathers, the
    // expensive part) where the vertical-first order gathers once per output row. Its int32 rows
    // need max * hsum below 2^31, as the vertical-first order needs max * vsum.
    const double gathers = static_cast<double>(out.width) * C * h.taps;
    int lo = v.index[0], hi = v.index[0];
    for (int i = 0; i < out.height * v.taps; ++i) lo = std::min(lo, v.index[i]), hi = std::max(hi, v.index[i]);
    const double rows_first = (hi - lo + 1) * gathers * 4 + static_cast<double>(out.height) * v.taps * out.width * C;
    const double columns_first = static_cast<double>(out.height) * (v.taps * static_cast<double>(n_mid) + gathers * 4);
    if (rows_first < columns_first && max * hsum <= INT32_MAX) {
      if (int32_sums) separable_integer_rows<T, std::int32_t>(in, out, h, v, frac_bits);
      else separable_integer_rows<T, std::int64_t>(in, out, h, v, frac_bits);
      return;
    }
  }

  for (int y = 0; y < out.height; ++y) {
    // Vertical pass over the contiguous source columns the horizontal taps need.
    const std::int32_t* vw = v.iweight + y * v.taps;
    const std::int32_t* vi = v.index + y * v.taps;
    if constexpr (narrow) {
      int used = 0;
      for (int t = 0; t < v.taps; ++t)
        if (vw[t] != 0) {
          rows[used] = in.row(vi[t]) + cmin * C;
          row_weights[used++] = vw[t];
        }
      vertical_u16(mid.data(), rows.data(), row_weights.data(), used, n_mid);
    } else {
      mul_row(mid.data(), in.row(vi[0]) + cmin * C, n_mid, vw[0]);
      for (int t = 1; t < v.taps; ++t)
        if (vw[t] != 0) mac_row(mid.data(), in.row(vi[t]) + cmin * C, n_mid, vw[t]);
    }
    // Horizontal pass.
    T* dst = out.row(y);
    int x = 0;
    auto gather_to = [&](int x_end) {
      for (; x < x_end; ++x) {
        const std::int32_t* idx = h.index + x * h.taps;
        const std::int32_t* w = h.iweight + x * h.taps;
        for (int c = 0; c < C; ++c) {
          std::int64_t s = 0;
          for (int k = 0; k < h.taps; ++k) s += static_cast<std::int64_t>(w[k]) * mid[(idx[k] - cmin) * C + c];
          dst[x * C + c] = saturate<T>(round_shift(s, shift));
        }
      }
    };
    if constexpr (!narrow) {
      const bool done = int32_sums ? gather_row_any<T, std::int32_t>(dst, mid.data(), h, out.width, C, cmin, shift)
                                   : gather_row_any<T, std::int64_t>(dst, mid.data(), h, out.width, C, cmin, shift);
      if (done) x = out.width;
    }
    if constexpr (narrow) {
      if (conv.x1 - conv.x0 >= 8) {
        gather_to(conv.x0);
        const int n = (conv.x1 - conv.x0) * C;
        const std::int32_t* w = h.iweight + conv.x0 * h.taps;
        const std::uint16_t* m = mid.data() + (conv.x0 - conv.r - cmin) * C;
        horizontal_u8(dst + conv.x0 * C, m, n, w, h.taps, C);
        x = conv.x1;
      } else if (h.taps == 2) {
        switch (C) {
          case 1: bilinear_row<1>(dst, mid.data(), h.index, h.iweight, 0, out.width, cmin); break;
          case 3: bilinear_row_any<3>(dst, mid.data(), h.index, h.iweight, out.width, cmin); break;
          case 4: bilinear_row_any<4>(dst, mid.data(), h.index, h.iweight, out.width, cmin); break;
          default: break;
        }
        if (C == 1 || C == 3 || C == 4) x = out.width;
      }
    }
    gather_to(out.width);
  }
}

void separable_float(View<const float> in, View<float> out, const AxisTaps& h, const AxisTaps& v) {
  const int C = in.channels;
  int row0 = in.height, row1 = 0;
  for (int i = 0; i < out.height * v.taps; ++i) {
    row0 = std::min(row0, v.index[i]);
    row1 = std::max(row1, v.index[i]);
  }
  const int n = out.width * C;
  std::vector<float> mid(static_cast<std::size_t>(row1 - row0 + 1) * n);
  const ConvRange conv = conv_range(h, out.width, true);
  // Horizontal pass over every source row the vertical taps read (as the kernels do).
  for (int r = row0; r <= row1; ++r) {
    const float* src = in.row(r);
    float* m = mid.data() + static_cast<std::size_t>(r - row0) * n;
    auto gather = [&](int x0, int x1) {
      for (int x = x0; x < x1; ++x)
        for (int c = 0; c < C; ++c) {
          float acc = 0.f;
          for (int k = 0; k < h.taps; ++k) acc = acc + h.fweight[x * h.taps + k] * src[h.index[x * h.taps + k] * C + c];
          m[x * C + c] = acc;
        }
    };
    if (conv.x1 - conv.x0 >= 8) {
      gather(0, conv.x0);
      conv_row(m + conv.x0 * C, src + (conv.x0 - conv.r) * C, (conv.x1 - conv.x0) * C, h.fweight + conv.x0 * h.taps,
               h.taps, C);
      gather(conv.x1, out.width);
    } else {
      gather(0, out.width);
    }
  }
  // Vertical pass, taps in order.
  std::vector<const float*> rows(static_cast<std::size_t>(v.taps));
  for (int y = 0; y < out.height; ++y) {
    for (int t = 0; t < v.taps; ++t) rows[t] = mid.data() + static_cast<std::size_t>(v.index[y * v.taps + t] - row0) * n;
    sum_rows(out.row(y), rows.data(), n, v.fweight + y * v.taps, v.taps);
  }
}


}  // namespace
}  // namespace separable_cpu_impl

template <class T>
void separable(View<const T> in, View<T> out, AxisTaps h, AxisTaps v, int frac_bits) {
  if constexpr (std::is_same_v<T, float>) {
    separable_cpu_impl::separable_float(in, out, h, v);
  } else if constexpr (std::is_same_v<T, std::uint8_t>) {
    bool narrow = frac_bits == 8;
    for (int i = 0; narrow && i < out.width * h.taps; ++i) narrow = h.iweight[i] >= 0;
    for (int i = 0; narrow && i < out.height * v.taps; ++i) narrow = v.iweight[i] >= 0;
    if (narrow) separable_cpu_impl::separable_integer<T, std::uint16_t>(in, out, h, v, frac_bits);
    else separable_cpu_impl::separable_integer<T, std::int32_t>(in, out, h, v, frac_bits);
  } else {
    separable_cpu_impl::separable_integer<T, std::int32_t>(in, out, h, v, frac_bits);
  }
}


template void separable<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, AxisTaps, AxisTaps, int);
template void separable<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, AxisTaps, AxisTaps, int);
template void separable<float>(View<const float>, View<float>, AxisTaps, AxisTaps, int);

}  // namespace aug::k::cpu
