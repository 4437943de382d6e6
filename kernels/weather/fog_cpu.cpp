// fog's host driver: the kernels' table look-ups, a row at a time, and an AVX2 Gaussian blur of the
// 8-bit result with OpenCV's fixed-point arithmetic (exact integer sums, so any order gives them).
#include "kernels/weather/fog.hpp"

#include <cstring>
#include <vector>

#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace fog_cpu_impl {
namespace {

#if defined(AUG_AVX2_PHILOX)
// out = (sum_j w[j] sum_i w[i] in(x + i - r, y + j - r) + 2^15) >> 16, REFLECT_101 borders, for
// 8-bit weights whose neighbouring pairs sum to at most 128 (w[j] + w[j + 1] <= 128).
//  - Horizontal pass: byte pairs (v, v + C) of the padded row side by side, so that one
//    _mm256_maddubs_epi16 adds two taps of sixteen values (each pair <= 255 * 128: no saturation;
//    the 16-bit sums wrap but end <= 65280).
//  - Vertical pass: each row's sums h paired with the next row's (as h - 32768, signed 16 bits) in
//    32-bit lanes, so that one _mm256_madd_epi16 adds two taps of eight values; the rows' offsets
//    come back as 32768 times the weight sum.
struct FogBlurRow {
  int W, C, r, pairs, n32;
  const std::int32_t* wa;  // per pair of taps: the two 8-bit weights, low byte first
  const std::int32_t* wb;  // per pair of taps: the two 16-bit weights, low half first
};

// q = rows a and b side by side, a byte of each per 16-bit value: (a[i], b[i]).
[[gnu::target("avx2")]] void fog_pair_bytes_avx2(const std::uint8_t* a, const std::uint8_t* b, std::uint16_t* q, int n32) {
  for (int v = 0; v < n32; v += 32) {
    const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + v));
    const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + v));
    const __m256i lo = _mm256_unpacklo_epi8(x0, x1), hi = _mm256_unpackhi_epi8(x0, x1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + v), _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + v + 16), _mm256_permute2x128_si256(lo, hi, 0x31));
  }
}

// v = the vertical sums, from the pairs of rows (2t, 2t + 1) of the window.
[[gnu::target("avx2")]] void fog_vsum_avx2(const FogBlurRow& b, const std::uint16_t* const* rows, std::uint16_t* v) {
  for (int i = 0; i < b.n32; i += 32) {
    __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
    for (int t = 0; t < b.pairs; ++t) {
      const __m256i wt = _mm256_set1_epi16(static_cast<short>(b.wa[t]));
      const std::uint16_t* qt = rows[t] + i;
      a0 = _mm256_add_epi16(a0, _mm256_maddubs_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(qt)), wt));
      a1 = _mm256_add_epi16(a1, _mm256_maddubs_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(qt + 16)), wt));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(v + i), a0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(v + i + 16), a1);
  }
}

// o (the output row, W * C values) = the horizontal sums of the vertical sums at vpad + r * C
// (their reflections written either side first), rounded: (sum + 2^15) >> 16 as bytes. p: work
// space, (v[i], v[i + C]) less 32768 each.
[[gnu::target("avx2")]] void fog_hsum_avx2(const FogBlurRow& b, std::uint16_t* vpad, std::int32_t* p, int plen,
                                           std::uint8_t* o) {
  alignas(32) std::uint8_t last[32];  // the row's last, partial vector
  const int C = b.C, W = b.W, n = W * C, pad = b.r * C;
  const std::uint16_t* s = vpad + pad;
  for (int x = 1; x <= b.r; ++x)  // REFLECT_101 (W > r)
    for (int c = 0; c < C; ++c) {
      vpad[pad - x * C + c] = s[x * C + c];
      vpad[pad + n + (x - 1) * C + c] = s[(W - 1 - x) * C + c];
    }
  const __m256i flip = _mm256_set1_epi16(static_cast<short>(0x8000));
  for (int i = 0; i < plen; i += 16) {
    const __m256i x0 = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(vpad + i)), flip);
    const __m256i x1 = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(vpad + i + C)), flip);
    const __m256i lo = _mm256_unpacklo_epi16(x0, x1), hi = _mm256_unpackhi_epi16(x0, x1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + i), _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + i + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
  }
  const __m256i bias = _mm256_set1_epi32(32768 * 256 + 32768);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int i = 0; i < b.n32; i += 32) {
    __m256i a0 = bias, a1 = bias, a2 = bias, a3 = bias;
    for (int t = 0; t < b.pairs; ++t) {
      const std::int32_t* pt = p + i + 2 * t * C;
      const __m256i wt = _mm256_set1_epi32(b.wb[t]);
      a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(pt)), wt));
      a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(pt + 8)), wt));
      a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(pt + 16)), wt));
      a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(pt + 24)), wt));
    }
    a0 = _mm256_srai_epi32(a0, 16);
    a1 = _mm256_srai_epi32(a1, 16);
    a2 = _mm256_srai_epi32(a2, 16);
    a3 = _mm256_srai_epi32(a3, 16);
    const __m256i p01 = _mm256_packs_epi32(a0, a1), p23 = _mm256_packs_epi32(a2, a3);
    const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(p01, p23), order);
    if (i + 32 <= n) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), bytes);
    } else if (i < n) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(last), bytes);
      std::memcpy(o + i, last, static_cast<std::size_t>(n - i));
    }
  }
}

