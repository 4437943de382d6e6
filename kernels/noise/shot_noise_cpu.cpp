// shot_noise's host driver: the kernels' arithmetic (shot_noise.hpp) row by row, the row's Philox
// blocks first (computed across pixels, so that they vectorise), then each value's search. The
// search starts from a guide (8-bit images): for each value and each top byte b of the word, the
// number of thresholds at or below b 2^24, which every word with that top byte passes; the rest of
// the search is the kernels' own, so the count is the same.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/shot_noise.hpp"

namespace aug::k::cpu {

template <class T>
void shot_noise(View<const T> in, View<T> out, const ShotArgs& a) {
  const int W = in.width, C = in.channels, cc = a.color_channels, K = a.K;
  const std::size_t n = static_cast<std::size_t>(W);
  std::vector<std::uint32_t> words(3 * n);
  std::vector<std::uint8_t> guide;
  const bool guided = std::is_same_v<T, std::uint8_t> && K < 256;
  if (guided) {
    guide.resize(256 * 256);
    for (int v = 0; v < 256; ++v) {
      const std::uint32_t* t = a.thresholds + static_cast<std::size_t>(v) * K;
      int k = 0;
      for (int b = 0; b < 256; ++b) {
        const std::uint32_t start = static_cast<std::uint32_t>(b) << 24;
        while (k < K && t[k] <= start) ++k;
        guide[v * 256 + b] = static_cast<std::uint8_t>(k);
      }
    }
  }
  for (int y = 0; y < in.height; ++y) {
    const std::uint32_t first = static_cast<std::uint32_t>(static_cast<std::size_t>(y) * n);
    philox_blocks(a.stream, first, 1, W, words.data(), words.data() + n, words.data() + 2 * n);
    const T* s = in.row(y);
    T* d = out.row(y);
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) {
        const T v = s[x * C + c];
        if (c >= cc) {
          d[x * C + c] = v;
          continue;
        }
        const std::uint32_t w = words[c * n + x];
        const std::uint32_t* t = a.thresholds + static_cast<std::size_t>(v) * K;
        int k = guided ? guide[static_cast<std::size_t>(v) * 256 + (w >> 24)] : 0;
        while (k < K && w >= t[k]) ++k;
        d[x * C + c] = static_cast<T>(a.levels[k]);
      }
  }
}

template void shot_noise<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const ShotArgs&);
template void shot_noise<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const ShotArgs&);

}  // namespace aug::k::cpu
