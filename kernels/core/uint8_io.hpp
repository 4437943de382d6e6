// Albumentations 2.x's uint8_io: a transform defined on 8-bit images sees other images quantised to
// 8 bits and gives its result back in their type. Float: q = clamp(rint(v * 255), 0, 255) (NaN 0),
// back q / 255.f. 16-bit (augment's choice, Albumentations has none): q = (v + 128) / 257, the
// nearest 8-bit value, back q * 257.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/core/common.hpp"

namespace aug::k {

template <class T>
AUG_HD int to_u8_io(T v) {
  if constexpr (std::is_same_v<T, std::uint8_t>) return v;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return (static_cast<int>(v) + 128) / 257;
  else {
    float s = rne_float(v * 255.f);
    s = s == s ? s : 0.f;
    s = s < 0.f ? 0.f : s;
    s = s > 255.f ? 255.f : s;
    return static_cast<int>(s);
  }
}

template <class T>
AUG_HD T from_u8_io(int q) {
  if constexpr (std::is_same_v<T, std::uint8_t>) return static_cast<T>(q);
  else if constexpr (std::is_same_v<T, std::uint16_t>) return static_cast<T>(q * 257);
  else return static_cast<float>(q) / 255.f;
}

}  // namespace aug::k
