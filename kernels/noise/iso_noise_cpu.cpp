// iso_noise's host driver: the kernels' arithmetic (iso_noise.hpp). The histogram and the
// thresholds as the kernels; then row by row, the row's Philox blocks first (computed across
// pixels, so that they vectorise), then every pixel through iso_noise.hpp's functions, in a loop
// compiled for AVX2 with FMA where the processor has them (the same exactly rounded operations).
// The luminance count compares with the first M thresholds only: those from keff on (the number
// below 2^32 - 1) all equal 2^32 - 1, which a word reaches only when it is 2^32 - 1 itself.
#include <cstdint>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/iso_noise.hpp"

namespace aug::k::cpu {

namespace iso_noise_cpu_impl {
namespace {

template <int C, int M>
inline void iso_row(const std::uint8_t* __restrict s, std::uint8_t* __restrict d, const std::uint32_t* __restrict w0,
                    const std::uint32_t* __restrict w1, int width, const std::uint32_t* __restrict t, const IsoArgs& a) {
  const float* unit = a.unit;
  const float* normal = a.normal;
  const float hue_sigma = a.hue_sigma, intensity = a.intensity;
  for (int x = 0; x < width; ++x) {
    const std::uint8_t* p = s + x * C;
    float h, l, sat;
    rgb_to_hls(unit[p[0]], unit[p[1]], unit[p[2]], h, l, sat);
    h = h + hue_sigma * standard_normal(w1[x], normal);
    const std::uint32_t w = w0[x];
    int k = 0;
    for (int j = 0; j < M; ++j) k += w >= t[j] ? 1 : 0;
    k += w == 0xFFFFFFFFu ? kIsoCounts - M : 0;
    const float lum = static_cast<float>(k) * intensity;
    l = clamp01(l + lum * (1.0f - l));
    float r, g, b;
    hls_to_rgb(h, l, sat, r, g, b);
    std::uint8_t* q = d + x * C;
    q[0] = static_cast<std::uint8_t>(static_cast<std::int32_t>(rne_float(clamp01(r) * 255.0f)));
    q[1] = static_cast<std::uint8_t>(static_cast<std::int32_t>(rne_float(clamp01(g) * 255.0f)));
    q[2] = static_cast<std::uint8_t>(static_cast<std::int32_t>(rne_float(clamp01(b) * 255.0f)));
    if constexpr (C == 4) q[3] = p[3];
  }
}

using RowFn = void (*)(const std::uint8_t*, std::uint8_t*, const std::uint32_t*, const std::uint32_t*, int,
                       const std::uint32_t*, const IsoArgs&);

template <int C, int M>
void row_portable(const std::uint8_t* s, std::uint8_t* d, const std::uint32_t* w0, const std::uint32_t* w1, int width,
                  const std::uint32_t* t, const IsoArgs& a) {
  iso_row<C, M>(s, d, w0, w1, width, t, a);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
template <int C, int M>
[[gnu::target("avx2,fma")]] void row_avx2(const std::uint8_t* s, std::uint8_t* d, const std::uint32_t* w0,
                                          const std::uint32_t* w1, int width, const std::uint32_t* t,
                                          const IsoArgs& a) {
  iso_row<C, M>(s, d, w0, w1, width, t, a);
}
bool has_avx2_fma() {
  static const bool yes = host_has_avx2() && __builtin_cpu_supports("fma");
  return yes;
}
#endif

template <int C, int M>
RowFn pick_row() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  if (has_avx2_fma()) return &row_avx2<C, M>;
#endif
  return &row_portable<C, M>;
}

}  // namespace
}  // namespace iso_noise_cpu_impl

void iso_noise(View<const std::uint8_t> in, View<std::uint8_t> out, const IsoArgs& a, Scratch& scratch) {
  const int W = in.width, C = in.channels;
  auto* counts = static_cast<unsigned*>(scratch.scratch(iso_noise_scratch_bytes()));
  auto* thresholds = reinterpret_cast<std::uint32_t*>(counts + 65536);
  auto* sigma = reinterpret_cast<double*>(thresholds + kIsoCounts);
  for (int i = 0; i < 65536; ++i) counts[i] = 0;
  for (int y = 0; y < in.height; ++y) {
    const std::uint8_t* s = in.row(y);
    for (int x = 0; x < W; ++x, s += C) {
      const std::uint8_t rg = s[0] < s[1] ? s[1] : s[0], mx = rg < s[2] ? s[2] : rg;
      const std::uint8_t ng = s[0] > s[1] ? s[1] : s[0], mn = ng > s[2] ? s[2] : ng;
      ++counts[mx * 256 + mn];
    }
  }
  iso_thresholds(counts, a.unit, static_cast<double>(W) * in.height, a.lambda_scale, thresholds, sigma);
  int keff = 0;
  while (keff < kIsoCounts && thresholds[keff] != 0xFFFFFFFFu) ++keff;
  const bool short_search = keff <= 16;
  const iso_noise_cpu_impl::RowFn row = C == 4 ? (short_search ? iso_noise_cpu_impl::pick_row<4, 16>() : iso_noise_cpu_impl::pick_row<4, kIsoCounts>())
                           : (short_search ? iso_noise_cpu_impl::pick_row<3, 16>() : iso_noise_cpu_impl::pick_row<3, kIsoCounts>());
  const std::size_t n = static_cast<std::size_t>(W);
  std::vector<std::uint32_t> words(3 * n);
  for (int y = 0; y < in.height; ++y) {
    const std::uint32_t first = static_cast<std::uint32_t>(static_cast<std::size_t>(y) * n);
    philox_blocks(a.stream, first, 1, W, words.data(), words.data() + n, words.data() + 2 * n);
    row(in.row(y), out.row(y), words.data(), words.data() + n, W, thresholds, a);
  }
}

}  // namespace aug::k::cpu
