// snow's host driver: the kernels' snow_pixel and snow_texture_pixel, a row at a time. On 8-bit
// images, where the processor has AVX2 and FMA, the bleach method's vector-path columns and the
// texture method's block columns go eight pixels at a time through the same operations in the same
// order (max/min stand for the kernels' selects: no operand is NaN; the selects become blends;
// hls8_fma and hsv_fma are the fused instructions), and the rest pixel by pixel.
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define AUG_SNOW_AVX2 1
#endif

#include "kernels/weather/snow.hpp"
#include "kernels/core/host_simd.hpp"
#include "kernels/core/hsv8_avx2.hpp"

namespace aug::k::cpu {

namespace snow_cpu_impl {
namespace {

#if defined(AUG_SNOW_AVX2)
bool snow_has_avx2_fma() {
  static const bool yes = host_has_avx2() && __builtin_cpu_supports("fma");
  return yes;
}

// hls8_sat's rounding of eight lanes (half to even), without the clamp, for values the packs that
// follow saturate (each in [-2^15, 2^15)): the processor's rounding mode, which snow() checks is
// round to nearest even.
[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256i snow_rne(__m256 v) { return _mm256_cvtps_epi32(v); }

// hls8_sat of eight lanes, for values in [-2^31, 2^31) (no NaN): the rounding as above, clamped to
// [0, 255] as integers.
[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256i snow_sat8_int(__m256 v) {
  return _mm256_min_epi32(_mm256_max_epi32(snow_rne(v), _mm256_setzero_si256()), _mm256_set1_epi32(255));
}

// sel(mask, a, b) = mask ? a : b.
[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256 snow_sel(__m256 mask, __m256 a, __m256 b) {
  return _mm256_blendv_ps(b, a, mask);
}

// Columns [0, end) of one 8-bit row, end a multiple of 8: hls8_from_rgb (vector path), the
// lightness table, rgb_from_hls8.
[[gnu::target("avx2,fma")]] void snow_row_avx2(const std::uint8_t* s, std::uint8_t* d, int end,
                                               const std::int32_t* lightness) {
  const __m256 inv = _mm256_set1_ps(1.f / 255.f), half = _mm256_set1_ps(0.5f), two = _mm256_set1_ps(2.0f);
  const __m256 k255 = _mm256_set1_ps(255.f), zero = _mm256_setzero_ps();
  // The 24 bytes of eight pixels: 16 in `lo`, 8 in `hi`; each channel's bytes gathered by shuffles.
  const __m128i r_lo = _mm_setr_epi8(0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i r_hi = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 2, 5, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i g_lo = _mm_setr_epi8(1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i g_hi = _mm_setr_epi8(-1, -1, -1, -1, -1, 0, 3, 6, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i b_lo = _mm_setr_epi8(2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m128i b_hi = _mm_setr_epi8(-1, -1, -1, -1, -1, 1, 4, 7, -1, -1, -1, -1, -1, -1, -1, -1);
  // Back: [r0..r3 g0..g3 b0..b3 ..] to r0 g0 b0 r1 g1 b1 ...
  const __m128i weave = _mm_setr_epi8(0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, -1, -1, -1, -1);
  for (int x = 0; x < end; x += 8) {
    const std::uint8_t* p = s + 3 * x;
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hi = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 16));
    const __m128i R8 = _mm_or_si128(_mm_shuffle_epi8(lo, r_lo), _mm_shuffle_epi8(hi, r_hi));
    const __m128i G8 = _mm_or_si128(_mm_shuffle_epi8(lo, g_lo), _mm_shuffle_epi8(hi, g_hi));
    const __m128i B8 = _mm_or_si128(_mm_shuffle_epi8(lo, b_lo), _mm_shuffle_epi8(hi, b_hi));
    const __m256 r = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(R8)), inv);
    const __m256 g = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(G8)), inv);
    const __m256 b = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(B8)), inv);
    const __m256 mx = _mm256_max_ps(_mm256_max_ps(r, g), b), mn = _mm256_min_ps(_mm256_min_ps(r, g), b);
    const __m256 diff = _mm256_sub_ps(mx, mn), sum = _mm256_add_ps(mx, mn);
    const __m256 l = _mm256_mul_ps(sum, half);
    __m256 sat = _mm256_div_ps(diff, snow_sel(_mm256_cmp_ps(l, half, _CMP_LT_OQ), sum, _mm256_sub_ps(two, sum)));
    const __m256 r_max = _mm256_cmp_ps(mx, r, _CMP_EQ_OQ), g_max = _mm256_cmp_ps(mx, g, _CMP_EQ_OQ);
    const __m256 raw = snow_sel(r_max, _mm256_sub_ps(g, b), snow_sel(g_max, _mm256_sub_ps(b, r), _mm256_sub_ps(r, g)));
    const __m256 base =
        snow_sel(r_max, snow_sel(_mm256_cmp_ps(g, b, _CMP_LT_OQ), _mm256_set1_ps(360.0f), zero),
                 snow_sel(g_max, _mm256_set1_ps(120.0f), _mm256_set1_ps(240.0f)));
    __m256 h = _mm256_fmadd_ps(raw, _mm256_div_ps(_mm256_set1_ps(60.0f), diff), base);
    const __m256 valid = _mm256_cmp_ps(diff, _mm256_set1_ps(FLT_EPSILON), _CMP_GT_OQ);
    h = _mm256_and_ps(h, valid);
    sat = _mm256_and_ps(sat, valid);
    // h, l and sat are finite and small here (h and sat masked where diff is 0).
    const __m256i Hi = snow_sat8_int(_mm256_mul_ps(h, half));
    const __m256i Li = _mm256_i32gather_epi32(lightness, snow_sat8_int(_mm256_mul_ps(l, k255)), 4);
    const __m256i Si = snow_sat8_int(_mm256_mul_ps(sat, k255));
    // Back to RGB.
    const __m256 hh = _mm256_cvtepi32_ps(Hi), ll = _mm256_mul_ps(_mm256_cvtepi32_ps(Li), inv),
                 ss = _mm256_mul_ps(_mm256_cvtepi32_ps(Si), inv);
    const __m256 ls = _mm256_mul_ps(ll, ss);
    const __m256 e0 = snow_sel(_mm256_cmp_ps(ll, half, _CMP_LE_OQ), ls, _mm256_sub_ps(ss, ls));
    const __m256 hraw = _mm256_mul_ps(hh, _mm256_set1_ps(6.0f / 180.0f));
    const __m256 whole = _mm256_round_ps(hraw, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256 frac = _mm256_sub_ps(hraw, whole);
    const __m256 sixth = _mm256_round_ps(_mm256_mul_ps(hraw, _mm256_set1_ps(1.0f / 6.0f)),
                                         _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256 sector = _mm256_sub_ps(whole, _mm256_mul_ps(_mm256_set1_ps(6.0f), sixth));
    const __m256 e1 = _mm256_add_ps(frac, frac);
    const __m256 t0 = _mm256_add_ps(ll, e0), t1 = _mm256_sub_ps(ll, e0);
    const __m256 ee = _mm256_mul_ps(e0, e1);
    const __m256 t2 = _mm256_sub_ps(t0, ee), t3 = _mm256_add_ps(t1, ee);
    const __m256 one = _mm256_set1_ps(1.0f), two_ = two, four = _mm256_set1_ps(4.0f);
    const __m256 lt1 = _mm256_cmp_ps(sector, one, _CMP_LT_OQ), lt2 = _mm256_cmp_ps(sector, two_, _CMP_LT_OQ);
    const __m256 le2 = _mm256_cmp_ps(sector, two_, _CMP_LE_OQ), lt4 = _mm256_cmp_ps(sector, four, _CMP_LT_OQ);
    const __m256 le4 = _mm256_cmp_ps(sector, four, _CMP_LE_OQ);
    const __m256 bo = snow_sel(lt2, t1, snow_sel(le2, t3, snow_sel(le4, t0, t2)));
    const __m256 go = snow_sel(lt1, t3, snow_sel(le2, t0, snow_sel(lt4, t2, t1)));
    const __m256 ro = snow_sel(lt1, t0, snow_sel(lt2, t2, snow_sel(lt4, t1, snow_sel(le4, t3, t0))));
    // Each channel in about [0, 1]: rounded, then clamped to [0, 255] by the two unsigned packs.
    const __m256i Bi = snow_rne(_mm256_mul_ps(bo, k255));
    const __m256i rg = _mm256_packus_epi32(snow_rne(_mm256_mul_ps(ro, k255)), snow_rne(_mm256_mul_ps(go, k255)));
    const __m256i all = _mm256_packus_epi16(rg, _mm256_packus_epi32(Bi, Bi));  // per 128-bit lane: r, g, b, b
    alignas(16) std::uint8_t woven[32];
    _mm_store_si128(reinterpret_cast<__m128i*>(woven), _mm_shuffle_epi8(_mm256_castsi256_si128(all), weave));
    _mm_store_si128(reinterpret_cast<__m128i*>(woven + 16), _mm_shuffle_epi8(_mm256_extracti128_si256(all, 1), weave));
    std::uint8_t* q = d + 3 * x;
    std::memcpy(q, woven, 12);
    std::memcpy(q + 12, woven + 16, 12);
  }
}

// (int)(float)(x * 0.85 + tint) & 255 of eight lanes, the product and sum in double.
[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256i weighted(__m256 x, double tint) {
  const __m256d t = _mm256_set1_pd(tint), k85 = _mm256_set1_pd(0.85);
  const __m256d lo = _mm256_add_pd(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), k85), t);
  const __m256d hi = _mm256_add_pd(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), k85), t);
  const __m256 o = _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
  return _mm256_and_si256(_mm256_cvttps_epi32(o), _mm256_set1_epi32(0xFF));
}

// Eight RGB pixels of the texture method through snow_texture_pixel with the block arithmetic of
// hsv_to_rgb (block = true), the same operations lane by lane: OpenCV's integer RGB2HSV (its
// division tables by gather), V times brighten clamped, each component plus the layer (binary32),
// addWeighted's double product and sum rounded to binary32, numpy's cast (truncation, modulo 256),
// the block HSV2RGB with its two fused multiply-adds, then white where the pixel sparkles. Exactly
// the 24 bytes of the eight pixels are read and written.
[[gnu::target("avx2,fma")]] void texture_block8(const std::uint8_t* s, std::uint8_t* d, const float* layer,
                                                const std::uint8_t* sparkle, const SnowTextureArgs& a) {
  const __m256i w = hsv8_load8(s, 3);
  __m256i h, sat, v;
  hsv8_from_rgb8(w, a.sdiv, a.hdiv, h, sat, v);
  // V' = clamp((float)v * brighten, 0, 255); each of H, S, V' plus the layer; addWeighted in double.
  const __m256 add = _mm256_loadu_ps(layer);
  const __m256 vb = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(v), _mm256_set1_ps(a.brighten)),
                                                _mm256_setzero_ps()),
                                  _mm256_set1_ps(255.0f));
  const __m256i hs = weighted(_mm256_add_ps(_mm256_cvtepi32_ps(h), add), a.tint0);
  const __m256i ss = weighted(_mm256_add_ps(_mm256_cvtepi32_ps(sat), add), a.tint1);
  const __m256i vs = weighted(_mm256_add_ps(vb, add), a.tint2);
  __m256i px = hsv8_block_to_rgb8(hs, ss, vs);
  // Sparkles white: each sparkle byte (0 or 1) widened to its pixel's lane.
  const __m256i lit = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(sparkle)));
  px = _mm256_blendv_epi8(px, _mm256_set1_epi32(0xFFFFFF), _mm256_cmpgt_epi32(lit, _mm256_setzero_si256()));
  hsv8_store8(px, w, d, 3);
}

