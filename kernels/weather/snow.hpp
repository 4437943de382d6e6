// snow: Albumentations' RandomSnow, its bleach method, on 8-bit RGB values (its uint8_io for the
// other types). Each pixel goes to HLS as OpenCV converts 8-bit images (kernels/core/hls8.hpp, the
// vector or the scalar path by its column, as OpenCV's row loop takes them), its lightness through
// a host table of 256 values (L < threshold: trunc(clip(L * coefficient)) in binary32), and back.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/hls8.hpp"
#include "kernels/core/launch.hpp"
#include "kernels/core/uint8_io.hpp"  // to_u8_io, from_u8_io

namespace aug::k {

struct SnowArgs {
  AUG_FIELDS(SnowArgs, lightness, vector_end)
  const std::uint8_t* lightness = nullptr;  // 256 values: the new L of every 8-bit L
  int vector_end = 0;                       // columns before it take OpenCV's vector path
};

// One RGB pixel (3 values) of the 8-bit image.
template <class T>
AUG_HD void snow_pixel(const T* s, T* d, bool vector_path, const std::uint8_t* lightness) {
  int h, l, sat, r, g, b;
  hls8_from_rgb(to_u8_io(s[0]), to_u8_io(s[1]), to_u8_io(s[2]), vector_path, h, l, sat);
  rgb_from_hls8(h, lightness[l], sat, r, g, b);
  d[0] = from_u8_io<T>(r);
  d[1] = from_u8_io<T>(g);
  d[2] = from_u8_io<T>(b);
}

template <class T>
void snow(View<const T> in, View<T> out, const SnowArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend): the same pixels, a row at a time
template <class T>
void snow(View<const T> in, View<T> out, const SnowArgs& args);
}  // namespace cpu

}  // namespace aug::k
