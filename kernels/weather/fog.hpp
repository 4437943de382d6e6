// fog: Albumentations 2.x's RandomFog on 8-bit values (its uint8_io). The particles are drawn and
// rasterised on the host (cv::circle, filled); the kernels see how many circles cover each pixel and
// a host table of what n blends with white make of each 8-bit value, table[n * 256 + q]. Other
// sample types are quantised to 8 bits first and given back after the final Gaussian blur, which
// the separable engine runs on the 8-bit image.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// Albumentations 2.x's uint8_io. Float: q = clamp(rint(v * 255), 0, 255) (NaN 0), back q / 255.f.
// 16-bit: q = (v + 128) / 257, the nearest 8-bit value, back q * 257.
template <class T>
AUG_HD int fog_to_u8(T v) {
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
AUG_HD T fog_from_u8(int q) {
  if constexpr (std::is_same_v<T, std::uint8_t>) return static_cast<T>(q);
  else if constexpr (std::is_same_v<T, std::uint16_t>) return static_cast<T>(q * 257);
  else return static_cast<float>(q) / 255.f;
}

struct FogArgs {
  AUG_FIELDS(FogArgs, count, table)
  const std::uint16_t* count = nullptr;  // width * height values, row by row: circles over each pixel
  const std::uint8_t* table = nullptr;   // (most circles + 1) * 256 values
};

// out (8-bit, as many channels) = table[count * 256 + q] of every value's 8-bit q.
template <class T>
void fog_particles(View<const T> in, View<std::uint8_t> out, const FogArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend): the same table look-ups, a row at a time
template <class T>
void fog_particles(View<const T> in, View<std::uint8_t> out, const FogArgs& args);
}  // namespace cpu

// The 8-bit result given back in the image's type.
template <class T>
void fog_back(View<const std::uint8_t> in, View<T> out, const Exec& exec);

}  // namespace aug::k
