// unsharp_mask's host driver: rows streamed through rings of k rows (x, b, and the horizontal sums
// of x and of the mask), so that each row is blurred, masked, blurred again and blended while it is
// in cache. The sums are the kernels' (horizontal, then vertical; taps in order from +0, reflect101),
// lane-wise in eight-lane vectors, 64 lanes at a time (independent sums in flight). With OpenCV's
// fixed kernels (sigma 0, k <= 7) every weight is a multiple of 1/64: the mask's two blurs are then
// exact in binary32 whatever the order, equal to integer sums over 4096, which the driver computes
// in 16-bit lanes. On an 8- or 16-bit image, where 32 soft weights in a row are all zero the output
// is the input's values, the blend's exact value there (see blend_row_avx2).
// With AVX-512 the conversions, the mask (made in the pass of b's vertical sums) and the blend run
// sixteen lanes a vector, the mask's integer sums 32; the rings are kept from image to image.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/core/border.hpp"
#include "kernels/core/host_simd.hpp"
#include "kernels/filter/unsharp_mask.hpp"

namespace aug::k::cpu {

namespace unsharp_mask_cpu_impl {
namespace {

// out[i] = sum_j w[j] * src(j)[i] in binary32, terms added in j order from 0: per lane, the
// separable engine's weighted_sum (and the kernels' loops). Each lane's sum is a chain of dependent
// additions; eight vectors of V (L lanes each) at a time keep enough chains in flight to hide their
// latency, then one vector at a time, then one value at a time.
template <class V, int L, class Src>
[[gnu::always_inline]] inline void wide_sum(float* __restrict out, Src src, int n, const float* w, int taps) {
  int i = 0;
  for (; i + 8 * L <= n; i += 8 * L) {
    V a[8] = {};
    for (int j = 0; j < taps; ++j) {
      const float* p = src(j) + i;
      for (int u = 0; u < 8; ++u) {
        V v;
        std::memcpy(&v, p + u * L, sizeof v);
        a[u] = a[u] + w[j] * v;
      }
    }
    for (int u = 0; u < 8; ++u) std::memcpy(out + i + u * L, &a[u], sizeof a[u]);
  }
  for (; i + L <= n; i += L) {
    V acc = {};
    for (int j = 0; j < taps; ++j) {
      V x;
      std::memcpy(&x, src(j) + i, sizeof x);
      acc = acc + w[j] * x;
    }
    std::memcpy(out + i, &acc, sizeof acc);
  }
  for (; i < n; ++i) {
    float acc = 0.f;
    for (int j = 0; j < taps; ++j) acc = acc + w[j] * src(j)[i];
    out[i] = acc;
  }
}

AUG_CLONES void conv_row8(float* out, const float* m, int n, const float* w, int taps, int step) {
  wide_sum<f8, 8>(out, [&](int j) { return m + j * step; }, n, w, taps);
}
AUG_CLONES void sum_rows8(float* out, const float* const* rows, int n, const float* w, int taps) {
  wide_sum<f8, 8>(out, [&](int j) { return rows[j]; }, n, w, taps);
}

#if defined(AUG_AVX2_PHILOX)
// The same sums sixteen lanes wide with AVX-512 (the same operations per lane).
using f16 = float __attribute__((vector_size(64)));
[[gnu::target("avx512f")]] void conv_row16f(float* out, const float* m, int n, const float* w, int taps, int step) {
  wide_sum<f16, 16>(out, [&](int j) { return m + j * step; }, n, w, taps);
}
[[gnu::target("avx512f")]] void sum_rows16f(float* out, const float* const* rows, int n, const float* w, int taps) {
  wide_sum<f16, 16>(out, [&](int j) { return rows[j]; }, n, w, taps);
}
#endif

void wide_conv_row(float* out, const float* m, int n, const float* w, int taps, int step) {
#if defined(AUG_AVX2_PHILOX)
  static const bool avx512 = host_has_avx512();
  if (avx512) return conv_row16f(out, m, n, w, taps, step);
#endif
  conv_row8(out, m, n, w, taps, step);
}
void wide_sum_rows(float* out, const float* const* rows, int n, const float* w, int taps) {
#if defined(AUG_AVX2_PHILOX)
  static const bool avx512 = host_has_avx512();
  if (avx512) return sum_rows16f(out, rows, n, w, taps);
#endif
  sum_rows8(out, rows, n, w, taps);
}

// dst = the horizontal blur of one row (n = W * C values).
void blur_row(float* dst, const float* src, int W, int C, const float* w, int k) {
  const int r = k / 2;
  if (W > 2 * r) wide_conv_row(dst + r * C, src, (W - 2 * r) * C, w, k, C);
  const int left = W > 2 * r ? r : W;  // the columns whose taps reach past an edge: [0, left) and [right, W)
  const int right = W > 2 * r ? W - r : W;
  for (int x = 0; x < W; x = x + 1 == left ? right : x + 1) {
    for (int c = 0; c < C; ++c) {
      float acc = 0.0f;
      for (int i = 0; i < k; ++i) acc = acc + w[i] * src[border_index(x + i - r, W, kBorderReflect101) * C + c];
      dst[x * C + c] = acc;
    }
  }
}

// The weights times 64, when they are all whole numbers (then they sum to 64); else empty.
std::vector<std::uint16_t> weights_64(const float* w, int k) {
  std::vector<std::uint16_t> q;
  int sum = 0;
  for (int i = 0; i < k; ++i) {
    const float v = w[i] * 64.0f;  // exact: a power of two
    if (!(v >= 0.0f && v <= 64.0f) || v != std::floor(v)) return {};
    q.push_back(static_cast<std::uint16_t>(v));
    sum += q.back();
  }
  if (sum != 64) return {};
  return q;
}

// 16-bit lanes (GCC vector extensions, L of them); the sums stay below 2^13, nothing wraps.
using u16x16 = std::uint16_t __attribute__((vector_size(32)));
using u16x32 = std::uint16_t __attribute__((vector_size(64)));

// out[j] = sum_i q[i] * src(i)[j], exact: two vectors of V at a time, then value by value.
template <class V, int L, class Src>
[[gnu::always_inline]] inline void integer_sum(std::uint16_t* __restrict out, Src src, int n, const std::uint16_t* q,
                                               int k) {
  int j = 0;
  for (; j + 2 * L <= n; j += 2 * L) {
    V a0 = {}, a1 = {};
    for (int i = 0; i < k; ++i) {
      V v0, v1;
      std::memcpy(&v0, src(i) + j, sizeof v0);
      std::memcpy(&v1, src(i) + j + L, sizeof v1);
      a0 = a0 + q[i] * v0;
      a1 = a1 + q[i] * v1;
    }
    std::memcpy(out + j, &a0, sizeof a0);
    std::memcpy(out + j + L, &a1, sizeof a1);
  }
  for (; j < n; ++j) {
    unsigned acc = 0;
    for (int i = 0; i < k; ++i) acc += q[i] * src(i)[j];
    out[j] = static_cast<std::uint16_t>(acc);
  }
}

AUG_CLONES void conv_row16(std::uint16_t* out, const std::uint16_t* src, int n, const std::uint16_t* q, int k,
                           int step) {
  integer_sum<u16x16, 16>(out, [&](int i) { return src + i * step; }, n, q, k);
}

AUG_CLONES void sum_rows16(std::uint16_t* out, const std::uint16_t* const* rows, int n, const std::uint16_t* q, int k) {
  integer_sum<u16x16, 16>(out, [&](int i) { return rows[i]; }, n, q, k);
}

#if defined(AUG_AVX2_PHILOX)
// The same sums 32 lanes a vector with AVX-512 BW.
[[gnu::target("avx512f,avx512bw")]] void conv_row32(std::uint16_t* out, const std::uint16_t* src, int n,
                                                   const std::uint16_t* q, int k, int step) {
  integer_sum<u16x32, 32>(out, [&](int i) { return src + i * step; }, n, q, k);
}
[[gnu::target("avx512f,avx512bw")]] void sum_rows32(std::uint16_t* out, const std::uint16_t* const* rows, int n,
                                                   const std::uint16_t* q, int k) {
  integer_sum<u16x32, 32>(out, [&](int i) { return rows[i]; }, n, q, k);
}
#endif

void integer_conv_row(std::uint16_t* out, const std::uint16_t* src, int n, const std::uint16_t* q, int k, int step) {
#if defined(AUG_AVX2_PHILOX)
  static const bool bw = host_has_avx512_bw();
  if (bw) return conv_row32(out, src, n, q, k, step);
#endif
  conv_row16(out, src, n, q, k, step);
}
void integer_sum_rows(std::uint16_t* out, const std::uint16_t* const* rows, int n, const std::uint16_t* q, int k) {
#if defined(AUG_AVX2_PHILOX)
  static const bool bw = host_has_avx512_bw();
  if (bw) return sum_rows32(out, rows, n, q, k);
#endif
  sum_rows16(out, rows, n, q, k);
}

// The horizontal sums of a 0/1 mask row, in 64ths (at most 64).
void blur_row16(std::uint16_t* dst, const std::uint16_t* src, int W, int C, const std::uint16_t* q, int k) {
  const int r = k / 2;
  if (W > 2 * r) integer_conv_row(dst + r * C, src, (W - 2 * r) * C, q, k, C);
  const int left = W > 2 * r ? r : W, right = W > 2 * r ? W - r : W;
  for (int x = 0; x < W; x = x + 1 == left ? right : x + 1) {
    for (int c = 0; c < C; ++c) {
      int acc = 0;
      for (int i = 0; i < k; ++i) acc += q[i] * src[border_index(x + i - r, W, kBorderReflect101) * C + c];
      dst[x * C + c] = static_cast<std::uint16_t>(acc);
    }
  }
}

AUG_CLONES void mask_row16(std::uint16_t* m, const float* x, const float* b, int n, float threshold) {
  for (int i = 0; i < n; ++i) m[i] = unsharp_mask_value(x[i], b[i], threshold) != 0.0f ? 1 : 0;
}

template <class T>
AUG_CLONES void unit_row(float* x, const T* s, int n) {
  for (int i = 0; i < n; ++i) x[i] = to_unit(s[i]);
}

AUG_CLONES void mask_row(float* m, const float* x, const float* b, int n, float threshold) {
  for (int i = 0; i < n; ++i) m[i] = unsharp_mask_value(x[i], b[i], threshold);
}

// `s`: the soft weights, or (S = uint16) the exact ones in 4096ths.
template <class S>
[[gnu::always_inline]] inline float soft(const S* s, int i) {
  if constexpr (std::is_same_v<S, float>) return s[i];
  else return static_cast<float>(s[i]) * (1.0f / 4096.0f);
}

template <class T, class S>
AUG_CLONES void blend_row(T* out, const float* x, const float* b, const S* s, int n, float alpha) {
  for (int i = 0; i < n; ++i) out[i] = from_unit<T>(unsharp_blend(x[i], b[i], soft(s, i), alpha));
}

#if defined(__x86_64__) && defined(__GNUC__)
#define AUG_UNSHARP_AVX2 1
// The same two rows with AVX2 intrinsics (the compiler converts lanes one by one otherwise): the
// same IEEE operations lane by lane; max(0, v) and min(1, v) are the kernels' two selects (v < 0 ?
// 0 : v, v > 1 ? 1 : v), NaN passing through.
[[gnu::target("avx2")]] inline __m256 load8(const std::uint8_t* s) {
  return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s))));
}
[[gnu::target("avx2")]] inline __m256 load8(const std::uint16_t* s) {
  return _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s))));
}
[[gnu::target("avx2")]] inline __m256 soft8(const float* s) { return _mm256_loadu_ps(s); }
[[gnu::target("avx2")]] inline __m256 soft8(const std::uint16_t* s) {
  return _mm256_mul_ps(load8(s), _mm256_set1_ps(1.0f / 4096.0f));  // exact
}
[[gnu::target("avx2")]] inline void store8(float* out, __m256 o) { _mm256_storeu_ps(out, o); }
// o in [0, 1]: o * max rounded half to even is in [0, max].
[[gnu::target("avx2")]] inline __m128i round8(__m256 o, float max) {
  const __m256i q = _mm256_cvtps_epi32(
      _mm256_round_ps(_mm256_mul_ps(o, _mm256_set1_ps(max)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  return _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
}
[[gnu::target("avx2")]] inline void store8(std::uint16_t* out, __m256 o) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), round8(o, 65535.0f));
}
[[gnu::target("avx2")]] inline void store8(std::uint8_t* out, __m256 o) {
  const __m128i w = round8(o, 255.0f);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(w, w));
}

