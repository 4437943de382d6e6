// shot_noise's host driver: the kernels' arithmetic (shot_noise.hpp) row by row, the row's Philox
// blocks first (computed across pixels, so that they vectorise), then each value's count. 8-bit
// images read it from a guide: for each value v and each top byte b of the word, g = the number of
// thresholds at or below b 2^24, which every word with that top byte passes. When no threshold lies
// inside the byte's range the count is g, and the guide holds its level; otherwise (flag 0x100,
// about K in 256 words) the kernels' search goes on from g. The count is the kernels' count.
// With AVX-512 VBMI and few counts (shot_row_u8_vbmi) the top bytes are compared in registers
// instead, 64 values at a time, with the same rule.
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/shot_noise.hpp"

namespace aug::k::cpu {

namespace shot_noise_cpu_impl {
namespace {

template <int C>
void shot_row_u8(const std::uint8_t* __restrict s, std::uint8_t* __restrict d, const std::uint32_t* __restrict words,
                 std::size_t n, int W, const std::uint16_t* __restrict guide, const ShotArgs& a) {
  constexpr int cc = C == 4 ? 3 : C;
  const int K = a.K;
  for (int x = 0; x < W; ++x) {
    for (int c = 0; c < cc; ++c) {
      const std::uint8_t v = s[x * C + c];
      const std::uint32_t w = words[c * n + x];
      const std::uint16_t e = guide[v * 256 + (w >> 24)];
      if (__builtin_expect(e < 0x100u, 1)) {
        d[x * C + c] = static_cast<std::uint8_t>(e);
        continue;
      }
      const std::uint32_t* t = a.thresholds + static_cast<std::size_t>(v) * K;
      int k = e & 0xFF;
      while (k < K && w >= t[k]) ++k;
      d[x * C + c] = static_cast<std::uint8_t>(a.levels[k]);
    }
    if constexpr (C == 4) d[x * C + 3] = s[x * C + 3];
  }
}

#if defined(AUG_AVX2_PHILOX)
// For each 8-bit mask, the positions of its set bits first (then zeros): a list is appended to
// without a branch by storing all eight and advancing by the count.
struct LanePositions {
  std::uint8_t at[256][8];
  LanePositions() : at{} {
    for (int m = 0; m < 256; ++m)
      for (int l = 0, j = 0; l < 8; ++l)
        if (m >> l & 1) at[m][j++] = static_cast<std::uint8_t>(l);
  }
};

// shot_row_u8 for one or three channels, eight values at a time: the values' words in the image's
// order (interleaved in registers for RGB), the guide's entries read one by one (faster than a
// gather on the AMD EPYC measured), the guided levels stored; the positions of the
// flagged values listed (`flagged`: room for n C + 8), then their counts as the kernels': the
// thresholds are nondecreasing, so the first k with word < t[k] is the number of t[k] <= word.
template <int C>
[[gnu::target("avx2")]] void shot_row_u8_avx2(const std::uint8_t* s, std::uint8_t* d, const std::uint32_t* words,
                                              std::size_t n, int W, const std::uint16_t* guide,
                                              std::uint32_t* flagged, const ShotArgs& a) {
  static_assert(C == 1 || C == 3);
  static const LanePositions positions;
  const __m256i level = _mm256_set1_epi32(0xFF);
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  alignas(32) std::uint32_t w[24];
  std::size_t listed = 0;
  int x = 0;
  for (; x + 8 <= W; x += 8) {
    if constexpr (C == 3) {
      interleave3_avx2(_mm256_loadu_ps(reinterpret_cast<const float*>(words + x)),
                       _mm256_loadu_ps(reinterpret_cast<const float*>(words + n + x)),
                       _mm256_loadu_ps(reinterpret_cast<const float*>(words + 2 * n + x)), w);
    } else {
      _mm256_store_si256(reinterpret_cast<__m256i*>(w), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + x)));
    }
    for (int h = 0; h < C; ++h) {
      const std::size_t i = static_cast<std::size_t>(x) * C + 8 * static_cast<std::size_t>(h);
      const __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + i)));
      const __m256i wv = _mm256_load_si256(reinterpret_cast<const __m256i*>(w + 8 * h));
      const __m256i idx = _mm256_or_si256(_mm256_slli_epi32(v, 8), _mm256_srli_epi32(wv, 24));
      // Eight scalar loads of the 16-bit entries: faster than a gather on the AMD EPYC measured.
      alignas(32) std::uint32_t j[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(j), idx);
      const __m256i e = _mm256_setr_epi32(guide[j[0]], guide[j[1]], guide[j[2]], guide[j[3]], guide[j[4]], guide[j[5]],
                                          guide[j[6]], guide[j[7]]);
      const __m256i q = _mm256_packus_epi32(e, e);  // flagged entries saturate; they are redone below
      const __m128i b = _mm_packus_epi16(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(d + i), _mm_shuffle_epi32(b, 0x08));  // e0..e3, e4..e7
      const unsigned m = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(e, level))));
      const __m256i at = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(positions.at[m])));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(flagged + listed),
                          _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(i)), _mm256_permutevar8x32_epi32(lanes, at)));
      listed += static_cast<std::size_t>(__builtin_popcount(m));
    }
  }
  const int K = a.K;
  for (std::size_t j = 0; j < listed; ++j) {
    const std::size_t p = flagged[j], px = p / C, c = p % C;
    const std::uint8_t val = s[p];
    const std::uint32_t word = words[c * n + px];
    const std::uint32_t* t = a.thresholds + static_cast<std::size_t>(val) * K;
    int k = guide[val * 256 + (word >> 24)] & 0xFF;
    for (int u = k; u < K; ++u) k += word >= t[u];
    d[p] = static_cast<std::uint8_t>(a.levels[k]);
  }
  if (x < W)
    shot_row_u8<C>(s + static_cast<std::size_t>(x) * C, d + static_cast<std::size_t>(x) * C, words + x, n, W - x, guide, a);
}
// shot_row_u8 for one or three channels, 64 values at a time with AVX-512 byte permutes (VBMI),
// for a few counts (K <= kVbmiMaxK). A word w counts threshold t when w >= t: sure when t's top
// byte is below w's, sure not when above; only a tie needs the whole words. `tops` holds, for each
// k < K, the top bytes of the 256 values' thresholds k, looked up in registers (two permutations of
// 128 bytes and a select by the value's top bit); the sure counts are summed lane by lane and the
// level read from a 64-byte table; each tied value (about K in 256) then goes on as the kernels'
// search from its sure count. `top` (room for n C + 64 bytes) receives the row's words' top bytes
// in the image's order.
constexpr int kVbmiMaxK = 28;  // measured: the guide is faster from about 30 counts

