// color_jitter's vectorised host driver for 8-bit images: the kernels' arithmetic (color_jitter.hpp)
// with the same operations in the same order as the scalar formulas (lane-wise IEEE binary32, never
// contracted). With AVX-512 (BW, VBMI), RGB and RGBA pixels sixteen at a time straight from their
// bytes; otherwise row by row on binary32 planes of the colour channels, eight values at a time.
// The contrast mean is the exact integer sum of the floored grays, as the kernels take it.
// 16-bit and float images run the kernel bodies.
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/color/color_jitter.hpp"
#include "kernels/core/host_simd.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace aug::k::cpu {

namespace color_jitter_cpu_impl {
namespace {

using i8 = std::int32_t __attribute__((vector_size(32)));

// The helpers below pass eight-lane vectors by value; they are internal and always inlined, so the
// baseline clone's calling convention for such vectors never comes into play (GCC's note about
// that convention is turned off for the host drivers in kernels/CMakeLists.txt).

// trunc for |x| < 2^31 (conversion to integer truncates, as truncf).
[[gnu::always_inline]] inline f8 trunc8(f8 x) { return __builtin_convertvector(__builtin_convertvector(x, i8), f8); }
[[gnu::always_inline]] inline f8 clamp8(f8 v, float hi) {
  const f8 zero = f8{} + 0.f, top = f8{} + hi;
  v = v < zero ? zero : v;
  return v > top ? top : v;
}
[[gnu::always_inline]] inline f8 load(const float* p) {
  f8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
[[gnu::always_inline]] inline void store(float* p, f8 v) { std::memcpy(p, &v, sizeof v); }
// settle<uint8_t>: clamp to [0, 255], truncate.
[[gnu::always_inline]] inline f8 settle8(f8 v) { return trunc8(clamp8(v, 255.f)); }
// jitter_gray<uint8_t>: r 0.2989 + g 0.587 + b 0.114 left to right in binary32, floored (>= 0: truncated).
[[gnu::always_inline]] inline f8 gray8(f8 r, f8 g, f8 b) {
  f8 l = r * static_cast<float>(0.2989);
  l = l + g * static_cast<float>(0.587);
  l = l + b * static_cast<float>(0.114);
  return trunc8(l);
}

// The planes are padded to a multiple of eight values, so every loop below runs whole vectors; the
// padding's values are computed and never written back.

// brightness (add 0: x * f + 0 settles as x * f) and contrast (add = (1 - f) mean): settle(x f + add).
AUG_CLONES void scale_row(float* p, int n, float f, float add) {
  for (int i = 0; i < n; i += 8) store(p + i, settle8(load(p + i) * f + add));
}

// saturation: v = settle(v f + (1 - f) gray).
AUG_CLONES void saturation_row(float* r, float* g, float* b, int n, float f, float rest) {
  for (int i = 0; i < n; i += 8) {
    const f8 R = load(r + i), G = load(g + i), B = load(b + i);
    const f8 m = rest * gray8(R, G, B);
    store(r + i, settle8(R * f + m));
    store(g + i, settle8(G * f + m));
    store(b + i, settle8(B * f + m));
  }
}

// hue: jitter_hue<uint8_t> (torchvision's _rgb_to_hsv, shift, _hsv_to_rgb). With AVX2, eight pixels
// at a time; the three quotients of the scalar code are two here (each case uses two of them, the
// numerators selected first; q + 0 is q, so case r's bc - gc is (bc + 0) - gc), max and min of
// non-NaN values are the scalar selects, and trunc is floor for the non-negative h6.
#if defined(__x86_64__) && defined(__GNUC__)
#define AUG_JITTER_AVX2 1
[[gnu::target("avx2")]] void hue_row_avx2(float* r, float* g, float* b, int n, float hue) {
  const __m256 in_scale = _mm256_set1_ps(static_cast<float>(1.0 / 255.0));
  const __m256 out_scale = _mm256_set1_ps(static_cast<float>(256.0 - 1e-3));
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.f), two = _mm256_set1_ps(2.f),
               four = _mm256_set1_ps(4.f), six = _mm256_set1_ps(6.f), top = _mm256_set1_ps(255.f),
               sixth = _mm256_set1_ps(static_cast<float>(1.0 / 6.0)), shift = _mm256_set1_ps(hue);
  constexpr int kTrunc = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
  for (int i = 0; i < n; i += 8) {
    const __m256 R = _mm256_mul_ps(_mm256_loadu_ps(r + i), in_scale);
    const __m256 G = _mm256_mul_ps(_mm256_loadu_ps(g + i), in_scale);
    const __m256 B = _mm256_mul_ps(_mm256_loadu_ps(b + i), in_scale);
    const __m256 maxc = _mm256_max_ps(_mm256_max_ps(R, G), B);
    const __m256 minc = _mm256_min_ps(_mm256_min_ps(R, G), B);
    const __m256 eqc = _mm256_cmp_ps(maxc, minc, _CMP_EQ_OQ);
    const __m256 range = _mm256_sub_ps(maxc, minc);
    const __m256 s = _mm256_div_ps(range, _mm256_blendv_ps(maxc, one, eqc));
    const __m256 div = _mm256_blendv_ps(range, one, eqc);
    const __m256 is_r = _mm256_cmp_ps(maxc, R, _CMP_EQ_OQ);
    const __m256 is_g = _mm256_andnot_ps(is_r, _mm256_cmp_ps(maxc, G, _CMP_EQ_OQ));
    const __m256 dr = _mm256_sub_ps(maxc, R), dg = _mm256_sub_ps(maxc, G), db = _mm256_sub_ps(maxc, B);
    const __m256 n1 = _mm256_blendv_ps(_mm256_blendv_ps(dg, dr, is_g), db, is_r);
    const __m256 n2 = _mm256_blendv_ps(_mm256_blendv_ps(dr, db, is_g), dg, is_r);
    const __m256 add = _mm256_blendv_ps(_mm256_blendv_ps(four, two, is_g), zero, is_r);
    __m256 h = _mm256_sub_ps(_mm256_add_ps(_mm256_div_ps(n1, div), add), _mm256_div_ps(n2, div));
    h = _mm256_mul_ps(h, sixth);
    __m256 t = _mm256_add_ps(h, one);
    h = _mm256_sub_ps(t, _mm256_round_ps(t, kTrunc));
    t = _mm256_add_ps(h, shift);
    h = _mm256_sub_ps(t, _mm256_round_ps(t, kTrunc));
    h = _mm256_blendv_ps(h, _mm256_add_ps(h, one), _mm256_cmp_ps(h, zero, _CMP_LT_OQ));
    const __m256 h6 = _mm256_mul_ps(h, six);
    const __m256 fi = _mm256_round_ps(h6, kTrunc);
    const __m256 f = _mm256_sub_ps(h6, fi);
    const __m256i sector = _mm256_cvttps_epi32(fi);  // 0 .. 6, and 6 is sector 0
    const __m256 v = maxc, sxf = _mm256_mul_ps(s, f), one_minus_s = _mm256_sub_ps(one, s);
    const __m256 q = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_sub_ps(one, sxf), v), zero), one);
    const __m256 u = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_add_ps(sxf, one_minus_s), v), zero), one);
    const __m256 p = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(one_minus_s, v), zero), one);
    const __m256 s1 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(sector, _mm256_set1_epi32(1)));
    const __m256 s2 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(sector, _mm256_set1_epi32(2)));
    const __m256 s3 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(sector, _mm256_set1_epi32(3)));
    const __m256 s4 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(sector, _mm256_set1_epi32(4)));
    const __m256 s5 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(sector, _mm256_set1_epi32(5)));
    // Sectors 0 .. 5: (v, u, p), (q, v, p), (p, v, u), (p, q, v), (u, p, v), (v, p, q); blendv(no, yes, mask).
    const __m256 ro = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(v, u, s4), p, _mm256_or_ps(s2, s3)), q, s1);
    const __m256 go = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(u, p, _mm256_or_ps(s4, s5)), q, s3), v,
                                       _mm256_or_ps(s1, s2));
    const __m256 bo = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(p, u, s2), v, _mm256_or_ps(s3, s4)), q, s5);
    _mm256_storeu_ps(r + i, _mm256_min_ps(_mm256_round_ps(_mm256_mul_ps(ro, out_scale), kTrunc), top));
    _mm256_storeu_ps(g + i, _mm256_min_ps(_mm256_round_ps(_mm256_mul_ps(go, out_scale), kTrunc), top));
    _mm256_storeu_ps(b + i, _mm256_min_ps(_mm256_round_ps(_mm256_mul_ps(bo, out_scale), kTrunc), top));
  }
}
#endif