// The mask as 0/1 in 16-bit lanes: |r| by clearing the sign (the kernels' r < 0 ? -r : r, -0 and
// NaN included), then |r| * 255 > threshold.
[[gnu::target("avx2")]] void mask_row16_avx2(std::uint16_t* m, const float* x, const float* b, int n,
                                             float threshold) {
  const __m256 sign = _mm256_set1_ps(-0.0f), k255 = _mm256_set1_ps(255.0f), t = _mm256_set1_ps(threshold);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i bits[2];
    for (int h = 0; h < 2; ++h) {
      const __m256 r = _mm256_sub_ps(_mm256_loadu_ps(x + i + 8 * h), _mm256_loadu_ps(b + i + 8 * h));
      const __m256 c = _mm256_cmp_ps(_mm256_mul_ps(_mm256_andnot_ps(sign, r), k255), t, _CMP_GT_OQ);
      bits[h] = _mm256_srli_epi32(_mm256_castps_si256(c), 31);
    }
    // packus works within 128-bit halves: put the quarters back in order.
    const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(bits[0], bits[1]), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(m + i), p);
  }
  for (; i < n; ++i) m[i] = unsharp_mask_value(x[i], b[i], threshold) != 0.0f ? 1 : 0;
}

template <class T>
[[gnu::target("avx2")]] void unit_row_avx2(float* x, const T* s, int n) {
  const __m256 max = _mm256_set1_ps(static_cast<float>(SampleTraits<T>::max));
  int i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_div_ps(load8(s + i), max));
  for (; i < n; ++i) x[i] = to_unit(s[i]);
}