struct VbmiTables {
  alignas(64) std::uint8_t tops[kVbmiMaxK][256];
  alignas(64) std::uint8_t levels[64];
};

// The top bytes of sixteen RGB pixels' words (planes w0, w1, w2), in RGB order: byte 3 i + c of
// the result is byte 4 i + 3 of plane c.
struct TopPermutes {
  std::uint8_t first_two[64], third[64];
};
constexpr TopPermutes top_permutes() {
  TopPermutes p{};
  for (int j = 0; j < 64; ++j) {
    const int i = j < 48 ? j / 3 : 0, c = j < 48 ? j % 3 : 0;
    p.first_two[j] = static_cast<std::uint8_t>(c == 1 ? 64 + 4 * i + 3 : 4 * i + 3);
    p.third[j] = static_cast<std::uint8_t>(4 * i + 3);
  }
  return p;
}
alignas(64) constexpr TopPermutes kTopPermutes = top_permutes();
constexpr std::uint64_t kThirdChannel = [] {
  std::uint64_t m = 0;
  for (int j = 2; j < 48; j += 3) m |= 1ull << j;
  return m;
}();

AUG_AVX512_WARNINGS_OFF
template <int C>
[[gnu::target("avx512f,avx512bw,avx512vbmi")]] void shot_row_u8_vbmi(const std::uint8_t* s, std::uint8_t* d,
                                                                    const std::uint32_t* words, std::size_t n, int W,
                                                                    const VbmiTables& tab, std::uint8_t* top,
                                                                    const ShotArgs& a) {
  static_assert(C == 1 || C == 3);
  int x = 0;
  if constexpr (C == 3) {
    const __m512i p01 = _mm512_load_si512(kTopPermutes.first_two), p2 = _mm512_load_si512(kTopPermutes.third);
    for (; x + 16 <= W; x += 16) {
      const __m512i w0 = _mm512_loadu_si512(words + x), w1 = _mm512_loadu_si512(words + n + x);
      const __m512i w2 = _mm512_loadu_si512(words + 2 * n + x);
      const __m512i r = _mm512_mask_permutexvar_epi8(_mm512_permutex2var_epi8(w0, p01, w1), kThirdChannel, p2, w2);
      _mm512_storeu_si512(top + 3 * static_cast<std::size_t>(x), r);  // 48 bytes meant, the rest overwritten
    }
  } else {
    for (; x + 16 <= W; x += 16)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(top + x),
                       _mm512_cvtepi32_epi8(_mm512_srli_epi32(_mm512_loadu_si512(words + x), 24)));
  }
  for (; x < W; ++x)
    for (int c = 0; c < C; ++c) top[static_cast<std::size_t>(x) * C + c] = static_cast<std::uint8_t>(words[c * n + x] >> 24);

  const int K = a.K;
  const std::size_t N = static_cast<std::size_t>(W) * C;
  const __m512i levels = _mm512_load_si512(tab.levels), one = _mm512_set1_epi8(1);
  alignas(64) std::uint8_t sure[64];
  for (std::size_t i = 0; i < N; i += 64) {
    const bool whole = N - i >= 64;  // plain loads and stores but for the last values (masked ones are slower)
    const __mmask64 m = whole ? ~0ull : (~0ull) >> (64 - (N - i));
    const __m512i v = whole ? _mm512_loadu_si512(s + i) : _mm512_maskz_loadu_epi8(m, s + i);
    const __m512i b = whole ? _mm512_loadu_si512(top + i) : _mm512_maskz_loadu_epi8(m, top + i);
    const __mmask64 upper = _mm512_movepi8_mask(v);
    __m512i count = _mm512_setzero_si512();
    __mmask64 tied = 0;
    for (int k = 0; k < K; ++k) {
      const std::uint8_t* t = tab.tops[k];
      const __m512i lo = _mm512_permutex2var_epi8(_mm512_load_si512(t), v, _mm512_load_si512(t + 64));
      const __m512i hi = _mm512_permutex2var_epi8(_mm512_load_si512(t + 128), v, _mm512_load_si512(t + 192));
      const __m512i tk = _mm512_mask_blend_epi8(upper, lo, hi);
      count = _mm512_mask_add_epi8(count, _mm512_cmplt_epu8_mask(tk, b), count, one);
      tied |= _mm512_cmpeq_epi8_mask(tk, b);
    }
    const __m512i out = _mm512_permutexvar_epi8(count, levels);
    if (whole) _mm512_storeu_si512(d + i, out);
    else _mm512_mask_storeu_epi8(d + i, m, out);
    tied &= m;
    if (tied == 0) continue;
    _mm512_store_si512(sure, count);
    do {
      const int l = __builtin_ctzll(tied);
      tied &= tied - 1;
      const std::size_t p = i + static_cast<std::size_t>(l), px = p / C, c = p % C;
      const std::uint32_t w = words[c * n + px];
      const std::uint32_t* t = a.thresholds + static_cast<std::size_t>(s[p]) * K;
      int k = sure[l];
      while (k < K && w >= t[k]) ++k;
      d[p] = static_cast<std::uint8_t>(a.levels[k]);
    } while (tied != 0);
  }
}
AUG_AVX512_WARNINGS_ON
#endif

}  // namespace
}  // namespace shot_noise_cpu_impl

