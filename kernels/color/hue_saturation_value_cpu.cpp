// hue_saturation_value's host driver: the kernels' arithmetic (hue_saturation_value.hpp) row by row.
// A row's block pixels go eight at a time where the processor has AVX2 and FMA: the integer
// conversion to HSV, the tables (as shifts where they are shifts) and hsv_to_rgb's block arithmetic (the fused multiply-adds are
// OpenCV's own) in vector registers; the pixels after the blocks, and every pixel on other
// processors, take the kernels' pixel function (there the C library's correctly rounded fmaf).
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/color/hue_saturation_value.hpp"
#include "kernels/core/host_simd.hpp"  // AUG_AVX2_PHILOX: x86-64 with the intrinsics

namespace aug::k::cpu {

namespace hue_saturation_value_cpu_impl {
namespace {

#if defined(AUG_AVX2_PHILOX)
// Eight pixels through hsv_to_rgb's block arithmetic (block = true) with AVX2: shifted_hsv's integer
// conversion and tables lane by lane (gathers from the tables as 32-bit entries), then the same
// binary32 operations, its two fused multiply-adds as FMA instructions. `s` and `d` point at the
// first pixel (C = 3 or 4 channels); exactly the eight pixels are read and written.
// The tables as shifts where they are (Albumentations' tables are, for whole shifts and for the
// truncated fractional ones): hue[h] = (h + hue) mod 180 for every hue 0..179, sat[s] = clamp(s + sat)
// for s > 0 and 0 for 0, val[v] = clamp(v + val), clamp to [0, 255].
struct Shifts {
  int hue = 0, sat = 0, val = 0;
};
bool shifts_of(const std::uint8_t* lut, Shifts& k) {
  k = {lut[0], lut[256 + 128] - 128, lut[512 + 128] - 128};
  const auto clamp = [](int v) { return v < 0 ? 0 : v > 255 ? 255 : v; };
  for (int i = 0; i < 256; ++i) {
    if (i < 180 && lut[i] != (i + k.hue) % 180) return false;
    if (lut[256 + i] != (i == 0 ? 0 : clamp(i + k.sat))) return false;
    if (lut[512 + i] != clamp(i + k.val)) return false;
  }
  return true;
}

// kShifts: the tables computed from `k` (shifts_of holds), else gathered from `lut`.
template <bool kShifts>
[[gnu::target("avx2,fma"), gnu::always_inline]] inline void block8(const std::uint8_t* s, std::uint8_t* d, int C,
                                                                   const std::int32_t* sdiv, const std::int32_t* hdiv,
                                                                   const std::int32_t* lut, const Shifts& k) {
  // Pixel i in 32-bit lane i: RGBA as it is; RGB's 24 bytes by a 16-byte and an 8-byte load (the
  // bytes after them are not touched), bytes 0-11 and 12-23 to the two halves, each pixel's three
  // bytes to its lane.
  __m256i w;
  if (C == 4) {
    w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
  } else {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i hi = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + 16));
    w = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), _mm_alignr_epi8(hi, lo, 12), 1);
    w = _mm256_shuffle_epi8(w, _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,  //
                                                0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1));
  }
  const __m256i byte = _mm256_set1_epi32(0xFF);
  const __m256i r = _mm256_and_si256(w, byte), g = _mm256_and_si256(_mm256_srli_epi32(w, 8), byte),
                b = _mm256_and_si256(_mm256_srli_epi32(w, 16), byte);
  const __m256i v = _mm256_max_epi32(_mm256_max_epi32(r, g), b);
  const __m256i diff = _mm256_sub_epi32(v, _mm256_min_epi32(_mm256_min_epi32(r, g), b));
  const __m256i round = _mm256_set1_epi32(1 << 11);
  const __m256i sat = _mm256_srai_epi32(
      _mm256_add_epi32(_mm256_mullo_epi32(diff, _mm256_i32gather_epi32(sdiv, v, 4)), round), 12);
  // h' = g - b (v == r), b - r + 2d (v == g), r - g + 4d (otherwise): the first that holds.
  const __m256i hr = _mm256_sub_epi32(g, b);
  const __m256i hg = _mm256_add_epi32(_mm256_sub_epi32(b, r), _mm256_slli_epi32(diff, 1));
  const __m256i hb = _mm256_add_epi32(_mm256_sub_epi32(r, g), _mm256_slli_epi32(diff, 2));
  __m256i h = _mm256_blendv_epi8(_mm256_blendv_epi8(hb, hg, _mm256_cmpeq_epi32(v, g)), hr, _mm256_cmpeq_epi32(v, r));
  h = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(h, _mm256_i32gather_epi32(hdiv, diff, 4)), round), 12);
  h = _mm256_add_epi32(h, _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), h), _mm256_set1_epi32(180)));
  __m256i hs, ss, vs;
  if constexpr (kShifts) {
    // h + hue is in [0, 359): 180 off where it reaches 180.
    hs = _mm256_add_epi32(h, _mm256_set1_epi32(k.hue));
    hs = _mm256_sub_epi32(hs, _mm256_and_si256(_mm256_cmpgt_epi32(hs, _mm256_set1_epi32(179)), _mm256_set1_epi32(180)));
    const __m256i zero = _mm256_setzero_si256();
    ss = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(sat, _mm256_set1_epi32(k.sat)), zero), byte);
    ss = _mm256_andnot_si256(_mm256_cmpeq_epi32(sat, zero), ss);
    vs = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, _mm256_set1_epi32(k.val)), zero), byte);
  } else {
    hs = _mm256_i32gather_epi32(lut, h, 4);
    ss = _mm256_i32gather_epi32(lut + 256, sat, 4);
    vs = _mm256_i32gather_epi32(lut + 512, v, 4);
  }

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
  const __m256i zero = _mm256_setzero_si256();
  const __m256i r8 = _mm256_min_epi32(_mm256_max_epi32(_mm256_cvttps_epi32(_mm256_mul_ps(rf, scale)), zero), byte);
  const __m256i g8 = _mm256_min_epi32(_mm256_max_epi32(_mm256_cvttps_epi32(_mm256_mul_ps(gf, scale)), zero), byte);
  const __m256i b8 = _mm256_min_epi32(_mm256_max_epi32(_mm256_cvttps_epi32(_mm256_mul_ps(bf, scale)), zero), byte);
  // Each pixel as one 32-bit word r | g << 8 | b << 16 (| alpha << 24), then 4 or 3 bytes of each.
  __m256i px = _mm256_or_si256(_mm256_or_si256(r8, _mm256_slli_epi32(g8, 8)), _mm256_slli_epi32(b8, 16));
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