#if defined(AUG_JITTER_AVX2)
// With AVX-512 (F, BW and VBMI): every adjustment on sixteen pixels at a time in registers, straight
// from and back to interleaved RGB or RGBA bytes (no planes), with the same lane-wise operations in
// the same order as hue_row_avx2 and the scalar formulas.
#define AUG_JITTER_AVX512 gnu::target("avx512f,avx512bw,avx512vbmi")
AUG_AVX512_WARNINGS_OFF

// The helpers work on kGroups vectors of sixteen pixels at once, each step over every group before
// the next step: the groups' chains of dependent operations (a pixel's adjustments are one long
// chain) then run side by side.
constexpr int kGroups = 8;
using V = __m512[kGroups];
#define AUG_EACH for (int i = 0; i < kGroups; ++i)

[[AUG_JITTER_AVX512, gnu::always_inline]] inline __m512 settle16(__m512 v) {
  v = _mm512_min_ps(_mm512_max_ps(v, _mm512_setzero_ps()), _mm512_set1_ps(255.f));
  return _mm512_roundscale_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
}
[[AUG_JITTER_AVX512, gnu::always_inline]] inline void gray16(const V& r, const V& g, const V& b, V& l) {
  AUG_EACH l[i] = _mm512_mul_ps(r[i], _mm512_set1_ps(static_cast<float>(0.2989)));
  AUG_EACH l[i] = _mm512_add_ps(l[i], _mm512_mul_ps(g[i], _mm512_set1_ps(static_cast<float>(0.587))));
  AUG_EACH l[i] = _mm512_add_ps(l[i], _mm512_mul_ps(b[i], _mm512_set1_ps(static_cast<float>(0.114))));
  AUG_EACH l[i] = _mm512_roundscale_ps(l[i], _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
}
// settle(v f + m) of every group's three channels (m: none for brightness).
[[AUG_JITTER_AVX512, gnu::always_inline]] inline void scale16(V* rgb, __m512 f, const V* m) {
  for (int c = 0; c < 3; ++c) {
    V& v = rgb[c];
    AUG_EACH v[i] = _mm512_mul_ps(v[i], f);
    if (m) AUG_EACH v[i] = _mm512_add_ps(v[i], (*m)[i]);
    AUG_EACH v[i] = settle16(v[i]);
  }
}

// hue_row_avx2 on sixteen lanes (blends by mask registers).
[[AUG_JITTER_AVX512, gnu::always_inline]] inline void hue16(V& r, V& g, V& b, __m512 shift) {
  constexpr int kTrunc = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
  const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.f);
  const __m512 in_scale = _mm512_set1_ps(static_cast<float>(1.0 / 255.0));
  V R, G, B, maxc, range, s, div, n1, n2, h;
  __mmask16 eqc[kGroups], is_r[kGroups], is_g[kGroups];
  AUG_EACH R[i] = _mm512_mul_ps(r[i], in_scale), G[i] = _mm512_mul_ps(g[i], in_scale),
           B[i] = _mm512_mul_ps(b[i], in_scale);
  AUG_EACH maxc[i] = _mm512_max_ps(_mm512_max_ps(R[i], G[i]), B[i]);
  AUG_EACH range[i] = _mm512_min_ps(_mm512_min_ps(R[i], G[i]), B[i]);  // minc, for now
  AUG_EACH eqc[i] = _mm512_cmp_ps_mask(maxc[i], range[i], _CMP_EQ_OQ);
  AUG_EACH range[i] = _mm512_sub_ps(maxc[i], range[i]);
  AUG_EACH s[i] = _mm512_div_ps(range[i], _mm512_mask_blend_ps(eqc[i], maxc[i], one));
  AUG_EACH div[i] = _mm512_mask_blend_ps(eqc[i], range[i], one);
  AUG_EACH is_r[i] = _mm512_cmp_ps_mask(maxc[i], R[i], _CMP_EQ_OQ);
  AUG_EACH is_g[i] = _kandn_mask16(is_r[i], _mm512_cmp_ps_mask(maxc[i], G[i], _CMP_EQ_OQ));
  // maxc - R, - G, - B in place of R, G, B.
  AUG_EACH R[i] = _mm512_sub_ps(maxc[i], R[i]), G[i] = _mm512_sub_ps(maxc[i], G[i]), B[i] = _mm512_sub_ps(maxc[i], B[i]);
  AUG_EACH n1[i] = _mm512_mask_blend_ps(is_r[i], _mm512_mask_blend_ps(is_g[i], G[i], R[i]), B[i]);
  AUG_EACH n2[i] = _mm512_mask_blend_ps(is_r[i], _mm512_mask_blend_ps(is_g[i], R[i], B[i]), G[i]);
  AUG_EACH h[i] = _mm512_mask_blend_ps(is_r[i], _mm512_mask_blend_ps(is_g[i], _mm512_set1_ps(4.f), _mm512_set1_ps(2.f)),
                                       zero);  // the sector's addend
  AUG_EACH h[i] = _mm512_sub_ps(_mm512_add_ps(_mm512_div_ps(n1[i], div[i]), h[i]), _mm512_div_ps(n2[i], div[i]));
  AUG_EACH h[i] = _mm512_mul_ps(h[i], _mm512_set1_ps(static_cast<float>(1.0 / 6.0)));
  AUG_EACH n1[i] = _mm512_add_ps(h[i], one);
  AUG_EACH h[i] = _mm512_sub_ps(n1[i], _mm512_roundscale_ps(n1[i], kTrunc));
  AUG_EACH n1[i] = _mm512_add_ps(h[i], shift);
  AUG_EACH h[i] = _mm512_sub_ps(n1[i], _mm512_roundscale_ps(n1[i], kTrunc));
  AUG_EACH h[i] = _mm512_mask_add_ps(h[i], _mm512_cmp_ps_mask(h[i], zero, _CMP_LT_OQ), h[i], one);
  AUG_EACH h[i] = _mm512_mul_ps(h[i], _mm512_set1_ps(6.f));                // h6
  AUG_EACH n1[i] = _mm512_roundscale_ps(h[i], kTrunc);                      // fi
  AUG_EACH h[i] = _mm512_mul_ps(s[i], _mm512_sub_ps(h[i], n1[i]));          // s f
  AUG_EACH s[i] = _mm512_sub_ps(one, s[i]);                                 // 1 - s
  const __m512 out_scale = _mm512_set1_ps(static_cast<float>(256.0 - 1e-3)), top = _mm512_set1_ps(255.f);
  AUG_EACH {
    const __m512 v = maxc[i], sxf = h[i], one_minus_s = s[i];
    const __m512i sector = _mm512_cvttps_epi32(n1[i]);  // 0 .. 6, and 6 is sector 0
    const __m512 q = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(_mm512_sub_ps(one, sxf), v), zero), one);
    const __m512 u = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(_mm512_add_ps(sxf, one_minus_s), v), zero), one);
    const __m512 p = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(one_minus_s, v), zero), one);
    const __mmask16 s1 = _mm512_cmpeq_epi32_mask(sector, _mm512_set1_epi32(1));
    const __mmask16 s2 = _mm512_cmpeq_epi32_mask(sector, _mm512_set1_epi32(2));
    const __mmask16 s3 = _mm512_cmpeq_epi32_mask(sector, _mm512_set1_epi32(3));
    const __mmask16 s4 = _mm512_cmpeq_epi32_mask(sector, _mm512_set1_epi32(4));
    const __mmask16 s5 = _mm512_cmpeq_epi32_mask(sector, _mm512_set1_epi32(5));
    // Sectors 0 .. 5: (v, u, p), (q, v, p), (p, v, u), (p, q, v), (u, p, v), (v, p, q).
    __m512 ro = _mm512_mask_blend_ps(s4, v, u);
    ro = _mm512_mask_blend_ps(_kor_mask16(s2, s3), ro, p);
    ro = _mm512_mask_blend_ps(s1, ro, q);
    __m512 go = _mm512_mask_blend_ps(_kor_mask16(s4, s5), u, p);
    go = _mm512_mask_blend_ps(s3, go, q);
    go = _mm512_mask_blend_ps(_kor_mask16(s1, s2), go, v);
    __m512 bo = _mm512_mask_blend_ps(s2, p, u);
    bo = _mm512_mask_blend_ps(_kor_mask16(s3, s4), bo, v);
    bo = _mm512_mask_blend_ps(s5, bo, q);
    r[i] = _mm512_min_ps(_mm512_roundscale_ps(_mm512_mul_ps(ro, out_scale), kTrunc), top);
    g[i] = _mm512_min_ps(_mm512_roundscale_ps(_mm512_mul_ps(go, out_scale), kTrunc), top);
    b[i] = _mm512_min_ps(_mm512_roundscale_ps(_mm512_mul_ps(bo, out_scale), kTrunc), top);
  }
}

