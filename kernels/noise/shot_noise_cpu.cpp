// shot_noise's host driver: the kernels' arithmetic (shot_noise.hpp) row by row, the row's Philox
// blocks first (computed across pixels, so that they vectorise), then each value's count. 8-bit
// images read it from a guide: for each value v and each top byte b of the word, g = the number of
// thresholds at or below b 2^24, which every word with that top byte passes. When no threshold lies
// inside the byte's range the count is g, and the guide holds its level; otherwise (flag 0x100,
// about K in 256 words) the kernels' search goes on from g. The count is the kernels' count.
#include <cstdint>
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

}  // namespace
}  // namespace shot_noise_cpu_impl

template <class T>
void shot_noise(View<const T> in, View<T> out, const ShotArgs& a) {
  const int W = in.width, C = in.channels, cc = a.color_channels, K = a.K;
  const std::size_t n = static_cast<std::size_t>(W);
  std::vector<std::uint32_t> words(3 * n);
  std::vector<std::uint16_t> guide;
  constexpr bool guided = std::is_same_v<T, std::uint8_t>;
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
