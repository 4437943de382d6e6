// fog: Albumentations 2.x's RandomFog on 8-bit values (its uint8_io). The particles are drawn and
// rasterised on the host (cv::circle, filled); the kernels see how many circles cover each pixel and
// a host table of what n blends with white make of each 8-bit value, table[n * 256 + q]. Other
// sample types are quantised to 8 bits first and given back after the final Gaussian blur, which
// the separable engine runs on the 8-bit image.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/core/uint8_io.hpp"  // to_u8_io, from_u8_io
#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

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