// Adjustments op[from .. to) of `a` on the rows of `src`, pixels of C = 3 or 4 channels kGroups x 16
// at a time, into `dst` when it has data (alpha copied); returns the sum of the result's floored
// grays when `sum` is set. The last pixels of a row are read and written under masks.
template <int C>
[[AUG_JITTER_AVX512]] std::uint64_t steps_avx512(View<const std::uint8_t> src, View<std::uint8_t> dst,
                                                 const JitterArgs& a, int from, int to, float mean, bool sum) {
  const __m512i byte = _mm512_set1_epi32(0xFF);
  const __m512 shift = _mm512_set1_ps(a.hue);
  std::uint64_t total = 0;
  for (int y = 0; y < src.height; ++y) {
    const std::uint8_t* s = src.row(y);
    std::uint8_t* d = dst.data ? dst.row(y) : nullptr;
    __m512i acc = _mm512_setzero_si512();
    for (int x0 = 0; x0 < src.width; x0 += 16 * kGroups) {
      __mmask16 lanes[kGroups];
      __mmask64 bytes[kGroups];
      __m512i v[kGroups];
      V rgb[3];
      AUG_EACH {
        const int x = x0 + 16 * i;
        const int n = src.width - x < 0 ? 0 : (src.width - x < 16 ? src.width - x : 16);
        lanes[i] = static_cast<__mmask16>((1u << n) - 1u);
        bytes[i] = n * C == 64 ? ~0ull : (1ull << (n * C)) - 1ull;
        v[i] = _mm512_maskz_loadu_epi8(bytes[i], s + static_cast<std::size_t>(x) * C);
        __m512i ri, gi, bi;
        if constexpr (C == 3) {
          ri = rgb8_channel16(v[i], 0);
          gi = rgb8_channel16(v[i], 1);
          bi = rgb8_channel16(v[i], 2);
        } else {
          ri = _mm512_and_si512(v[i], byte);
          gi = _mm512_and_si512(_mm512_srli_epi32(v[i], 8), byte);
          bi = _mm512_and_si512(_mm512_srli_epi32(v[i], 16), byte);
        }
        rgb[0][i] = _mm512_cvtepi32_ps(ri), rgb[1][i] = _mm512_cvtepi32_ps(gi), rgb[2][i] = _mm512_cvtepi32_ps(bi);
      }
      for (int k = from; k < to; ++k) {
        const int op = a.op[k];
        const __m512 f = _mm512_set1_ps(a.ratio[op]);
        if (op == kJitterBrightness) {
          scale16(rgb, f, nullptr);
        } else if (op == kJitterContrast) {
          V m;
          AUG_EACH m[i] = _mm512_set1_ps(a.rest[op] * mean);
          scale16(rgb, f, &m);
        } else if (op == kJitterSaturation) {
          V m;
          gray16(rgb[0], rgb[1], rgb[2], m);
          AUG_EACH m[i] = _mm512_mul_ps(_mm512_set1_ps(a.rest[op]), m[i]);
          scale16(rgb, f, &m);
        } else {
          hue16(rgb[0], rgb[1], rgb[2], shift);
        }
      }
      if (sum) {
        V l;
        gray16(rgb[0], rgb[1], rgb[2], l);
        AUG_EACH acc = _mm512_mask_add_epi32(acc, lanes[i], acc, _mm512_cvttps_epi32(l[i]));
      }
      if (d == nullptr) continue;
      AUG_EACH {
        if (lanes[i] == 0) continue;
        __m512i px = _mm512_or_si512(_mm512_cvttps_epi32(rgb[0][i]), _mm512_slli_epi32(_mm512_cvttps_epi32(rgb[1][i]), 8));
        px = _mm512_or_si512(px, _mm512_slli_epi32(_mm512_cvttps_epi32(rgb[2][i]), 16));
        if constexpr (C == 3) px = rgb8_join16(px);
        else px = _mm512_or_si512(px, _mm512_andnot_si512(_mm512_set1_epi32(0xFFFFFF), v[i]));
        _mm512_mask_storeu_epi8(d + static_cast<std::size_t>(x0 + 16 * i) * C, bytes[i], px);
      }
    }
    if (sum) total += static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm512_reduce_add_epi32(acc)));
  }
  return total;
}
#undef AUG_EACH
AUG_AVX512_WARNINGS_ON
#endif