// The soft weights of 32 lanes all zero (S = uint16: the exact path's 4096ths).
[[gnu::target("avx2")]] inline bool zero32(const std::uint16_t* s) {
  const __m256i v = _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)),
                                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 16)));
  return _mm256_testz_si256(v, v) != 0;
}

template <class T, class S>
[[gnu::target("avx2")]] inline void blend8_avx2(T* out, const float* x, const float* b, const S* s, __m256 a) {
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
  const __m256 xv = _mm256_loadu_ps(x), sv = soft8(s);
  const __m256 r = _mm256_sub_ps(xv, _mm256_loadu_ps(b));
  const __m256 sharp = _mm256_min_ps(one, _mm256_max_ps(zero, _mm256_add_ps(xv, _mm256_mul_ps(a, r))));
  const __m256 o = _mm256_add_ps(_mm256_mul_ps(sharp, sv), _mm256_mul_ps(xv, _mm256_sub_ps(one, sv)));
  store8(out, _mm256_min_ps(one, _mm256_max_ps(zero, o)));
}

// `in`: the input row. On the exact path of an 8- or 16-bit image, where 32 soft weights are all
// zero the blend's values are the input's own: x = v / max is finite in [0, 1], so is sharp; then
// sharp * 0 = +0, x * (1 - 0) = x, +0 + x = x, clamp01(x) = x, and from_unit(to_unit(v)) = v for
// every v (checked for every value by UnsharpMask.HostDriverRoundTripHoldsForEveryValue): those
// 32 are copied. (A float image may hold values outside [0, 1], -0 or NaN: always blended.)
template <class T, class S>
[[gnu::target("avx2")]] void blend_row_avx2(T* out, [[maybe_unused]] const T* in, const float* x, const float* b,
                                            const S* s, int n, float alpha) {
  const __m256 a = _mm256_set1_ps(alpha);
  int i = 0;
  if constexpr (!std::is_same_v<T, float> && std::is_same_v<S, std::uint16_t>) {
    for (; i + 32 <= n; i += 32) {
      if (zero32(s + i)) {
        std::memcpy(out + i, in + i, 32 * sizeof(T));
        continue;
      }
      for (int h = 0; h < 32; h += 8) blend8_avx2(out + i + h, x + i + h, b + i + h, s + i + h, a);
    }
  }
  for (; i + 8 <= n; i += 8) blend8_avx2(out + i, x + i, b + i, s + i, a);
  for (; i < n; ++i) out[i] = from_unit<T>(unsharp_blend(x[i], b[i], soft(s, i), alpha));
}

