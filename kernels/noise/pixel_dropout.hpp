// pixel_dropout: each pixel (or each value, per_channel) is dropped with probability p and set to
// a drop value (Albumentations' PixelDropout); the others, and alpha everywhere, are copied.
//   word   decision j (j = i cc + c with per_channel, j = i without: the whole pixel, for pixel
//          i = y W + x and colour channel c) takes word j mod 3 of Philox block (j / 3, sub-stream 1)
//   drop   (uint64) word < threshold, threshold = RNE(p 2^32) (0 keeps all, 2^32 drops all)
//   value  value[c], already in sample units (the host rounds 8/16-bit values)
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"
#include "kernels/core/philox.hpp"

namespace aug::k {

struct DropoutArgs {
  AUG_FIELDS(DropoutArgs, stream, threshold, value, per_channel, color_channels)
  KeyedStream stream;
  std::uint64_t threshold = 0;
  float value[4] = {0, 0, 0, 0};
  bool per_channel = false;
  int color_channels = 3;
};

template <class T>
void pixel_dropout(View<const T> in, View<T> out, const DropoutArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend)
template <class T>
void pixel_dropout(View<const T> in, View<T> out, const DropoutArgs& args);
}  // namespace cpu

AUG_HD bool dropped(std::uint32_t word, std::uint64_t threshold) { return static_cast<std::uint64_t>(word) < threshold; }

// The word of decision j.
AUG_HD std::uint32_t decision_word(const KeyedStream& stream, std::size_t j) {
  const Philox4x32 r = stream.block(static_cast<std::uint32_t>(j / 3), 1);
  const std::size_t w = j % 3;
  return w == 0 ? r.v[0] : (w == 1 ? r.v[1] : r.v[2]);
}

}  // namespace aug::k
