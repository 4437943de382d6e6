// sepia's host driver (the CPU backend): the kernels' formulas (sepia_pixel) row by row, the channel
// count fixed at compile time; 8-bit RGB rows with AVX2 32 pixels at a time, the same Q10 integer
// sums; with AVX-512 VBMI 16 pixels at a time, one per 32-bit lane.
#include <cstdint>
#include <type_traits>

#include "kernels/color/sepia.hpp"
#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace sepia_cpu_impl {
namespace {

template <class T, int C>
AUG_CLONES void sepia_row(T* d, const T* s, int width) {
  for (int x = 0; x < width; ++x) {
    sepia_pixel(s + x * C, d + x * C);
    if constexpr (C == 4) d[x * C + 3] = s[x * C + 3];
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// Byte shuffles between 48 interleaved RGB bytes (three vectors) and three planes of 16 bytes.
struct RgbShuffles {
  alignas(16) std::int8_t split[3][3][16];  // [plane][source vector][lane]: plane c's byte i, or -1
  alignas(16) std::int8_t merge[3][3][16];  // [destination vector][plane][lane]
  RgbShuffles() {
    for (int c = 0; c < 3; ++c)
      for (int v = 0; v < 3; ++v)
        for (int i = 0; i < 16; ++i) {
          const int byte = 3 * i + c;  // pixel i's channel c in the 48 bytes
          split[c][v][i] = static_cast<std::int8_t>(byte / 16 == v ? byte % 16 : -1);
          const int at = 16 * v + i;  // byte i of destination vector v: pixel at / 3, channel at % 3
          merge[v][c][i] = static_cast<std::int8_t>(at % 3 == c ? at / 3 : -1);
        }
  }
};

// One output plane of 32 pixels from their (r, g) and (b, 1) pairs: (cr r + cg g + cb b + 512) >> 10
// in 32-bit lanes (pmaddwd: every product and sum exact), saturated to 8 bits. The pairs come in the
// order the in-lane unpacks leave them (q[0] pixels 0-3 and 16-19, q[1] 4-7 and 20-23, q[2] 8-11 and
// 24-27, q[3] 12-15 and 28-31); the in-lane packs undo it: pixels 0-15 in the low lane, 16-31 high.
[[gnu::target("avx2")]] inline __m256i sepia_plane(const __m256i* rg, const __m256i* b1, int cr, int cg, int cb) {
  const __m256i krg = _mm256_set1_epi32(cr | cg << 16), kb1 = _mm256_set1_epi32(cb | 512 << 16);
  __m256i q[4];
  for (int i = 0; i < 4; ++i)
    q[i] = _mm256_srli_epi32(_mm256_add_epi32(_mm256_madd_epi16(rg[i], krg), _mm256_madd_epi16(b1[i], kb1)), 10);
  return _mm256_packus_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
}

// A 16-byte shuffle in both lanes.
[[gnu::target("avx2")]] inline __m256i mask2(const std::int8_t* m) {
  return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(m)));
}
// 16 bytes at lo in the low lane, 16 at hi in the high one.
[[gnu::target("avx2")]] inline __m256i load2(const std::uint8_t* lo, const std::uint8_t* hi) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lo))),
                                 _mm_loadu_si128(reinterpret_cast<const __m128i*>(hi)), 1);
}

// 8-bit RGB, 32 pixels at a time: two blocks of 16 pixels (48 bytes) side by side, one per 128-bit
// lane, so that every byte shuffle works on both at once.
[[gnu::target("avx2")]] int sepia_rgb8_avx2(std::uint8_t* d, const std::uint8_t* s, int width) {
  static const RgbShuffles sh;
  const __m256i zero = _mm256_setzero_si256(), ones = _mm256_set1_epi16(1);
  int x = 0;
  for (; x + 32 <= width; x += 32) {
    const std::uint8_t* p = s + 3 * x;
    const __m256i v[3] = {load2(p, p + 48), load2(p + 16, p + 64), load2(p + 32, p + 80)};
    __m256i plane[3];
    for (int c = 0; c < 3; ++c)
      plane[c] = _mm256_or_si256(_mm256_or_si256(_mm256_shuffle_epi8(v[0], mask2(sh.split[c][0])),
                                                 _mm256_shuffle_epi8(v[1], mask2(sh.split[c][1]))),
                                 _mm256_shuffle_epi8(v[2], mask2(sh.split[c][2])));
    __m256i rg[4], b1[4];
    for (int h = 0; h < 2; ++h) {  // 16-bit values: pixels 0-7 and 16-23 (h 0), 8-15 and 24-31 (h 1)
      const __m256i r = h ? _mm256_unpackhi_epi8(plane[0], zero) : _mm256_unpacklo_epi8(plane[0], zero);
      const __m256i g = h ? _mm256_unpackhi_epi8(plane[1], zero) : _mm256_unpacklo_epi8(plane[1], zero);
      const __m256i b = h ? _mm256_unpackhi_epi8(plane[2], zero) : _mm256_unpacklo_epi8(plane[2], zero);
      rg[2 * h] = _mm256_unpacklo_epi16(r, g);
      rg[2 * h + 1] = _mm256_unpackhi_epi16(r, g);
      b1[2 * h] = _mm256_unpacklo_epi16(b, ones);
      b1[2 * h + 1] = _mm256_unpackhi_epi16(b, ones);
    }
    const __m256i o[3] = {sepia_plane(rg, b1, 402, 787, 194), sepia_plane(rg, b1, 357, 702, 172),
                          sepia_plane(rg, b1, 279, 547, 134)};
    std::uint8_t* q = d + 3 * x;
    for (int w = 0; w < 3; ++w) {
      const __m256i out = _mm256_or_si256(_mm256_or_si256(_mm256_shuffle_epi8(o[0], mask2(sh.merge[w][0])),
                                                          _mm256_shuffle_epi8(o[1], mask2(sh.merge[w][1]))),
                                          _mm256_shuffle_epi8(o[2], mask2(sh.merge[w][2])));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 16 * w), _mm256_castsi256_si128(out));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 48 + 16 * w), _mm256_extracti128_si256(out, 1));
    }
  }
  return x;
}

