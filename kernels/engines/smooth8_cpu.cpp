// smooth8 (smooth8.hpp) with AVX-512 BW and VNNI, rows streamed through a ring of n rows of H:
//  - Horizontal: the row widened to 16 bits with its borders either side, then per 32 values
//    k[r] c + sum_{i<r} k[i] (a_i + b_i) in 16-bit lanes: a_i + b_i <= 510 and k[i] <= 128 (the
//    kernel is symmetric and sums to 256), every partial sum <= the exact total <= 65280, so no
//    lane wraps. H is kept as H - 32768 (a signed 16-bit value).
//  - Vertical: rows paired, their values interleaved, one pmaddwd adds two taps of sixteen values
//    in 32-bit lanes; the offsets come back as 32768 * 256 = 2^23, the rounding adds 2^15, and the
//    in-lane interleave is undone by the in-lane pack. VNNI's vpdpwssd adds a pair's two products
//    to the sums in one instruction.
// Near a reflected or replicated top and bottom every row a sum reads lies within [y - r, y + r],
// so n slots hold them; a wrapped border or an image of at most n rows keeps every row instead.
#include "kernels/engines/smooth8.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/core/border.hpp"
#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace smooth8_cpu_impl {
namespace {

#if defined(AUG_AVX2_PHILOX)
#define AUG_SMOOTH8 gnu::target("avx512f,avx512bw,avx512vnni")
AUG_AVX512_WARNINGS_OFF

// h[0, N) = the horizontal sums of the padded 16-bit row `p` (p[j] is the value at j - r C), less 32768.
[[AUG_SMOOTH8]] void hsum(const std::uint16_t* p, std::int16_t* h, int N, int C, const std::uint16_t* k, int r) {
  const __m512i bias = _mm512_set1_epi16(static_cast<short>(0x8000));
  int i = 0;
  for (; i + 32 <= N; i += 32) {
    const std::uint16_t* c = p + i + r * C;
    __m512i acc = _mm512_mullo_epi16(_mm512_loadu_si512(c), _mm512_set1_epi16(static_cast<short>(k[r])));
    for (int t = 0; t < r; ++t) {
      const __m512i pair = _mm512_add_epi16(_mm512_loadu_si512(c - (r - t) * C), _mm512_loadu_si512(c + (r - t) * C));
      acc = _mm512_add_epi16(acc, _mm512_mullo_epi16(pair, _mm512_set1_epi16(static_cast<short>(k[t]))));
    }
    _mm512_storeu_si512(h + i, _mm512_xor_si512(acc, bias));
  }
  for (; i < N; ++i) {
    unsigned acc = 0;
    for (int t = 0; t <= 2 * r; ++t) acc += static_cast<unsigned>(k[t]) * p[i + t * C];
    h[i] = static_cast<std::int16_t>(static_cast<int>(acc) - 32768);
  }
}

// o[0, N) = (sum_j k[j] (rows[j] + 32768) + 2^15) >> 16; each pair's products added to the sums by
// one vpdpwssd.
[[AUG_SMOOTH8]] void vsum(const std::int16_t* const* rows, std::uint8_t* o, int N, const std::uint16_t* k, int n) {
  // Tap pairs (2 t, 2 t + 1), the last one alone with a weight of 0 beside it.
  const int pairs = (n + 1) / 2;
  __m512i w[16];
  for (int t = 0; t < pairs; ++t) {
    const int lo = k[2 * t], hi = 2 * t + 1 < n ? k[2 * t + 1] : 0;
    w[t] = _mm512_set1_epi32(lo | hi << 16);
  }
  const __m512i round = _mm512_set1_epi32((1 << 23) + (1 << 15));
  int i = 0;
  for (; i + 32 <= N; i += 32) {
    __m512i s0 = round, s1 = round;
    for (int t = 0; t < pairs; ++t) {
      const __m512i a = _mm512_loadu_si512(rows[2 * t] + i);
      const __m512i b = 2 * t + 1 < n ? _mm512_loadu_si512(rows[2 * t + 1] + i) : a;
      s0 = _mm512_dpwssd_epi32(s0, _mm512_unpacklo_epi16(a, b), w[t]);
      s1 = _mm512_dpwssd_epi32(s1, _mm512_unpackhi_epi16(a, b), w[t]);
    }
    const __m512i q = _mm512_packus_epi32(_mm512_srli_epi32(s0, 16), _mm512_srli_epi32(s1, 16));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + i), _mm512_cvtusepi16_epi8(q));
  }
  for (; i < N; ++i) {
    std::int64_t acc = 0;
    for (int j = 0; j < n; ++j) acc += static_cast<std::int64_t>(k[j]) * (rows[j][i] + 32768);
    o[i] = static_cast<std::uint8_t>((acc + (1 << 15)) >> 16);
  }
}