// The same three steps with AVX-512 (BW, VNNI: _mm512_dpwssd_epi32 adds the pair products to the
// sums in one instruction), 64 values at a time; the unpacks work within 128-bit lanes, so a
// permutation of 64-bit pieces puts the pairs back in order.
AUG_AVX512_WARNINGS_OFF
#define AUG_FOG_AVX512 gnu::target("avx512f,avx512bw,avx512vnni")
[[AUG_FOG_AVX512]] void fog_pair_bytes_avx512(const std::uint8_t* a, const std::uint8_t* b, std::uint16_t* q, int n64) {
  const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  for (int v = 0; v < n64; v += 64) {
    const __m512i x0 = _mm512_loadu_si512(a + v), x1 = _mm512_loadu_si512(b + v);
    const __m512i lo = _mm512_unpacklo_epi8(x0, x1), hi = _mm512_unpackhi_epi8(x0, x1);
    _mm512_storeu_si512(q + v, _mm512_permutex2var_epi64(lo, first, hi));
    _mm512_storeu_si512(q + v + 32, _mm512_permutex2var_epi64(lo, second, hi));
  }
}

[[AUG_FOG_AVX512]] void fog_vsum_avx512(const FogBlurRow& b, const std::uint16_t* const* rows, std::uint16_t* v) {
  for (int i = 0; i < b.n32; i += 64) {
    __m512i a0 = _mm512_setzero_si512(), a1 = _mm512_setzero_si512();
    for (int t = 0; t < b.pairs; ++t) {
      const __m512i wt = _mm512_set1_epi16(static_cast<short>(b.wa[t]));
      const std::uint16_t* qt = rows[t] + i;
      a0 = _mm512_add_epi16(a0, _mm512_maddubs_epi16(_mm512_loadu_si512(qt), wt));
      a1 = _mm512_add_epi16(a1, _mm512_maddubs_epi16(_mm512_loadu_si512(qt + 32), wt));
    }
    _mm512_storeu_si512(v + i, a0);
    _mm512_storeu_si512(v + i + 32, a1);
  }
}

[[AUG_FOG_AVX512]] void fog_hsum_avx512(const FogBlurRow& b, std::uint16_t* vpad, std::int32_t* p, int plen,
                                        std::uint8_t* o) {
  alignas(64) std::uint8_t last[64];  // the row's last, partial vector
  const int C = b.C, W = b.W, n = W * C, pad = b.r * C;
  const std::uint16_t* s = vpad + pad;
  for (int x = 1; x <= b.r; ++x)  // REFLECT_101 (W > r)
    for (int c = 0; c < C; ++c) {
      vpad[pad - x * C + c] = s[x * C + c];
      vpad[pad + n + (x - 1) * C + c] = s[(W - 1 - x) * C + c];
    }
  const __m512i flip = _mm512_set1_epi16(static_cast<short>(0x8000));
  const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  for (int i = 0; i < plen; i += 32) {
    const __m512i x0 = _mm512_xor_si512(_mm512_loadu_si512(vpad + i), flip);
    const __m512i x1 = _mm512_xor_si512(_mm512_loadu_si512(vpad + i + C), flip);
    const __m512i lo = _mm512_unpacklo_epi16(x0, x1), hi = _mm512_unpackhi_epi16(x0, x1);
    _mm512_storeu_si512(p + i, _mm512_permutex2var_epi64(lo, first, hi));
    _mm512_storeu_si512(p + i + 16, _mm512_permutex2var_epi64(lo, second, hi));
  }
  const __m512i bias = _mm512_set1_epi32(32768 * 256 + 32768);
  for (int i = 0; i < b.n32; i += 64) {
    __m512i a0 = bias, a1 = bias, a2 = bias, a3 = bias;
    for (int t = 0; t < b.pairs; ++t) {
      const std::int32_t* pt = p + i + 2 * t * C;
      const __m512i wt = _mm512_set1_epi32(b.wb[t]);
      a0 = _mm512_dpwssd_epi32(a0, _mm512_loadu_si512(pt), wt);
      a1 = _mm512_dpwssd_epi32(a1, _mm512_loadu_si512(pt + 16), wt);
      a2 = _mm512_dpwssd_epi32(a2, _mm512_loadu_si512(pt + 32), wt);
      a3 = _mm512_dpwssd_epi32(a3, _mm512_loadu_si512(pt + 48), wt);
    }
    // (sum + 2^15) >> 16 is in [0, 255]: the low byte of each lane is the value.
    if (i >= n) break;
    std::uint8_t* to = i + 64 <= n ? o + i : last;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm512_cvtepi32_epi8(_mm512_srai_epi32(a0, 16)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 16), _mm512_cvtepi32_epi8(_mm512_srai_epi32(a1, 16)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 32), _mm512_cvtepi32_epi8(_mm512_srai_epi32(a2, 16)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 48), _mm512_cvtepi32_epi8(_mm512_srai_epi32(a3, 16)));
    if (to == last) std::memcpy(o + i, last, static_cast<std::size_t>(n - i));
  }
}
#undef AUG_FOG_AVX512
AUG_AVX512_WARNINGS_ON