// The same rows sixteen lanes wide with AVX-512 (F, BW): the same operations lane by lane.
#define AUG_UNSHARP_AVX512 gnu::target("avx512f,avx512bw")
AUG_AVX512_WARNINGS_OFF
[[AUG_UNSHARP_AVX512]] inline __m512 load16(const std::uint8_t* s) {
  return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s))));
}
[[AUG_UNSHARP_AVX512]] inline __m512 load16(const std::uint16_t* s) {
  return _mm512_cvtepi32_ps(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s))));
}
[[AUG_UNSHARP_AVX512]] inline __m512 soft16(const float* s) { return _mm512_loadu_ps(s); }
[[AUG_UNSHARP_AVX512]] inline __m512 soft16(const std::uint16_t* s) {
  return _mm512_mul_ps(load16(s), _mm512_set1_ps(1.0f / 4096.0f));  // exact
}
[[AUG_UNSHARP_AVX512]] inline void store16(float* out, __m512 o) { _mm512_storeu_ps(out, o); }
// o in [0, 1] (or NaN, whose conversion's integer indefinite saturates to 0, as AVX2's packus does).
[[AUG_UNSHARP_AVX512]] inline __m512i round16(__m512 o, float max) {
  const __m512i q = _mm512_cvtps_epi32(
      _mm512_roundscale_ps(_mm512_mul_ps(o, _mm512_set1_ps(max)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  return _mm512_max_epi32(q, _mm512_setzero_si512());
}
[[AUG_UNSHARP_AVX512]] inline void store16(std::uint16_t* out, __m512 o) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm512_cvtusepi32_epi16(round16(o, 65535.0f)));
}
[[AUG_UNSHARP_AVX512]] inline void store16(std::uint8_t* out, __m512 o) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtusepi32_epi8(round16(o, 255.0f)));
}