// Pixels [0, end) of a row, end a multiple of 8.
template <bool kShifts>
[[gnu::target("avx2,fma")]] void row8(const std::uint8_t* s, std::uint8_t* d, int end, int C, const std::int32_t* sdiv,
                                      const std::int32_t* hdiv, const std::int32_t* lut, const Shifts& k) {
  for (int x = 0; x < end; x += 8) block8<kShifts>(s + x * C, d + x * C, C, sdiv, hdiv, lut, k);
}

bool has_avx2_fma() {
  static const bool yes = host_has_avx2() && __builtin_cpu_supports("fma");
  return yes;
}
#endif

}  // namespace
}  // namespace hue_saturation_value_cpu_impl

void hue_saturation_value(View<const std::uint8_t> in, View<std::uint8_t> out, const HsvArgs& a) {
  const int C = in.channels, width = in.width;
  int block_end = 0;  // pixels before it done eight at a time
#if defined(AUG_AVX2_PHILOX)
  if (hue_saturation_value_cpu_impl::has_avx2_fma()) block_end = width / kHsvBlock * kHsvBlock;
  std::vector<std::int32_t> lut(a.lut, a.lut + 3 * 256);  // the tables as 32-bit entries, for gathers
  hue_saturation_value_cpu_impl::Shifts k;
  const bool shifts = hue_saturation_value_cpu_impl::shifts_of(a.lut, k);
#endif
  const int blocks = width / kHsvBlock * kHsvBlock;
  for (int y = 0; y < in.height; ++y) {
    const std::uint8_t* s = in.row(y);
    std::uint8_t* d = out.row(y);
    int x = 0;
#if defined(AUG_AVX2_PHILOX)
    if (shifts) hue_saturation_value_cpu_impl::row8<true>(s, d, block_end, C, a.sdiv, a.hdiv, lut.data(), k);
    else hue_saturation_value_cpu_impl::row8<false>(s, d, block_end, C, a.sdiv, a.hdiv, lut.data(), k);
    x = block_end;
#endif
    for (; x < width; ++x) hsv_pixel(s + x * C, d + x * C, C, a, x < blocks);
  }
}

}  // namespace aug::k::cpu
