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
#include "kernels/core/hsv8_avx2.hpp"

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
  const __m256i w = hsv8_load8(s, C);
  __m256i h, sat, v;
  hsv8_from_rgb8(w, sdiv, hdiv, h, sat, v);
  const __m256i byte = _mm256_set1_epi32(0xFF);
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
  hsv8_store8(hsv8_block_to_rgb8(hs, ss, vs), w, d, C);
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
