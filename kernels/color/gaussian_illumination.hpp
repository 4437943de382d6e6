// gaussian_illumination: out = clamp(in + s * gain * N, 0, 1) on [0, 1], where
// N = (gy[y] * gx[x] - gmin) / (gmax - gmin + 1e-6) and gx, gy are the image's normalised
// Gaussian profiles (host tables). binary32 throughout, in this order, on every backend.
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct IlluminationArgs {
  AUG_FIELDS(IlluminationArgs, gx, gy, gmin, denom, signed_gain, color_channels)
  const float* gx = nullptr;  // width values
  const float* gy = nullptr;  // height values
  float gmin = 0, denom = 1;  // min of the pattern; max - min + 1e-6
  float signed_gain = 0;      // sign * gain
  int color_channels = 3;     // later channels (alpha) are copied
};

template <class T>
void illumination(View<const T> in, View<T> out, const IlluminationArgs& args, const Exec& exec);

namespace cpu {  // the vectorised host driver (the CPU backend): the same binary32 operations, a row at a time
template <class T>
void illumination(View<const T> in, View<T> out, const IlluminationArgs& args);
}  // namespace cpu

}  // namespace aug::k