template <class T>
void shot_noise(View<const T> in, View<T> out, const ShotArgs& a) {
  const int W = in.width, C = in.channels, cc = a.color_channels, K = a.K;
  const std::size_t n = static_cast<std::size_t>(W);
  std::vector<std::uint32_t> words(3 * n);
  std::vector<std::uint16_t> guide;
  constexpr bool guided = std::is_same_v<T, std::uint8_t>;
#if defined(AUG_AVX2_PHILOX)
  if constexpr (guided) {
    static const bool vbmi = host_has_avx512_vbmi();
    if (vbmi && (C == 1 || C == 3) && K <= shot_noise_cpu_impl::kVbmiMaxK) {
      auto tab = std::make_unique<shot_noise_cpu_impl::VbmiTables>();
      for (int k = 0; k < K; ++k)
        for (int v = 0; v < 256; ++v) tab->tops[k][v] = static_cast<std::uint8_t>(a.thresholds[v * K + k] >> 24);
      for (int k = 0; k < 64; ++k) tab->levels[k] = static_cast<std::uint8_t>(a.levels[k < K ? k : K]);
      std::vector<std::uint8_t> top(n * C + 64);
      for (int y = 0; y < in.height; ++y) {
        const std::uint32_t first = static_cast<std::uint32_t>(static_cast<std::size_t>(y) * n);
        philox_blocks(a.stream, first, 1, W, words.data(), words.data() + n, words.data() + 2 * n);
        if (C == 1)
          shot_noise_cpu_impl::shot_row_u8_vbmi<1>(in.row(y), out.row(y), words.data(), n, W, *tab, top.data(), a);
        else
          shot_noise_cpu_impl::shot_row_u8_vbmi<3>(in.row(y), out.row(y), words.data(), n, W, *tab, top.data(), a);
      }
      return;
    }
  }
#endif
  std::vector<std::uint32_t> flagged(guided ? n * C + 8 : 0);
  if constexpr (guided) {
    guide.resize(256 * 256);
    for (int v = 0; v < 256; ++v) {
      const std::uint32_t* t = a.thresholds + static_cast<std::size_t>(v) * K;
      int g = 0;
      for (int b = 0; b < 256; ++b) {
        const std::uint32_t start = static_cast<std::uint32_t>(b) << 24, last = start | 0xFFFFFFu;
        while (g < K && t[g] <= start) ++g;
        const bool inside = g < K && t[g] <= last;
        guide[v * 256 + b] = static_cast<std::uint16_t>(inside ? (0x100 | g) : a.levels[g]);
      }
    }
  }
  for (int y = 0; y < in.height; ++y) {
    const std::uint32_t first = static_cast<std::uint32_t>(static_cast<std::size_t>(y) * n);
    philox_blocks(a.stream, first, 1, W, words.data(), words.data() + n, words.data() + 2 * n);
    const T* s = in.row(y);
    T* d = out.row(y);
    if constexpr (guided) {
#if defined(AUG_AVX2_PHILOX)
      if (host_has_avx2() && (C == 1 || C == 3)) {
        if (C == 1) shot_noise_cpu_impl::shot_row_u8_avx2<1>(s, d, words.data(), n, W, guide.data(), flagged.data(), a);
        else shot_noise_cpu_impl::shot_row_u8_avx2<3>(s, d, words.data(), n, W, guide.data(), flagged.data(), a);
        continue;
      }
#endif
      if (C == 1) shot_noise_cpu_impl::shot_row_u8<1>(s, d, words.data(), n, W, guide.data(), a);
      else if (C == 3) shot_noise_cpu_impl::shot_row_u8<3>(s, d, words.data(), n, W, guide.data(), a);
      else shot_noise_cpu_impl::shot_row_u8<4>(s, d, words.data(), n, W, guide.data(), a);
      continue;
    }
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) {
        const T v = s[x * C + c];
        if (c >= cc) {
          d[x * C + c] = v;
          continue;
        }
        const std::uint32_t w = words[c * n + x];
        const std::uint32_t* t = a.thresholds + static_cast<std::size_t>(v) * K;
        int k = 0;
        while (k < K && w >= t[k]) ++k;
        d[x * C + c] = static_cast<T>(a.levels[k]);
      }
  }
}

template void shot_noise<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const ShotArgs&);
template void shot_noise<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const ShotArgs&);

}  // namespace aug::k::cpu
