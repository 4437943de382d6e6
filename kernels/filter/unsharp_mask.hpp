// unsharp_mask: Albumentations' UnsharpMask on [0, 1] values, every channel alike, binary32, each
// operation rounded in the order written (no FMA):
//   x = to_unit(v)                          (v / max; float images as they are)
//   b = Gaussian blur of x                  (the separable engine's float sums: horizontal, then
//                                            vertical, acc = acc + w * v from +0, reflect101)
//   m = |x - b| * 255 > threshold ? 1 : 0
//   s = Gaussian blur of m                  (the same weights)
//   r = x - b; sharp = clamp01(x + alpha * r)
//   out = from_unit(clamp01(sharp * s + x * (1 - s)))
// The kernels run it as passes over float planes (scratch memory) with the separable engine for
// the blurs; the CPU backend's host driver streams rows through rings of k rows instead, with the
// same sums in the same order.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"
#include "kernels/engines/separable.hpp"

namespace aug::k {

struct UnsharpArgs {
  AUG_FIELDS(UnsharpArgs, h, v, weights, taps, alpha, threshold)
  AxisTaps h, v;          // the blur's separable tables (float weights), reflect101
  const float* weights;   // the k weights themselves (the host driver)
  int taps;
  float alpha, threshold;
};

template <class T>
void unsharp_mask(View<const T> in, View<T> out, const UnsharpArgs& args, Scratch& scratch, const Exec& exec);

namespace cpu {
template <class T>
void unsharp_mask(View<const T> in, View<T> out, const UnsharpArgs& args);
}  // namespace cpu

// The residual's mask and the final value (shared by the kernels and the host driver).
AUG_HD float unsharp_mask_value(float x, float b, float threshold) {
  const float r = x - b;
  return (r < 0.0f ? -r : r) * 255.0f > threshold ? 1.0f : 0.0f;
}

AUG_HD float unsharp_blend(float x, float b, float s, float alpha) {
  const float r = x - b;
  const float sharp = clamp01(x + alpha * r);
  return clamp01(sharp * s + x * (1.0f - s));
}

}  // namespace aug::k