// Columns [0, end) of one 8-bit row of the texture method, end a multiple of 8 within the block columns.
[[gnu::target("avx2,fma")]] void texture_row_avx2(const std::uint8_t* s, std::uint8_t* d, int end, const float* layer,
                                                  const std::uint8_t* sparkle, const SnowTextureArgs& a) {
  for (int x = 0; x < end; x += 8) texture_block8(s + 3 * x, d + 3 * x, layer + x, sparkle + x, a);
}
#endif

}  // namespace
}  // namespace snow_cpu_impl

template <class T>
void snow(View<const T> in, View<T> out, const SnowArgs& a) {
  int first = 0;  // columns before it already done
#if defined(AUG_SNOW_AVX2)
  std::int32_t lightness[256];
  for (int i = 0; i < 256; ++i) lightness[i] = a.lightness[i];
  const bool fast = std::is_same_v<T, std::uint8_t> && snow_cpu_impl::snow_has_avx2_fma() &&
                    _MM_GET_ROUNDING_MODE() == _MM_ROUND_NEAREST;
  if (fast) first = a.vector_end;
#endif
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    T* d = out.row(y);
#if defined(AUG_SNOW_AVX2)
    if constexpr (std::is_same_v<T, std::uint8_t>)
      if (fast) snow_cpu_impl::snow_row_avx2(s, d, a.vector_end, lightness);
#endif
    for (int x = first; x < in.width; ++x) snow_pixel(s + 3 * x, d + 3 * x, x < a.vector_end, a.lightness);
  }
}

