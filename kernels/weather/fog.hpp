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
// The final blur on 8-bit values: out = (sum_j w[j] sum_i w[i] in(x + i - r, y + j - r) + 2^15) >> 16
// with REFLECT_101 borders, r = ksize / 2 (OpenCV's fixed-point GaussianBlur: 8-bit weights, exact
// integer sums). False where it does not apply (no AVX2, an even size, weights whose neighbouring
// pairs exceed 128, weights not summing to 256, an image not larger than the radius): the caller
// blurs another way.
// The source rows come from `row`, which writes row y (0 <= y < height, width * channels values) to
// `to`; each is asked for as often as the blur reads it (once, the reflected ones twice).
struct FogRowSource {
  void (*row)(const void* context, int y, std::uint8_t* to) = nullptr;
  const void* context = nullptr;
};
// vector_bits: the widest vectors to use (512: AVX-512 where the machine has BW and VNNI; 256: AVX2).
bool fog_blur(const FogRowSource& in, View<std::uint8_t> out, const std::int32_t* weights, int ksize,
              int vector_bits = 512);
// d[i] = t[s[i]] for i < n (t: 256 values), vectorised where the machine has AVX-512 VBMI.
void fog_lookup(const std::uint8_t* s, std::uint8_t* d, std::size_t n, const std::uint8_t* t);
}  // namespace cpu

// The 8-bit result given back in the image's type.
template <class T>
void fog_back(View<const std::uint8_t> in, View<T> out, const Exec& exec);

}  // namespace aug::k
