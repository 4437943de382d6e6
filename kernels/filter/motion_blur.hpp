// motion_blur: a 2-D correlation with a sparse kernel of `count` taps (dx, dy, weight), the image
// extended by reflection without repeating the edge (...cb|abc|ba..., OpenCV's BORDER_REFLECT_101),
// every channel alike:
//   acc = 0; for each tap in order: acc = fma(v(x + dx, y + dy), weight, acc)   (binary32, one rounding)
//   8/16-bit: sat(rne(acc)); float: acc.
// The taps are the kernel's non-zero entries in row-major order, which is the order and the fused
// arithmetic of cv::filter2D's direct path on CPUs with AVX2 (lib/stages/filter/motion_blur.cpp).
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct MotionArgs {
  AUG_FIELDS(MotionArgs, offsets, weights, count)
  const std::int32_t* offsets;  // dx, dy of each tap, relative to the output pixel
  const float* weights;
  int count;
};

template <class T>
void motion_blur(View<const T> in, View<T> out, const MotionArgs& args, const Exec& exec);

}  // namespace aug::k