// The texture method: the kernels' snow_texture_pixel, a row at a time.
template <class T>
void snow_texture(View<const T> in, View<T> out, const SnowTextureArgs& a) {
  int first = 0;  // columns before it done eight at a time
#if defined(AUG_SNOW_AVX2)
  if (std::is_same_v<T, std::uint8_t> && snow_cpu_impl::snow_has_avx2_fma()) first = a.block_end / 8 * 8;
#endif
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    T* d = out.row(y);
    const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(in.width);
#if defined(AUG_SNOW_AVX2)
    if constexpr (std::is_same_v<T, std::uint8_t>)
      if (first > 0) snow_cpu_impl::texture_row_avx2(s, d, first, a.layer + row, a.sparkle + row, a);
#endif
    for (int x = first; x < in.width; ++x) snow_texture_pixel(s + 3 * x, d + 3 * x, row + x, x < a.block_end, a);
  }
}

template void snow_texture<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SnowTextureArgs&);
template void snow_texture<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const SnowTextureArgs&);
template void snow_texture<float>(View<const float>, View<float>, const SnowTextureArgs&);

template void snow<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SnowArgs&);
template void snow<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const SnowArgs&);
template void snow<float>(View<const float>, View<float>, const SnowArgs&);

}  // namespace aug::k::cpu
