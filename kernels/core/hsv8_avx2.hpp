// OpenCV's 8-bit HSV conversions (hsv8.hpp) of eight pixels at a time with AVX2 and FMA, for the
// host drivers that work in HSV (hue_saturation_value, snow's texture method): one pixel per
// 32-bit lane, the same integer and binary32 operations as the kernels' pixel functions (the
// division tables by gather, hsv_to_rgb's block arithmetic with its two fused multiply-adds).
// Host code only.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/core/host_simd.hpp"  // AUG_AVX2_PHILOX: x86-64 with the intrinsics

namespace aug::k::cpu {

#if defined(AUG_AVX2_PHILOX)
// Eight pixels of C = 3 or 4 channels at s, pixel i in lane i as r | g << 8 | b << 16 (| a << 24):
// RGBA as it is; RGB's 24 bytes by a 16-byte and an 8-byte load (the bytes after them untouched).
[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256i hsv8_load8(const std::uint8_t* s, int C) {
  if (C == 4) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
  const __m128i hi = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + 16));
  const __m256i w = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), _mm_alignr_epi8(hi, lo, 12), 1);
  return _mm256_shuffle_epi8(w, _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,  //
                                                 0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1));
}

// hsv8_from_rgb of the eight pixels in w.
[[gnu::target("avx2,fma"), gnu::always_inline]] inline void hsv8_from_rgb8(__m256i w, const std::int32_t* sdiv,
                                                                           const std::int32_t* hdiv, __m256i& h_out,
                                                                           __m256i& s_out, __m256i& v_out) {
  const __m256i byte = _mm256_set1_epi32(0xFF);
  const __m256i r = _mm256_and_si256(w, byte), g = _mm256_and_si256(_mm256_srli_epi32(w, 8), byte),
                b = _mm256_and_si256(_mm256_srli_epi32(w, 16), byte);
  const __m256i v = _mm256_max_epi32(_mm256_max_epi32(r, g), b);
  const __m256i diff = _mm256_sub_epi32(v, _mm256_min_epi32(_mm256_min_epi32(r, g), b));
  const __m256i round = _mm256_set1_epi32(1 << 11);
  s_out = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(diff, _mm256_i32gather_epi32(sdiv, v, 4)), round), 12);
  // h' = g - b (v == r), b - r + 2d (v == g), r - g + 4d (otherwise): the first that holds.
  const __m256i hr = _mm256_sub_epi32(g, b);
  const __m256i hg = _mm256_add_epi32(_mm256_sub_epi32(b, r), _mm256_slli_epi32(diff, 1));
  const __m256i hb = _mm256_add_epi32(_mm256_sub_epi32(r, g), _mm256_slli_epi32(diff, 2));
  __m256i h = _mm256_blendv_epi8(_mm256_blendv_epi8(hb, hg, _mm256_cmpeq_epi32(v, g)), hr, _mm256_cmpeq_epi32(v, r));
  h = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(h, _mm256_i32gather_epi32(hdiv, diff, 4)), round), 12);
  h_out = _mm256_add_epi32(h, _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), h), _mm256_set1_epi32(180)));
  v_out = v;
}