// out = (sum_i w[i] sum_j w[j] in(x + i - r, y + j - r) + 2^15) >> 16, REFLECT_101 borders, for
// 8-bit weights summing to 256 whose neighbouring pairs sum to at most 128 (w[j] + w[j + 1] <= 128).
// The sums are exact integers, so the passes may go in any order: vertical first.
//  - Vertical pass: each source row's bytes paired with the next row's, so that one
//    _mm256_maddubs_epi16 adds two taps of sixteen values (each pair <= 255 * 128: no saturation;
//    the 16-bit sums wrap but end <= 65280). A ring holds the window's pairs of rows.
//  - Horizontal pass: each sum paired with its neighbour C values on (as v - 32768, signed 16
//    bits) in 32-bit lanes, so that one _mm256_madd_epi16 adds two taps of eight values; the offsets
//    come back as 32768 times the weight sum (256).
void fog_blur_rows(const FogRowSource& in, View<std::uint8_t> out, const std::int32_t* w, int ksize, bool wide) {
  const int C = out.channels, W = out.width, H = out.height, r = ksize / 2;
  const int n = W * C, pad = r * C;
  const int n32 = (n + 63) / 64 * 64;  // whole vectors of either width
  const int pairs = (ksize + 1) / 2;  // taps 2t and 2t + 1 (the last weight 0 for an odd size)
  std::vector<std::int32_t> wa(static_cast<std::size_t>(pairs)), wb(static_cast<std::size_t>(pairs));
  for (int t = 0; t < pairs; ++t) {
    const std::int32_t a = w[2 * t], c = 2 * t + 1 < ksize ? w[2 * t + 1] : 0;
    wa[static_cast<std::size_t>(t)] = a | (c << 8);
    wb[static_cast<std::size_t>(t)] = a | (c << 16);
  }
  const FogBlurRow b{W, C, r, pairs, n32, wa.data(), wb.data()};
  const int plen = (n32 + 2 * pairs * C + 63) / 64 * 64;  // pairs read by the horizontal pass
  const auto pair_bytes = wide ? fog_pair_bytes_avx512 : fog_pair_bytes_avx2;
  const auto vsum = wide ? fog_vsum_avx512 : fog_vsum_avx2;
  const auto hsum = wide ? fog_hsum_avx512 : fog_hsum_avx2;
  std::vector<std::uint8_t> s0(static_cast<std::size_t>(n32), 0), s1(static_cast<std::size_t>(n32), 0);
  std::vector<std::uint16_t> ring(static_cast<std::size_t>(ksize) * static_cast<std::size_t>(n32));
  std::vector<std::uint16_t> vpad(static_cast<std::size_t>(plen + C + 64), 0);
  std::vector<std::int32_t> prow(static_cast<std::size_t>(plen));
  auto src = [&](int y, std::uint8_t* to) { in.row(in.context, y < 0 ? -y : (y >= H ? 2 * (H - 1) - y : y), to); };
  auto slot = [&](int y) { return ring.data() + static_cast<std::size_t>((y + r) % ksize) * n32; };  // rows (y, y + 1)
  std::uint8_t* sp = s0.data();
  std::uint8_t* sn = s1.data();
  src(-r, sp);
  const std::uint16_t* rows[64];
  for (int y = -r; y <= H - 1 + r; ++y) {
    src(y + 1, sn);
    pair_bytes(sp, sn, slot(y), n32);
    std::swap(sp, sn);
    const int oy = y - r;  // the output row whose last pair of rows is now there
    if (oy < 0) continue;
    for (int t = 0; t < pairs; ++t) rows[t] = slot(oy - r + 2 * t);
    vsum(b, rows, vpad.data() + pad);
    hsum(b, vpad.data(), prow.data(), plen, out.row(oy));
  }
}

