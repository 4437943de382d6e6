// hue_saturation_value's host driver: the kernels' arithmetic (hue_saturation_value.hpp) row by row.
// A row's block pixels go in two passes: the integer conversion to HSV and the tables, then
// hsv_to_rgb's block arithmetic eight pixels at a time where the processor has AVX2 and FMA (the
// fused multiply-adds are OpenCV's own); the pixels after the blocks, and every pixel on other
// processors, take the kernels' pixel function (there the C library's correctly rounded fmaf).
#include <cstdint>
#include <vector>

#include "kernels/color/hue_saturation_value.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AUG_HSV_AVX2 1
#endif

namespace aug::k::cpu {

namespace hue_saturation_value_cpu_impl {
namespace {

// The HSV triples of n pixels, after the tables.
void to_hsv(const std::uint8_t* p, int C, int n, const HsvArgs& a, std::int32_t* hs, std::int32_t* ss,
            std::int32_t* vs) {
  for (int x = 0; x < n; ++x, p += C) shifted_hsv(p[0], p[1], p[2], a, hs[x], ss[x], vs[x]);
}

#if defined(AUG_HSV_AVX2)
// hsv_to_rgb's block arithmetic (block = true) on eight triples: the same binary32 operations, its
// two fused multiply-adds as FMA instructions.
[[gnu::target("avx2,fma")]] void block_rgb8(const std::int32_t* hs, const std::int32_t* ss, const std::int32_t* vs,
                                             std::int32_t* rgb) {
  const __m256 sf = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ss))),
                                  _mm256_set1_ps(1.0f / 255.0f));
  const __m256 vf = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(vs))),
                                  _mm256_set1_ps(1.0f / 255.0f));
  const __m256 t = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(hs))),
                                 _mm256_set1_ps(6.0f / 180.0f));
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
  const __m256 r = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(vf, u, s4), p, _mm256_or_ps(s2, s3)), q, s1);
  const __m256 g = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(p, q, s3), vf, _mm256_or_ps(s1, s2)), u, s0);
  const __m256 b = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(q, vf, _mm256_or_ps(s3, s4)), u, s2), p,
                                    _mm256_or_ps(s0, s1));
  const __m256 scale = _mm256_set1_ps(255.0f);
  const __m256i lo = _mm256_setzero_si256(), hi = _mm256_set1_epi32(255);
  const __m256 o[3] = {r, g, b};
  for (int c = 0; c < 3; ++c) {
    const __m256i k = _mm256_min_epi32(_mm256_max_epi32(_mm256_cvttps_epi32(_mm256_mul_ps(o[c], scale)), lo), hi);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(rgb + 8 * c), k);
  }
}

bool has_avx2_fma() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}
#endif

}  // namespace
}  // namespace hue_saturation_value_cpu_impl

void hue_saturation_value(View<const std::uint8_t> in, View<std::uint8_t> out, const HsvArgs& a) {
  const int C = in.channels, width = in.width;
  int block_end = 0;  // pixels before it done eight at a time
#if defined(AUG_HSV_AVX2)
  if (hue_saturation_value_cpu_impl::has_avx2_fma()) block_end = width / kHsvBlock * kHsvBlock;
#endif
  std::vector<std::int32_t> hsv(3 * static_cast<std::size_t>(kHsvBlock));
  std::int32_t rgb[24];
  for (int y = 0; y < in.height; ++y) {
    const std::uint8_t* s = in.row(y);
    std::uint8_t* d = out.row(y);
#if defined(AUG_HSV_AVX2)
    for (int x0 = 0; x0 < block_end; x0 += kHsvBlock) {
      std::int32_t* hs = hsv.data();
      hue_saturation_value_cpu_impl::to_hsv(s + x0 * C, C, kHsvBlock, a, hs, hs + kHsvBlock, hs + 2 * kHsvBlock);
      for (int k = 0; k < kHsvBlock; k += 8) {
        hue_saturation_value_cpu_impl::block_rgb8(hs + k, hs + kHsvBlock + k, hs + 2 * kHsvBlock + k, rgb);
        for (int i = 0; i < 8; ++i) {
          std::uint8_t* px = d + (x0 + k + i) * C;
          px[0] = static_cast<std::uint8_t>(rgb[i]);
          px[1] = static_cast<std::uint8_t>(rgb[8 + i]);
          px[2] = static_cast<std::uint8_t>(rgb[16 + i]);
          if (C == 4) px[3] = s[(x0 + k + i) * C + 3];
        }
      }
    }
#endif
    const int blocks = width / kHsvBlock * kHsvBlock;
    for (int x = block_end; x < width; ++x) hsv_pixel(s + x * C, d + x * C, C, a, x < blocks);
  }
}

}  // namespace aug::k::cpu