AUG_AVX512_WARNINGS_ON
#endif

}  // namespace
}  // namespace smooth8_cpu_impl

bool smooth8_available() {
#if defined(AUG_AVX2_PHILOX)
  return host_has_avx512_vnni();
#else
  return false;
#endif
}

bool smooth8(View<const std::uint8_t> in, View<std::uint8_t> out, const std::uint16_t* k, int n, int border) {
  if (!smooth8_available() || n % 2 == 0 || n < 1 || n > 31) return false;
  int sum = 0;
  for (int i = 0; i < n; ++i) {
    if (k[i] != k[n - 1 - i] || (i != n / 2 && k[i] > 128)) return false;
    sum += k[i];
  }
  if (sum != 256) return false;
#if defined(AUG_AVX2_PHILOX)
  const int W = in.width, H = in.height, C = in.channels, N = W * C, r = n / 2;
  const bool keep_all = border == kBorderWrap || H <= n;
  const int slots = keep_all ? H : n;
  const std::size_t stride = static_cast<std::size_t>(N) + 32;
  // Kept from image to image: no fresh pages to fault in.
  thread_local std::vector<std::uint16_t> padded;
  thread_local std::vector<std::int16_t> ring;
  padded.resize(std::max(padded.size(), static_cast<std::size_t>(W + 2 * r) * C + 32));
  ring.resize(std::max(ring.size(), (static_cast<std::size_t>(slots) + 1) * stride));
  std::int16_t* zero = ring.data() + static_cast<std::size_t>(slots) * stride;  // H = 0 (a constant border's rows)
  std::fill(zero, zero + N, static_cast<std::int16_t>(-32768));
  auto slot = [&](int y) { return ring.data() + static_cast<std::size_t>(keep_all ? y : y % n) * stride; };
  auto horizontal = [&](int y) {
    const std::uint8_t* s = in.row(y);
    std::uint16_t* p = padded.data();
    for (int x = -r; x < W + r; ++x) {
      if (x == 0) {  // the row itself
        for (int i = 0; i < N; ++i) p[(r + x) * C + i] = s[i];
        x = W - 1;
        continue;
      }
      const int sx = border_index(x, W, border);
      for (int c = 0; c < C; ++c) p[(r + x) * C + c] = sx < 0 ? 0 : s[sx * C + c];
    }
    smooth8_cpu_impl::hsum(p, slot(y), N, C, k, r);
  };
  std::vector<const std::int16_t*> rows(static_cast<std::size_t>(n));
  int done = 0;  // rows of H computed: [0, done)
  for (int y = 0; y < H; ++y) {
    const int need = keep_all ? H : std::min(H, y + r + 1);
    for (; done < need; ++done) horizontal(done);
    for (int j = 0; j < n; ++j) {
      const int sy = border_index(y + j - r, H, border);
      rows[static_cast<std::size_t>(j)] = sy < 0 ? zero : slot(sy);
    }
    smooth8_cpu_impl::vsum(rows.data(), out.row(y), N, k, n);
  }
  return true;
#else
  (void)in, (void)out, (void)border;
  return false;
#endif
}

}  // namespace aug::k::cpu
