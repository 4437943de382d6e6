// Helpers shared by the colour-table stages' tests (grayscale, equalize, autocontrast, posterize,
// solarize, gamma): typed access to one value of an image and an 8-bit ramp.
#pragma once

#include <cstdint>

#include "lib/core/image.hpp"

namespace aug::testing::color {

// Value (x, y, c) of an image whose samples are T.
template <class T>
T at(const Image& im, int x, int y, int c) {
  return reinterpret_cast<const T*>(im.row(y))[x * im.shape().channels + c];
}
template <class T>
void put(Image& im, int x, int y, int c, T v) {
  reinterpret_cast<T*>(im.row(y))[x * im.shape().channels + c] = v;
}

// Every 8-bit value once: a 256 x 1 single-channel image, value = x.
inline Image ramp_u8() {
  Image im({256, 1, 1, DType::U8});
  for (int v = 0; v < 256; ++v) im.row(0)[v] = static_cast<std::uint8_t>(v);
  return im;
}

}  // namespace aug::testing::color