// v / max, sixteen at a time (unit_quotient16: the division's values).
template <class T>
[[AUG_UNSHARP_AVX512]] void unit_row_avx512(float* x, const T* s, int n) {
  const float m = static_cast<float>(SampleTraits<T>::max);
  const __m512 max = _mm512_set1_ps(m), rcp = _mm512_set1_ps(1.0f / m);
  int i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, unit_quotient16(load16(s + i), max, rcp));
  for (; i < n; ++i) x[i] = to_unit(s[i]);
}

// b = the vertical sums of the rows (sum_rows16f's sums, in its order) and, in the same pass, the
// mask of x against b as 0/1 in 16-bit lanes (mask_row16_avx2's operations).
[[AUG_UNSHARP_AVX512]] void sum_rows_mask32_avx512(float* __restrict b, std::uint16_t* __restrict m, const float* x,
                                                   const float* const* rows, int n, const float* w, int taps,
                                                   float threshold) {
  const __m512 k255 = _mm512_set1_ps(255.0f), t = _mm512_set1_ps(threshold);
  const __m512i sign = _mm512_set1_epi32(0x7FFFFFFF);
  int i = 0;
  for (; i + 128 <= n; i += 128) {
    __m512 a[8];
    for (int u = 0; u < 8; ++u) a[u] = _mm512_setzero_ps();
    for (int j = 0; j < taps; ++j) {
      const __m512 wj = _mm512_set1_ps(w[j]);
      const float* p = rows[j] + i;
      for (int u = 0; u < 8; ++u) a[u] = _mm512_add_ps(a[u], _mm512_mul_ps(wj, _mm512_loadu_ps(p + 16 * u)));
    }
    for (int u = 0; u < 8; u += 2) {
      std::uint32_t bits = 0;
      for (int h = 0; h < 2; ++h) {
        const int at = i + 16 * (u + h);
        _mm512_storeu_ps(b + at, a[u + h]);
        const __m512 r = _mm512_sub_ps(_mm512_loadu_ps(x + at), a[u + h]);
        const __m512 abs = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(r), sign));
        bits |= static_cast<std::uint32_t>(_mm512_cmp_ps_mask(_mm512_mul_ps(abs, k255), t, _CMP_GT_OQ)) << (16 * h);
      }
      _mm512_storeu_si512(m + i + 16 * u, _mm512_maskz_mov_epi16(bits, _mm512_set1_epi16(1)));
    }
  }
  for (; i < n; ++i) {
    float acc = 0.0f;
    for (int j = 0; j < taps; ++j) acc = acc + w[j] * rows[j][i];
    b[i] = acc;
    m[i] = unsharp_mask_value(x[i], acc, threshold) != 0.0f ? 1 : 0;
  }
}