// 8-bit RGB with AVX-512 VBMI, 16 pixels at a time, one per 32-bit lane: byte permutes put (r, g)
// and (b, 1) in each lane's two 16-bit halves, pmaddwd makes each channel's exact sum
// cr r + cg g + cb b + 512, then >> 10, saturated to 255, and the three channels go back to 48
// interleaved bytes. Rows whose last 64 bytes would be read past are finished by the caller.
AUG_AVX512_WARNINGS_OFF
struct SepiaPermutes {
  std::uint8_t rg[64], b[64];
};
constexpr SepiaPermutes sepia_permutes() {
  SepiaPermutes p{};
  for (int j = 0; j < 64; ++j) {
    p.rg[j] = static_cast<std::uint8_t>(3 * (j / 4) + (j % 4 == 2 ? 1 : 0));  // bytes 0 and 2 of lane j / 4
    p.b[j] = static_cast<std::uint8_t>(3 * (j / 4) + 2);                       // byte 0
  }
  return p;
}
alignas(64) constexpr SepiaPermutes kSepiaPermutes = sepia_permutes();

[[gnu::target("avx512f,avx512bw,avx512vbmi")]] inline __m512i sepia_lanes(__m512i rg, __m512i b1, int cr, int cg,
                                                                         int cb) {
  const __m512i s = _mm512_add_epi32(_mm512_madd_epi16(rg, _mm512_set1_epi32(cr | cg << 16)),
                                     _mm512_madd_epi16(b1, _mm512_set1_epi32(cb | 512 << 16)));
  return _mm512_min_epu32(_mm512_srli_epi32(s, 10), _mm512_set1_epi32(255));
}

[[gnu::target("avx512f,avx512bw,avx512vbmi")]] int sepia_rgb8_vbmi(std::uint8_t* d, const std::uint8_t* s, int width) {
  const __m512i prg = _mm512_load_si512(kSepiaPermutes.rg), pb = _mm512_load_si512(kSepiaPermutes.b);
  const __m512i one = _mm512_set1_epi32(1 << 16);
  int x = 0;
  for (; x + 22 <= width; x += 16) {  // reads 64 bytes from 3 x: within the row
    const __m512i v = _mm512_loadu_si512(s + 3 * x);
    const __m512i rg = _mm512_maskz_permutexvar_epi8(0x5555555555555555ull, prg, v);
    const __m512i b1 = _mm512_or_si512(_mm512_maskz_permutexvar_epi8(0x1111111111111111ull, pb, v), one);
    const __m512i o = _mm512_or_si512(
        _mm512_or_si512(sepia_lanes(rg, b1, 402, 787, 194), _mm512_slli_epi32(sepia_lanes(rg, b1, 357, 702, 172), 8)),
        _mm512_slli_epi32(sepia_lanes(rg, b1, 279, 547, 134), 16));
    const __m512i out = rgb8_join16(o);
    // 48 bytes (a wider store would overwrite input not yet read when the image is done in place)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 3 * x), _mm512_castsi512_si256(out));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 3 * x + 32), _mm512_extracti32x4_epi32(out, 2));
  }
  return x;
}
AUG_AVX512_WARNINGS_ON
#endif

}  // namespace
}  // namespace sepia_cpu_impl

template <class T>
void sepia(View<const T> in, View<T> out) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = host_has_avx2(), vbmi = host_has_avx512_vbmi();
#endif
  for (int y = 0; y < out.height; ++y) {
    if (in.channels == 4) {
      sepia_cpu_impl::sepia_row<T, 4>(out.row(y), in.row(y), out.width);
      continue;
    }
    int done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      if (vbmi) done = sepia_cpu_impl::sepia_rgb8_vbmi(out.row(y), in.row(y), out.width);
      else if (avx2) done = sepia_cpu_impl::sepia_rgb8_avx2(out.row(y), in.row(y), out.width);
    }
#endif
    sepia_cpu_impl::sepia_row<T, 3>(out.row(y) + 3 * done, in.row(y) + 3 * done, out.width - done);
  }
}

template void sepia<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>);
template void sepia<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>);
template void sepia<float>(View<const float>, View<float>);

}  // namespace aug::k::cpu