void hue_row(float* r, float* g, float* b, int n, float hue) {
#if defined(AUG_JITTER_AVX2)
  static const bool avx2 = host_has_avx2();
  if (avx2) return hue_row_avx2(r, g, b, n, hue);
#endif
  for (int i = 0; i < n; ++i) {
    float px[3] = {r[i], g[i], b[i]};
    jitter_hue<std::uint8_t>(px, hue);
    r[i] = px[0];
    g[i] = px[1];
    b[i] = px[2];
  }
}

// The sum of the row's floored grays (n values, not the padding).
AUG_CLONES std::uint64_t gray_sum_row(const float* r, const float* g, const float* b, int n) {
  std::uint64_t sum = 0;
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const i8 l = __builtin_convertvector(gray8(load(r + i), load(g + i), load(b + i)), i8);
    sum += static_cast<std::uint64_t>(l[0] + l[1] + l[2] + l[3] + l[4] + l[5] + l[6] + l[7]);
  }
  for (; i < n; ++i) sum += static_cast<std::uint64_t>(jitter_gray<std::uint8_t>(r[i], g[i], b[i]));
  return sum;
}

AUG_CLONES std::uint64_t value_sum_row(const float* v, int n) {
  std::uint64_t sum = 0;
  for (int i = 0; i < n; ++i) sum += static_cast<std::uint64_t>(v[i]);
  return sum;
}