template <class T, class S>
[[AUG_UNSHARP_AVX512]] inline void blend16_avx512(T* out, const float* x, const float* b, const S* s, __m512 a) {
  const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
  const __m512 xv = _mm512_loadu_ps(x), sv = soft16(s);
  const __m512 r = _mm512_sub_ps(xv, _mm512_loadu_ps(b));
  const __m512 sharp = _mm512_min_ps(one, _mm512_max_ps(zero, _mm512_add_ps(xv, _mm512_mul_ps(a, r))));
  const __m512 o = _mm512_add_ps(_mm512_mul_ps(sharp, sv), _mm512_mul_ps(xv, _mm512_sub_ps(one, sv)));
  store16(out, _mm512_min_ps(one, _mm512_max_ps(zero, o)));
}

// blend_row_avx2 sixteen lanes wide; the same copies of 32 values whose soft weights are all zero.
template <class T, class S>
[[AUG_UNSHARP_AVX512]] void blend_row_avx512(T* out, [[maybe_unused]] const T* in, const float* x, const float* b,
                                             const S* s, int n, float alpha) {
  const __m512 a = _mm512_set1_ps(alpha);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    if constexpr (!std::is_same_v<T, float> && std::is_same_v<S, std::uint16_t>) {
      const __m512i sv = _mm512_loadu_si512(s + i);
      if (_mm512_test_epi16_mask(sv, sv) == 0) {
        std::memcpy(out + i, in + i, 32 * sizeof(T));
        continue;
      }
    }
    blend16_avx512(out + i, x + i, b + i, s + i, a);
    blend16_avx512(out + i + 16, x + i + 16, b + i + 16, s + i + 16, a);
  }
  for (; i < n; ++i) out[i] = from_unit<T>(unsharp_blend(x[i], b[i], soft(s, i), alpha));
}
AUG_AVX512_WARNINGS_ON
#endif

bool has_avx2() {
#if defined(AUG_UNSHARP_AVX2)
  static const bool yes = host_has_avx2();
  return yes;
#else
  return false;
#endif
}
bool has_avx512_bw() {
#if defined(AUG_UNSHARP_AVX2)
  static const bool yes = host_has_avx512_bw();
  return yes;
#else
  return false;
#endif
}

// b = the vertical sums of the rows, then the mask of x against b as 0/1 in 16-bit lanes.
void vertical_and_mask16(float* b, std::uint16_t* m, const float* x, const float* const* rows, int n, const float* w,
                         int k, float threshold) {
#if defined(AUG_UNSHARP_AVX2)
  if (has_avx512_bw()) return sum_rows_mask32_avx512(b, m, x, rows, n, w, k, threshold);
  wide_sum_rows(b, rows, n, w, k);
  if (has_avx2()) return mask_row16_avx2(m, x, b, n, threshold);
#else
  wide_sum_rows(b, rows, n, w, k);
#endif
  mask_row16(m, x, b, n, threshold);
}

template <class T>
void to_unit_row(float* x, const T* s, int n) {
#if defined(AUG_UNSHARP_AVX2)
  if constexpr (!std::is_same_v<T, float>) {
    if (has_avx512_bw()) return unit_row_avx512(x, s, n);
    if (has_avx2()) return unit_row_avx2(x, s, n);
  }
#endif
  if constexpr (std::is_same_v<T, float>) std::memcpy(x, s, static_cast<std::size_t>(n) * sizeof(float));
  else unit_row(x, s, n);
}

template <class T, class S>
void blend(T* out, [[maybe_unused]] const T* in, const float* x, const float* b, const S* s, int n, float alpha) {
#if defined(AUG_UNSHARP_AVX2)
  if (has_avx512_bw()) return blend_row_avx512(out, in, x, b, s, n, alpha);
  if (has_avx2()) return blend_row_avx2(out, in, x, b, s, n, alpha);
#endif
  blend_row(out, x, b, s, n, alpha);
}

}  // namespace
}  // namespace unsharp_mask_cpu_impl

