// pixel_dropout's host driver: the kernels' arithmetic (pixel_dropout.hpp) row by row: the Philox
// blocks of the row's decisions first (computed across blocks, so that they vectorise), their words
// in decision order, a 0/1 mask per decision, then each value a select.
#include <cstdint>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/pixel_dropout.hpp"

namespace aug::k::cpu {

namespace pixel_dropout_cpu_impl {
namespace {

// mask[j] = words[j] < t (or every one when all).
AUG_CLONES void decide(const std::uint32_t* __restrict words, std::uint8_t* __restrict mask, int n, std::uint32_t t,
                       bool all) {
  for (int j = 0; j < n; ++j) mask[j] = static_cast<std::uint8_t>(all | (words[j] < t));
}

// d[x C + c] = mask of (x, c) ? value[c] : s[x C + c]; PerChannel: mask[x cc + c], else mask[x].
template <class T, int C, bool PerChannel>
AUG_CLONES void select_row(const T* __restrict s, T* __restrict d, const std::uint8_t* __restrict mask, int width,
                           int cc, const T* __restrict value) {
  for (int x = 0; x < width; ++x)
    for (int c = 0; c < C; ++c) {
      const bool drop = c < cc && mask[PerChannel ? x * cc + c : x];
      d[x * C + c] = drop ? value[c] : s[x * C + c];
    }
}

// Three decisions per pixel, the words of block x in order: mask[3 x + c] = word c < t.
AUG_CLONES void decide3(const std::uint32_t* __restrict w0, const std::uint32_t* __restrict w1,
                        const std::uint32_t* __restrict w2, std::uint8_t* __restrict mask, int width, std::uint32_t t,
                        bool all) {
  for (int x = 0; x < width; ++x) {
    mask[3 * x] = static_cast<std::uint8_t>(all | (w0[x] < t));
    mask[3 * x + 1] = static_cast<std::uint8_t>(all | (w1[x] < t));
    mask[3 * x + 2] = static_cast<std::uint8_t>(all | (w2[x] < t));
  }
}

// d[i] = mask[i] ? fill[i] : s[i] over a row of n values.
template <class T>
AUG_CLONES void select_flat(const T* __restrict s, T* __restrict d, const std::uint8_t* __restrict mask,
                            const T* __restrict fill, int n) {
  for (int i = 0; i < n; ++i) d[i] = mask[i] ? fill[i] : s[i];
}

template <class T, int C>
void select_of(bool per_channel, const T* s, T* d, const std::uint8_t* mask, int width, int cc, const T* value) {
  if (per_channel) select_row<T, C, true>(s, d, mask, width, cc, value);
  else select_row<T, C, false>(s, d, mask, width, cc, value);
}

}  // namespace
}  // namespace pixel_dropout_cpu_impl

template <class T>
void pixel_dropout(View<const T> in, View<T> out, const DropoutArgs& a) {
  const int W = in.width, C = in.channels, cc = a.color_channels;
  const std::size_t per_row = static_cast<std::size_t>(W) * (a.per_channel ? cc : 1);
  const std::size_t blocks = per_row / 3 + 2;
  std::vector<std::uint32_t> bw(3 * blocks), words(3 * blocks);
  std::vector<std::uint8_t> mask(per_row);
  const bool all = a.threshold > 0xFFFFFFFFull;
  const std::uint32_t t = all ? 0u : static_cast<std::uint32_t>(a.threshold);
  T value[4];
  for (int c = 0; c < 4; ++c) value[c] = static_cast<T>(a.value[c < 3 ? c : 0]);
  if (a.per_channel && cc == 3) {
    // Decision 3 i + c is word c of block i: the row's blocks are its pixels.
    std::vector<T> fill(static_cast<std::size_t>(W) * 3);
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 3; ++c) fill[3 * x + c] = value[c];
    for (int y = 0; y < in.height; ++y) {
      philox_blocks(a.stream, static_cast<std::uint32_t>(static_cast<std::size_t>(y) * W), 1, W, bw.data(),
                    bw.data() + blocks, bw.data() + 2 * blocks);
      pixel_dropout_cpu_impl::decide3(bw.data(), bw.data() + blocks, bw.data() + 2 * blocks, mask.data(), W, t, all);
      if (C == 3) pixel_dropout_cpu_impl::select_flat(in.row(y), out.row(y), mask.data(), fill.data(), 3 * W);
      else pixel_dropout_cpu_impl::select_row<T, 4, true>(in.row(y), out.row(y), mask.data(), W, cc, value);
    }
    return;
  }
  for (int y = 0; y < in.height; ++y) {
    const std::size_t j0 = static_cast<std::size_t>(y) * per_row, b0 = j0 / 3, b1 = (j0 + per_row - 1) / 3 + 1;
    const int nb = static_cast<int>(b1 - b0);
    philox_blocks(a.stream, static_cast<std::uint32_t>(b0), 1, nb, bw.data(), bw.data() + blocks,
                  bw.data() + 2 * blocks);
    for (int k = 0; k < nb; ++k) {
      words[3 * k] = bw[k];
      words[3 * k + 1] = bw[blocks + k];
      words[3 * k + 2] = bw[2 * blocks + k];
    }
    pixel_dropout_cpu_impl::decide(words.data() + (j0 - 3 * b0), mask.data(), static_cast<int>(per_row), t, all);
    const T* s = in.row(y);
    T* d = out.row(y);
    switch (C) {
      case 1: pixel_dropout_cpu_impl::select_of<T, 1>(a.per_channel, s, d, mask.data(), W, cc, value); break;
      case 3: pixel_dropout_cpu_impl::select_of<T, 3>(a.per_channel, s, d, mask.data(), W, cc, value); break;
      default: pixel_dropout_cpu_impl::select_of<T, 4>(a.per_channel, s, d, mask.data(), W, cc, value); break;
    }
  }
}

template void pixel_dropout<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const DropoutArgs&);
template void pixel_dropout<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const DropoutArgs&);
template void pixel_dropout<float>(View<const float>, View<float>, const DropoutArgs&);

}  // namespace aug::k::cpu