// A row's colour channels as binary32 planes (values 0 to 255), split from and joined back into
// interleaved 8-bit pixels of C channels (alpha copied).
template <int C>
AUG_CLONES void split_row(const std::uint8_t* s, float* const* plane, int cc, int n) {
  if (cc == 3) {
    for (int x = 0; x < n; ++x) {
      plane[0][x] = s[x * C];
      plane[1][x] = s[x * C + 1];
      plane[2][x] = s[x * C + 2];
    }
  } else {
    for (int x = 0; x < n; ++x) plane[0][x] = s[x * C];
  }
}
AUG_CLONES void to_bytes(const float* __restrict p, std::uint8_t* __restrict b, int n) {
  for (int x = 0; x < n; ++x) b[x] = static_cast<std::uint8_t>(static_cast<std::int32_t>(p[x]));
}
template <int C, bool kCopyAlpha>
AUG_CLONES void join_row(const std::uint8_t* __restrict r, const std::uint8_t* __restrict g,
                         const std::uint8_t* __restrict b, int cc, const std::uint8_t* __restrict s,
                         std::uint8_t* __restrict d, int n) {
  if (cc == 3) {
    for (int x = 0; x < n; ++x) {
      d[x * C] = r[x];
      d[x * C + 1] = g[x];
      d[x * C + 2] = b[x];
      if constexpr (C == 4 && kCopyAlpha) d[x * C + 3] = s[x * C + 3];
    }
  } else {
    for (int x = 0; x < n; ++x) {
      d[x * C] = r[x];
      if constexpr (C == 2 && kCopyAlpha) d[x * C + 1] = s[x * C + 1];
    }
  }
}