// d[i] = t[s[i]] for i < n: a 256-value table in four 64-byte registers, two permutations of 128
// values each and a select by the index's top bit, 64 values at a time.
[[gnu::target("avx512f,avx512bw,avx512vbmi")]] void fog_lookup_vbmi(const std::uint8_t* s, std::uint8_t* d, std::size_t n,
                                                                   const std::uint8_t* t) {
  const __m512i t0 = _mm512_loadu_si512(t), t1 = _mm512_loadu_si512(t + 64);
  const __m512i t2 = _mm512_loadu_si512(t + 128), t3 = _mm512_loadu_si512(t + 192);
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i x = _mm512_loadu_si512(s + i);
    const __m512i lo = _mm512_permutex2var_epi8(t0, x, t1), hi = _mm512_permutex2var_epi8(t2, x, t3);
    _mm512_storeu_si512(d + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi));
  }
  if (i < n) {  // the last values under a mask
    const __mmask64 m = (~0ull) >> (64 - (n - i));
    const __m512i x = _mm512_maskz_loadu_epi8(m, s + i);
    const __m512i lo = _mm512_permutex2var_epi8(t0, x, t1), hi = _mm512_permutex2var_epi8(t2, x, t3);
    _mm512_mask_storeu_epi8(d + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi));
  }
}
#endif

}  // namespace
}  // namespace fog_cpu_impl

void fog_lookup(const std::uint8_t* s, std::uint8_t* d, std::size_t n, const std::uint8_t* t) {
#if defined(AUG_AVX2_PHILOX)
  static const bool vbmi = host_has_avx512_vbmi();
  if (vbmi) return fog_cpu_impl::fog_lookup_vbmi(s, d, n, t);
#endif
  for (std::size_t i = 0; i < n; ++i) d[i] = t[s[i]];
}

template <class T>
void fog_particles(View<const T> in, View<std::uint8_t> out, const FogArgs& a) {
  const int C = in.channels, W = in.width;
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    std::uint8_t* d = out.row(y);
    const std::uint16_t* count = a.count + static_cast<std::size_t>(y) * W;
    for (int x = 0; x < W; ++x) {
      const std::uint8_t* t = a.table + count[x] * 256;
      for (int c = 0; c < C; ++c) d[x * C + c] = t[to_u8_io(s[x * C + c])];
    }
  }
}

template void fog_particles<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const FogArgs&);
template void fog_particles<std::uint16_t>(View<const std::uint16_t>, View<std::uint8_t>, const FogArgs&);
template void fog_particles<float>(View<const float>, View<std::uint8_t>, const FogArgs&);

bool fog_blur(const FogRowSource& in, View<std::uint8_t> out, const std::int32_t* weights, int ksize, int vector_bits) {
#if defined(AUG_AVX2_PHILOX)
  // Zero weights at both ends (OpenCV's 8-bit kernels round their tails to 0) read nothing: a
  // shorter kernel about the same centre gives the same sums.
  while (ksize > 2 && weights[0] == 0 && weights[ksize - 1] == 0) {
    ++weights;
    ksize -= 2;
  }
  const int r = ksize / 2;
  if (!host_has_avx2() || ksize < 1 || ksize % 2 == 0 || ksize > 127 || out.width <= r || out.height <= r + 1)
    return false;
  std::int32_t total = 0;
  for (int j = 0; j < ksize; ++j) {
    if (weights[j] < 0 || weights[j] + (j + 1 < ksize ? weights[j + 1] : 0) > 128) return false;
    total += weights[j];
  }
  if (total != 256) return false;  // 8 fraction bits a pass: the sums fit 16 bits, the shift is 16
  static const bool avx512 = host_has_avx512_vnni();
  fog_cpu_impl::fog_blur_rows(in, out, weights, ksize, avx512 && vector_bits >= 512);
  return true;
#else
  (void)in, (void)out, (void)weights, (void)ksize, (void)vector_bits;
  return false;
#endif
}

}  // namespace aug::k::cpu
