// rain: Albumentations 2.x's RandomRain. The drops are drawn on the host into a zero layer
// (cv::polylines, 4-connected) and box-blurred there once; the kernels add the layer to each value
// with saturation and scale the sum by the brightness coefficient as cv::multiply rounds it:
// out = sat(rne((double)min(v + layer, max) * coefficient)). 8-bit samples look the product up in a
// host table of 256 values; 16-bit samples add layer * 257 and compute the product; float samples go
// through 8 bits (Albumentations' uint8_io).
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"
#include "kernels/core/uint8_io.hpp"  // to_u8_io, from_u8_io

namespace aug::k {

struct RainArgs {
  AUG_FIELDS(RainArgs, layer, scaled, coefficient)
  const std::uint8_t* layer = nullptr;   // width * height * channels values, row by row, tightly packed
  const std::uint8_t* scaled = nullptr;  // 256 values: sat(rne(q * coefficient)) of every 8-bit q
  double coefficient = 1;
};

// One value: the layer added with saturation, then scaled.
template <class T>
AUG_HD T rain_value(T v, int layer, const RainArgs& a) {
  if constexpr (std::is_same_v<T, std::uint16_t>) {
    int s = static_cast<int>(v) + layer * 257;
    s = s > 65535 ? 65535 : s;
    const std::int64_t p = rne(static_cast<double>(s) * a.coefficient);
    return static_cast<T>(p < 0 ? 0 : (p > 65535 ? 65535 : p));
  } else {
    int s = to_u8_io(v) + layer;
    s = s > 255 ? 255 : s;
    return from_u8_io<T>(a.scaled[s]);
  }
}

template <class T>
void rain(View<const T> in, View<T> out, const RainArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend): the same values, a row at a time
template <class T>
void rain(View<const T> in, View<T> out, const RainArgs& args);
}  // namespace cpu

}  // namespace aug::k
