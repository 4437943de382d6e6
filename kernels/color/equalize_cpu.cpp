// equalize's host histogram of 8-bit images: each channel counted into four partial histograms
// (consecutive values of a row go to different ones, so that a run of equal values does not wait on
// one counter), then summed. The same integers as the kernels' counts.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/color/equalize.hpp"

namespace aug::k::cpu {

namespace equalize_cpu_impl {
namespace {

constexpr int kParts = 4;

// part[(k * cc + c) * 256 + v]: partial histogram k of channel c; C channels per pixel.
template <int C>
void count_rows(View<const std::uint8_t> in, int cc, unsigned* part) {
  for (int y = 0; y < in.height; ++y) {
    const std::uint8_t* s = in.row(y);
    int x = 0;
    for (; x + kParts <= in.width; x += kParts)
      for (int k = 0; k < kParts; ++k)
        for (int c = 0; c < cc; ++c) ++part[(k * cc + c) * 256 + s[(x + k) * C + c]];
    for (; x < in.width; ++x)
      for (int c = 0; c < cc; ++c) ++part[c * 256 + s[x * C + c]];
  }
}

}  // namespace
}  // namespace equalize_cpu_impl

void equalize_counts(View<const std::uint8_t> in, unsigned* counts, int color_channels) {
  using namespace equalize_cpu_impl;
  const int cc = color_channels;
  std::vector<unsigned> part(static_cast<std::size_t>(kParts) * cc * 256, 0u);
  switch (in.channels) {
    case 1: count_rows<1>(in, cc, part.data()); break;
    case 2: count_rows<2>(in, cc, part.data()); break;
    case 3: count_rows<3>(in, cc, part.data()); break;
    default: count_rows<4>(in, cc, part.data()); break;
  }
  for (int i = 0; i < cc * 256; ++i) {
    unsigned sum = 0;
    for (int k = 0; k < kParts; ++k) sum += part[static_cast<std::size_t>(k) * cc * 256 + i];
    counts[i] = sum;
  }
}

}  // namespace aug::k::cpu