template <class T>
void unsharp_mask(View<const T> in, View<T> out, const UnsharpArgs& a) {
  const int W = in.width, H = in.height, C = in.channels, n = W * C, k = a.taps, r = k / 2;
  const float* w = a.weights;
  // Rings of k rows: 0 x, 1 b, 2 horizontal sums of x, 3 horizontal sums of the mask; then a mask
  // row and a soft row.
  // Kept from image to image (every value is written before it is read): no fresh pages to fault in.
  thread_local std::vector<float> buf;
  buf.resize(std::max(buf.size(), (4 * static_cast<std::size_t>(k) + 2) * n));
  auto ring = [&](int which, int row) {
    return buf.data() + (static_cast<std::size_t>(which) * k + static_cast<std::size_t>(row % k)) * n;
  };
  float* mrow = buf.data() + 4 * static_cast<std::size_t>(k) * n;
  float* srow = mrow + n;
  std::vector<const float*> rows(static_cast<std::size_t>(k));
  // The exact integer path for the mask: a ring of its horizontal sums in 64ths, a mask row, a soft row.
  const std::vector<std::uint16_t> q = unsharp_mask_cpu_impl::weights_64(w, k);
  const bool exact = !q.empty();
  thread_local std::vector<std::uint16_t> ibuf;
  if (exact) ibuf.resize(std::max(ibuf.size(), (static_cast<std::size_t>(k) + 2) * n));
  auto iring = [&](int row) { return ibuf.data() + static_cast<std::size_t>(row % k) * n; };
  std::uint16_t* m16 = exact ? ibuf.data() + static_cast<std::size_t>(k) * n : nullptr;
  std::uint16_t* s16 = exact ? m16 + n : nullptr;
  std::vector<const std::uint16_t*> irows(static_cast<std::size_t>(k));
  // Row t enters; row t - r gets its blur and mask; row t - 2r its soft weight and its output. The
  // rows a vertical sum reads (reflected) all lie within the k rows the rings hold then.
  for (int t = 0; t < H + 2 * r; ++t) {
    if (t < H) {
      float* x = ring(0, t);
      unsharp_mask_cpu_impl::to_unit_row(x, in.row(t), n);
      unsharp_mask_cpu_impl::blur_row(ring(2, t), x, W, C, w, k);
    }
    const int c1 = t - r;
    if (c1 >= 0 && c1 < H) {
      for (int i = 0; i < k; ++i) rows[static_cast<std::size_t>(i)] = ring(2, border_index(c1 + i - r, H, kBorderReflect101));
      float* b = ring(1, c1);
      if (exact) {
        unsharp_mask_cpu_impl::vertical_and_mask16(b, m16, ring(0, c1), rows.data(), n, w, k, a.threshold);
        unsharp_mask_cpu_impl::blur_row16(iring(c1), m16, W, C, q.data(), k);
      } else {
        unsharp_mask_cpu_impl::wide_sum_rows(b, rows.data(), n, w, k);
        unsharp_mask_cpu_impl::mask_row(mrow, ring(0, c1), b, n, a.threshold);
        unsharp_mask_cpu_impl::blur_row(ring(3, c1), mrow, W, C, w, k);
      }
    }
    const int c2 = t - 2 * r;
    if (c2 >= 0 && c2 < H) {
      if (exact) {
        for (int i = 0; i < k; ++i)
          irows[static_cast<std::size_t>(i)] = iring(border_index(c2 + i - r, H, kBorderReflect101));
        unsharp_mask_cpu_impl::integer_sum_rows(s16, irows.data(), n, q.data(), k);
        unsharp_mask_cpu_impl::blend(out.row(c2), in.row(c2), ring(0, c2), ring(1, c2), s16, n, a.alpha);
      } else {
        for (int i = 0; i < k; ++i)
          rows[static_cast<std::size_t>(i)] = ring(3, border_index(c2 + i - r, H, kBorderReflect101));
        unsharp_mask_cpu_impl::wide_sum_rows(srow, rows.data(), n, w, k);
        unsharp_mask_cpu_impl::blend(out.row(c2), in.row(c2), ring(0, c2), ring(1, c2), srow, n, a.alpha);
      }
    }
  }
}

template void unsharp_mask<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const UnsharpArgs&);
template void unsharp_mask<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const UnsharpArgs&);
template void unsharp_mask<float>(View<const float>, View<float>, const UnsharpArgs&);

}  // namespace aug::k::cpu
