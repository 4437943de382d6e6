// filter2d: a 2-D correlation with a sparse kernel of `count` taps (dx, dy, weight), the image
// extended by reflection without repeating the edge (...cb|abc|ba..., OpenCV's BORDER_REFLECT_101),
// every channel alike:
//   acc = 0; for each tap in order: acc = fma(v(x + dx, y + dy), weight, acc)   (binary32, one rounding)
//   8/16-bit: sat(rne(acc)); float: acc, or clamp01(acc) when `clip`.
// The taps are a kernel's non-zero entries in row-major order, which is the order and the fused
// arithmetic of cv::filter2D's direct path on CPUs with AVX2 (lib/stages/engines/filter2d.hpp).
// motion_blur, sharpen, emboss and defocus are kernels for it.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct Filter2DArgs {
  AUG_FIELDS(Filter2DArgs, offsets, weights, count, clip)
  const std::int32_t* offsets;  // dx, dy of each tap, relative to the output pixel
  const float* weights;
  int count;
  int clip;  // float images: clamp the result to [0, 1]
};

template <class T>
void filter2d(View<const T> in, View<T> out, const Filter2DArgs& args, const Exec& exec);

// The host driver (the CPU backend, where it does not call cv::filter2D): the image once as a float
// plane padded by reflection, then per output row each tap's fused multiply-add over the whole row,
// taps in order (eight lanes at a time with AVX2 and FMA3 where the CPU has them).
namespace cpu {
template <class T>
void filter2d(View<const T> in, View<T> out, const Filter2DArgs& args);
}  // namespace cpu

}  // namespace aug::k
