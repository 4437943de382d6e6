// brightness_contrast: Albumentations 2.x's RandomBrightnessContrast, y = x * alpha + beta on the
// colour channels (alpha copied), with beta = brightness * max, or brightness * the mean of the
// colour channels (brightness_by_max false), and Albumentations' optional safe range.
//   8/16-bit: a table of every value, trunc(clamp(float(v) * (float)alpha + beta, 0, max)), the sum
//     in binary32 with beta rounded to binary32 (by max), or in double with beta unrounded (by the
//     mean: NumPy 2 promotes the sum to float64 for its float64 beta); applied by the pointwise engine.
//   float: clamp01((double)v * (float)alpha + (float)beta) in double, rounded to binary32 (OpenCV's
//     CV_64F path); NaN passes through.
// The mean, when needed, is a deterministic reduction: per-row sums (exact integers, doubles for
// float images, each row left to right) then one total in row order, on every backend.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct BrightnessContrastArgs {
  AUG_FIELDS(BrightnessContrastArgs, alpha, brightness, by_max, safe_range, color_channels)
  double alpha;       // 1 + the drawn contrast
  double brightness;  // the drawn brightness
  int by_max;         // beta = brightness * max (else * mean)
  int safe_range;     // Albumentations' ensure_safe_range
  int color_channels;
};

// alpha and beta as the arithmetic uses them, once beta is known.
struct BrightnessContrastCoefficients {
  AUG_FIELDS(BrightnessContrastCoefficients, alpha, beta, beta_double)
  float alpha;
  double beta;
  int beta_double;  // the sum in double with beta as is (by the mean); else binary32 with (float)beta
};

AUG_HD BrightnessContrastCoefficients brightness_contrast_coefficients(const BrightnessContrastArgs& a,
                                                                              double max, double mean) {
  double alpha = a.alpha;
  double beta = a.by_max ? a.brightness * max : a.brightness * mean;
  if (a.safe_range) {
    if (alpha > 0) {
      beta = beta < 0 ? 0 : (beta > max ? max : beta);
      const double most = (max - beta) / max;
      alpha = alpha < most ? alpha : most;
    } else {
      beta = beta < max ? beta : max;
      const double least = -beta / max;
      alpha = alpha > least ? alpha : least;
    }
  }
  return {static_cast<float>(alpha), a.by_max ? static_cast<double>(static_cast<float>(beta)) : beta, !a.by_max};
}

// An 8- or 16-bit value's result.
template <class T>
AUG_HD T brightness_contrast_value(T v, const BrightnessContrastCoefficients& k) {
  constexpr double max = static_cast<double>(SampleTraits<T>::max);
  const float scaled = static_cast<float>(v) * k.alpha;
  double t = k.beta_double ? static_cast<double>(scaled) + k.beta
                           : static_cast<double>(scaled + static_cast<float>(k.beta));
  t = t < 0 ? 0 : (t > max ? max : t);
  return static_cast<T>(t);  // truncation toward zero, as numpy's astype
}

// A float value's result.
AUG_HD float brightness_contrast_float(float v, const BrightnessContrastCoefficients& k) {
  double t = static_cast<double>(v) * static_cast<double>(k.alpha) +
             static_cast<double>(static_cast<float>(k.beta));
  if (t < 0) t = 0;
  if (t > 1) t = 1;
  return static_cast<float>(t);
}

template <class T>
void brightness_contrast(View<const T> in, View<T> out, const BrightnessContrastArgs& args, Scratch& scratch,
                         const Exec& exec);

namespace cpu {  // the CPU backend's sums for the mean of 8/16-bit images (the same exact integers)
// sums[y] = the sum of row y's first `color_channels` samples of each pixel.
template <class T>
void brightness_contrast_row_sums(View<const T> in, int color_channels, std::uint64_t* sums);
}  // namespace cpu

}  // namespace aug::k