// hsv_to_rgb's block arithmetic (block = true) of eight integer H, S, V (each 0..255): the pixels
// as r | g << 8 | b << 16.
[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256i hsv8_block_to_rgb8(__m256i hs, __m256i ss, __m256i vs) {
  const __m256 sf = _mm256_mul_ps(_mm256_cvtepi32_ps(ss), _mm256_set1_ps(1.0f / 255.0f));
  const __m256 vf = _mm256_mul_ps(_mm256_cvtepi32_ps(vs), _mm256_set1_ps(1.0f / 255.0f));
  const __m256 t = _mm256_mul_ps(_mm256_cvtepi32_ps(hs), _mm256_set1_ps(6.0f / 180.0f));
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 pre = _mm256_cvtepi32_ps(_mm256_cvttps_epi32(t));
  const __m256 f = _mm256_sub_ps(t, pre);
  const __m256 turns = _mm256_cvtepi32_ps(_mm256_cvttps_epi32(_mm256_mul_ps(pre, _mm256_set1_ps(1.0f / 6.0f))));
  const __m256i sector = _mm256_cvttps_epi32(_mm256_sub_ps(pre, _mm256_mul_ps(turns, _mm256_set1_ps(6.0f))));
  const __m256 neg_sf = _mm256_sub_ps(_mm256_setzero_ps(), sf);
  const __m256 p = _mm256_mul_ps(vf, _mm256_sub_ps(one, sf));
  const __m256 q = _mm256_mul_ps(vf, _mm256_fmadd_ps(neg_sf, f, one));
  const __m256 u = _mm256_mul_ps(vf, _mm256_fmadd_ps(neg_sf, _mm256_sub_ps(one, f), one));
  const __m256 s0 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(sector, _mm256_set1_epi32(0)));
  const __m256 s1 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(sector, _mm256_set1_epi32(1)));
  const __m256 s2 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(sector, _mm256_set1_epi32(2)));
  const __m256 s3 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(sector, _mm256_set1_epi32(3)));
  const __m256 s4 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(sector, _mm256_set1_epi32(4)));
  // Sectors 0 .. 5: (vf, u, p), (q, vf, p), (p, vf, u), (p, q, vf), (u, p, vf), (vf, p, q);
  // blendv(no, yes, mask).
  const __m256 rf = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(vf, u, s4), p, _mm256_or_ps(s2, s3)), q, s1);
  const __m256 gf = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(p, q, s3), vf, _mm256_or_ps(s1, s2)), u, s0);
  const __m256 bf = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(q, vf, _mm256_or_ps(s3, s4)), u, s2), p,
                                     _mm256_or_ps(s0, s1));
  const __m256 scale = _mm256_set1_ps(255.0f);
  const __m256i zero = _mm256_setzero_si256(), byte = _mm256_set1_epi32(0xFF);
  const __m256i r8 = _mm256_min_epi32(_mm256_max_epi32(_mm256_cvttps_epi32(_mm256_mul_ps(rf, scale)), zero), byte);
  const __m256i g8 = _mm256_min_epi32(_mm256_max_epi32(_mm256_cvttps_epi32(_mm256_mul_ps(gf, scale)), zero), byte);
  const __m256i b8 = _mm256_min_epi32(_mm256_max_epi32(_mm256_cvttps_epi32(_mm256_mul_ps(bf, scale)), zero), byte);
  return _mm256_or_si256(_mm256_or_si256(r8, _mm256_slli_epi32(g8, 8)), _mm256_slli_epi32(b8, 16));
}

// The eight pixels px (r | g << 8 | b << 16) written to d as C = 3 or 4 channels, RGBA's alpha
// taken from w (hsv8_load8's lanes): exactly the pixels' bytes are written.
[[gnu::target("avx2,fma"), gnu::always_inline]] inline void hsv8_store8(__m256i px, __m256i w, std::uint8_t* d, int C) {
  if (C == 4) {
    px = _mm256_or_si256(px, _mm256_and_si256(w, _mm256_set1_epi32(static_cast<int>(0xFF000000u))));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), px);
    return;
  }
  const __m256i pack3 = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                         0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
  px = _mm256_shuffle_epi8(px, pack3);
  const __m128i lo = _mm256_castsi256_si128(px), hi = _mm256_extracti128_si256(px, 1);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(d), lo);
  const int lo_tail = _mm_extract_epi32(lo, 2), hi_tail = _mm_extract_epi32(hi, 2);
  std::memcpy(d + 8, &lo_tail, 4);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(d + 12), hi);
  std::memcpy(d + 20, &hi_tail, 4);
}
#endif

}  // namespace aug::k::cpu
