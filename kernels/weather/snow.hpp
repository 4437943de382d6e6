// snow: Albumentations' RandomSnow, its bleach method, on 8-bit RGB values (its uint8_io for the
// other types). Each pixel goes to HLS as OpenCV converts 8-bit images (kernels/core/hls8.hpp, the
// vector or the scalar path by its column, as OpenCV's row loop takes them), its lightness through
// a host table of 256 values (L < threshold: trunc(clip(L * coefficient)) in binary32), and back.
// Its texture method (Albumentations 2.x): each pixel to OpenCV's 8-bit HSV (kernels/core/hsv8.hpp),
// V scaled and clipped, the host's snow layer added to all three components, blended with the blue
// tint as cv::addWeighted computes binary32 images (in double, rounded once to binary32), cast to
// 8 bits as numpy casts (truncated, wrapped modulo 256), back to RGB; sparkle pixels white.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/hls8.hpp"
#include "kernels/core/hsv8.hpp"
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

struct SnowTextureArgs {
  AUG_FIELDS(SnowTextureArgs, sdiv, hdiv, layer, sparkle, brighten, tint0, tint1, tint2, block_end)
  const std::int32_t* sdiv = nullptr;    // 256 entries: OpenCV's RGB2HSV division tables
  const std::int32_t* hdiv = nullptr;    // 256 entries
  const float* layer = nullptr;          // width * height values: what is added to H, S and V
  const std::uint8_t* sparkle = nullptr;  // width * height values: 1 where the pixel turns white
  float brighten = 1;                    // (float)(1 + brightness_coeff * snow_point)
  double tint0 = 0, tint1 = 0, tint2 = 0;  // (double)(float)tint * (0.15 * snow_point), per component
  int block_end = 0;                     // columns before it take OpenCV's block HSV2RGB arithmetic
};

// numpy's float32 to uint8 cast of what cv::addWeighted(x, 0.85, tint, beta, 0) gives (OpenCV 4.6
// sums binary32 images in double: x * 0.85 + tint * beta + 0, rounded to binary32).
AUG_HD int snow_texture_byte(float x, double tint) {
  const auto o = static_cast<float>(static_cast<double>(x) * 0.85 + tint);
  return static_cast<int>(o) & 255;
}

// One RGB pixel (3 values) of the texture method; `i` its index row by row.
template <class T>
AUG_HD void snow_texture_pixel(const T* s, T* d, std::size_t i, bool block, const SnowTextureArgs& a) {
  if (a.sparkle[i]) {
    d[0] = d[1] = d[2] = from_u8_io<T>(255);
    return;
  }
  int h, sat, v;
  hsv8_from_rgb(to_u8_io(s[0]), to_u8_io(s[1]), to_u8_io(s[2]), a.sdiv, a.hdiv, h, sat, v);
  float vf = static_cast<float>(v) * a.brighten;
  vf = vf < 0.f ? 0.f : (vf > 255.f ? 255.f : vf);
  const float add = a.layer[i];
  std::uint8_t rgb[3];
  hsv_to_rgb(snow_texture_byte(static_cast<float>(h) + add, a.tint0),
             snow_texture_byte(static_cast<float>(sat) + add, a.tint1), snow_texture_byte(vf + add, a.tint2), block,
             rgb);
  d[0] = from_u8_io<T>(rgb[0]);
  d[1] = from_u8_io<T>(rgb[1]);
  d[2] = from_u8_io<T>(rgb[2]);
}

template <class T>
void snow_texture(View<const T> in, View<T> out, const SnowTextureArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend): the same pixels, a row at a time
template <class T>
void snow(View<const T> in, View<T> out, const SnowArgs& args);
template <class T>
void snow_texture(View<const T> in, View<T> out, const SnowTextureArgs& args);
}  // namespace cpu

}  // namespace aug::k