struct Planes {
  int width, padded, channels, cc;
  std::vector<float> buf;
  float* plane[3];
  std::vector<std::uint8_t> bytes;

  Planes(int w, int c, int color)
      : width(w), padded((w + 7) / 8 * 8), channels(c), cc(color), buf(static_cast<std::size_t>(padded) * 3),
        bytes(static_cast<std::size_t>(padded) * 3) {
    for (int k = 0; k < 3; ++k) plane[k] = buf.data() + static_cast<std::size_t>(k) * padded;
  }
  void split(const std::uint8_t* s) {
    switch (channels) {
      case 1: return split_row<1>(s, plane, cc, width);
      case 2: return split_row<2>(s, plane, cc, width);
      case 3: return split_row<3>(s, plane, cc, width);
      default: return split_row<4>(s, plane, cc, width);
    }
  }
  void join(const std::uint8_t* s, std::uint8_t* d) {
    std::uint8_t* b[3] = {bytes.data(), bytes.data() + padded, bytes.data() + 2 * padded};
    for (int c = 0; c < cc; ++c) to_bytes(plane[c], b[c], width);
    // In place (d is s), alpha is already there.
    if (s == d) return join<false>(b, s, d);
    join<true>(b, s, d);
  }
  template <bool kCopyAlpha>
  void join(std::uint8_t* const* b, const std::uint8_t* s, std::uint8_t* d) const {
    switch (channels) {
      case 1: return join_row<1, kCopyAlpha>(b[0], b[1], b[2], cc, s, d, width);
      case 2: return join_row<2, kCopyAlpha>(b[0], b[1], b[2], cc, s, d, width);
      case 3: return join_row<3, kCopyAlpha>(b[0], b[1], b[2], cc, s, d, width);
      default: return join_row<4, kCopyAlpha>(b[0], b[1], b[2], cc, s, d, width);
    }
  }
};

