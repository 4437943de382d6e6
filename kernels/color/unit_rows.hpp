// Row loops the host drivers of gaussian_illumination and planckian_jitter share (stages on [0, 1]).
#pragma once

#include "kernels/core/host_simd.hpp"
#include "kernels/color/gaussian_illumination.hpp"
#include "kernels/color/planckian_jitter.hpp"

namespace aug::k::cpu {
namespace {

// Per value of a row: the 8-bit case cloned for AVX2, the others generic. `add` and `mul` hold one
// value per sample of the row.
// The 8-bit rows spell from_unit(clamp01(...)) with min/max and a 32-bit conversion, which the
// compiler vectorises best; the values are the same (the clamped result is in [0, 255]).
[[maybe_unused]] AUG_CLONES void add_clamp_row(std::uint8_t* d, const std::uint8_t* s, const float* add, int n) {
  for (int i = 0; i < n; ++i) {
    const float v = std::min(std::max(to_unit(s[i]) + add[i], 0.f), 1.f);
    d[i] = static_cast<std::uint8_t>(static_cast<int>(rne_float(v * 255.f)));
  }
}
template <class T>
void add_clamp_row(T* d, const T* s, const float* add, int n) {
  for (int i = 0; i < n; ++i) d[i] = from_unit<T>(clamp01(to_unit(s[i]) + add[i]));
}
[[maybe_unused]] AUG_CLONES void mul_min_row(std::uint8_t* d, const std::uint8_t* s, const float* mul, int n) {
  for (int i = 0; i < n; ++i) {
    const float v = planckian_value(to_unit(s[i]), mul[i]);  // >= 0 for 8-bit input
    d[i] = static_cast<std::uint8_t>(static_cast<int>(rne_float(v * 255.f)));
  }
}
template <class T>
void mul_min_row(T* d, const T* s, const float* mul, int n) {
  for (int i = 0; i < n; ++i) d[i] = from_unit<T>(planckian_value(to_unit(s[i]), mul[i]));
}

// Restores channel 3 (alpha), which the colour stages leave alone.
template <class T>
void keep_alpha(T* d, const T* s, int width, int channels) {
  if (channels == 4)
    for (int x = 0; x < width; ++x) d[4 * x + 3] = s[4 * x + 3];
}


}  // namespace
}  // namespace aug::k::cpu
