// planckian_jitter: R' = R * r_w, G' = G, B' = B * b_w on [0, 1], then every channel clamped at 1
// only (float images keep negative values, as Kornia does); integer images through to_unit /
// from_unit. Channel 3 (alpha) is copied.
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

template <class T>
void planckian(View<const T> in, View<T> out, float r_w, float b_w, const Exec& exec);

AUG_HD float planckian_value(float v, float w) {
  const float y = v * w;
  return y < 1.f ? y : 1.f;
}

namespace cpu {  // the vectorised host driver (the CPU backend)
template <class T>
void planckian(View<const T> in, View<T> out, float r_w, float b_w);
}  // namespace cpu

}  // namespace aug::k