// Adjustments op[from .. to) of `a` from `src` into `dst` (which may be `src`); `mean` for contrast.
// Returns the sum of the result's floored grays (colour) or values (gray) when `sum` is set; writes
// nothing when dst has no data.
std::uint64_t steps(View<const std::uint8_t> src, View<std::uint8_t> dst, const JitterArgs& a, int from, int to,
                    float mean, bool sum) {
#if defined(AUG_JITTER_AVX2)
  static const bool avx512 = host_has_avx512_vbmi();
  if (avx512 && a.color_channels == 3 && src.channels == 3) return steps_avx512<3>(src, dst, a, from, to, mean, sum);
  if (avx512 && a.color_channels == 3 && src.channels == 4) return steps_avx512<4>(src, dst, a, from, to, mean, sum);
#endif
  std::uint64_t total = 0;
  Planes p(src.width, src.channels, a.color_channels);
  for (int y = 0; y < src.height; ++y) {
    p.split(src.row(y));
    for (int k = from; k < to; ++k) {
      const int op = a.op[k];
      if (op == kJitterBrightness || op == kJitterContrast) {
        const float add = op == kJitterContrast ? a.rest[op] * mean : 0.f;
        for (int c = 0; c < p.cc; ++c) scale_row(p.plane[c], p.padded, a.ratio[op], add);
      } else if (op == kJitterSaturation) {
        saturation_row(p.plane[0], p.plane[1], p.plane[2], p.padded, a.ratio[op], a.rest[op]);
      } else {
        hue_row(p.plane[0], p.plane[1], p.plane[2], p.padded, a.hue);
      }
    }
    if (sum) total += p.cc == 3 ? gray_sum_row(p.plane[0], p.plane[1], p.plane[2], p.width) : value_sum_row(p.plane[0], p.width);
    if (dst.data) p.join(src.row(y), dst.row(y));
  }
  return total;
}

float mean_of(std::uint64_t total, View<const std::uint8_t> img) {
  const std::uint64_t count = static_cast<std::uint64_t>(img.width) * static_cast<std::uint64_t>(img.height);
  return static_cast<float>(total) / static_cast<float>(count);
}

}  // namespace
}  // namespace color_jitter_cpu_impl

void color_jitter(View<const std::uint8_t> in, View<std::uint8_t> out, const JitterArgs& a) {
  int at = -1;  // where contrast runs
  for (int k = 0; k < a.count; ++k)
    if (a.op[k] == kJitterContrast) at = k;
  if (at < 0) {
    color_jitter_cpu_impl::steps(in, out, a, 0, a.count, 0.f, false);
    return;
  }
  // The adjustments before contrast (summing their result's grays as they go), then the rest.
  // When contrast comes first, the first pass only sums the input's grays.
  const std::uint64_t total = color_jitter_cpu_impl::steps(in, at > 0 ? out : View<std::uint8_t>{}, a, 0, at, 0.f, true);
  color_jitter_cpu_impl::steps(at > 0 ? as_const(out) : in, out, a, at, a.count, color_jitter_cpu_impl::mean_of(total, in), false);
}

}  // namespace aug::k::cpu
