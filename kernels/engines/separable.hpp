// Separable resampling: a horizontal pass then a vertical pass, each a weighted sum over a
// per-output-index table of (source index, weight) built on the host. It is the arithmetic of
// resize (every interpolation), Gaussian blur and random_resized_crop.
//
// Integer images (weights in fixed point with F fractional bits):
//   H(x, r) = sum_k wx[x][k] * in(ix[x][k], r)                      exact, int32
//   out(x, y) = sat( (sum_k wy[y][k] * H(x, iy[y][k]) + 2^(2F-1)) >> 2F )   int64, arithmetic shift
// With F = 8 and OpenCV's tables this is exactly cv::resize INTER_LINEAR_EXACT and the 8-bit
// cv::GaussianBlur (docs/arithmetic.md#separable-engine).
// Float images: the same sums in binary32, taps in table order, no FMA contraction, no clamping.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct AxisTaps {
  AUG_FIELDS(AxisTaps, taps, index, iweight, fweight)
  int taps = 0;
  const std::int32_t* index = nullptr;   // [length * taps]
  const std::int32_t* iweight = nullptr; // integer images
  const float* fweight = nullptr;        // float images
};

// Rows [row0, row0 + rows) of the source are all the vertical taps read; the horizontal pass
// only computes those. The CPU backend runs the vectorised driver below instead.
template <class T>
void separable(View<const T> in, View<T> out, AxisTaps h, AxisTaps v, int frac_bits, int row0, int rows,
               Scratch& scratch, const Exec& exec);

std::size_t separable_scratch_bytes(int out_width, int rows, int channels);

// The vectorised host driver (the CPU backend). Integer images run the vertical pass first: both
// passes are exact integer sums before the one final rounding, so the order does not change a bit
// and the vertical pass reads whole contiguous rows. Float images keep the kernels' order
// (horizontal, then vertical; taps in table order), which float sums depend on.
namespace cpu {
template <class T>
void separable(View<const T> in, View<T> out, AxisTaps h, AxisTaps v, int frac_bits);
}  // namespace cpu

}  // namespace aug::k
