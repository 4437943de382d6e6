// grayscale: torchvision's rgb_to_grayscale, keeping the channel count.
//   l = ((float)r * 0.2989f + (float)g * 0.587f) + (float)b * 0.114f   (binary32, in this order)
//   integer images: out = (T)l, truncated toward zero (l >= 0 and l < max + 1);
//   float images:   out = l.
// Every colour channel of an RGB(A) pixel receives l; alpha is copied. Gray images are copied.
// opencv: cv::cvtColor(RGB2GRAY)'s values instead (Albumentations' ToGray):
//   integer images: l = (R * 9798 + G * 19235 + B * 3735 + 16384) >> 15 (OpenCV's 15-bit fixed point);
//   float images:   l = (B * 0.114f + G * 0.587f) + R * 0.299f (binary32, in this order).
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

AUG_HD float grayscale_luma(float r, float g, float b) {
  float l = r * 0.2989f;
  l = l + g * 0.587f;
  l = l + b * 0.114f;
  return l;
}

template <class T>
AUG_HD T grayscale_value(T r, T g, T b) {
  const float l = grayscale_luma(static_cast<float>(r), static_cast<float>(g), static_cast<float>(b));
  if constexpr (std::is_same_v<T, float>) return l;
  else return static_cast<T>(l);  // truncation, as torch's float -> uint8 cast
}

// OpenCV's RGB2GRAY value of one pixel.
template <class T>
AUG_HD T grayscale_cv_value(T r, T g, T b) {
  if constexpr (std::is_same_v<T, float>) {
    float l = b * 0.114f;
    l = l + g * 0.587f;
    l = l + r * 0.299f;
    return l;
  } else {
    const int l = (static_cast<int>(r) * 9798 + static_cast<int>(g) * 19235 + static_cast<int>(b) * 3735 + 16384) >> 15;
    return static_cast<T>(l);
  }
}

// `in` has 3 or 4 channels. The CPU backend runs the host driver below (the same formula) for the
// torchvision weights.
template <class T>
void grayscale(View<const T> in, View<T> out, const Exec& exec, bool opencv = false);

namespace cpu {  // the vectorised host driver (the CPU backend)
template <class T>
void grayscale(View<const T> in, View<T> out);
}  // namespace cpu

}  // namespace aug::k
