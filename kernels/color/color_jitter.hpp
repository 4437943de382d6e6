// color_jitter: torchvision's ColorJitter (transforms.v2 functional arithmetic), up to four
// adjustments in a drawn order, each computed in binary32 and, for 8- and 16-bit images, truncated
// back to the sample type after every adjustment as torchvision does:
//   brightness  y = settle(x * f)
//   contrast    y = settle(x * f + (1 - f) * mean), mean of the grayscale image (floored for integers)
//   saturation  y = settle(x * f + (1 - f) * gray), gray floored for integer images (RGB only)
//   hue         RGB -> HSV, h = (h + hue) mod 1, HSV -> RGB (RGB only; integers through [0, 1])
// settle(y) = clamp(y, 0, max) then truncation for integer images. No FMA (docs/stages/color.md).
// The contrast mean is a deterministic reduction: per-row sums (exact integers, or doubles for
// float images) in scratch, then one total.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

enum JitterOp : int { kJitterBrightness = 0, kJitterContrast = 1, kJitterSaturation = 2, kJitterHue = 3 };

struct JitterArgs {
  AUG_FIELDS(JitterArgs, op, ratio, rest, hue, count, color_channels)
  int op[4];          // the enabled adjustments, in the order they run
  float ratio[4];     // by JitterOp: (float)factor
  float rest[4];      // by JitterOp: (float)(1 - factor), the difference taken in double
  float hue;          // (float)hue_factor
  int count;          // how many of op[] run
  int color_channels; // 1 or 3 (RGBA: 3, alpha copied)
};

template <class T>
void color_jitter(View<const T> in, View<T> out, const JitterArgs& args, Scratch& scratch, const Exec& exec);

namespace cpu {  // the vectorised host driver for 8-bit images (the CPU backend)
void color_jitter(View<const std::uint8_t> in, View<std::uint8_t> out, const JitterArgs& args);
}  // namespace cpu

// ---- The formulas, shared by every backend ----------------------------------------------------

template <class T>
AUG_HD float jitter_bound() {
  if constexpr (std::is_same_v<T, float>) return 1.f;
  else return static_cast<float>(SampleTraits<T>::max);
}

// clamp(y, 0, bound), then for integer images the truncation of `.to(dtype)`.
template <class T>
AUG_HD float jitter_settle(float y) {
  const float b = jitter_bound<T>();
  y = y < 0.f ? 0.f : y;
  y = y > b ? b : y;
  if constexpr (std::is_same_v<T, float>) return y;
  else return static_cast<float>(static_cast<std::int32_t>(y));
}

// torchvision's grayscale: r * 0.2989 + g * 0.587 + b * 0.114 in binary32 (left to right), floored
// for integer images.
template <class T>
AUG_HD float jitter_gray(float r, float g, float b) {
  float l = r * static_cast<float>(0.2989);
  l = l + g * static_cast<float>(0.587);
  l = l + b * static_cast<float>(0.114);
  if constexpr (std::is_same_v<T, float>) return l;
  else return floorf(l);
}

// fmod(x, 1) exactly, without the device math library (whose fmodf is built on fused
// multiply-adds): x - trunc(x) is exact in binary32 and has x's sign.
AUG_HD float jitter_fmod1(float x) { return x - truncf(x); }

// torchvision's _rgb_to_hsv, hue shift (remainder by 1) and _hsv_to_rgb on [0, 1] values.
AUG_HD void jitter_hue_unit(float& r, float& g, float& b, float hue) {
  const float maxc = r > g ? (r > b ? r : b) : (g > b ? g : b);
  const float minc = r < g ? (r < b ? r : b) : (g < b ? g : b);
  const bool eqc = maxc == minc;
  const float range = maxc - minc;
  const float s = range / (eqc ? 1.f : maxc);
  const float div = eqc ? 1.f : range;
  const float rc = (maxc - r) / div, gc = (maxc - g) / div, bc = (maxc - b) / div;
  // torchvision sums three masked terms; the two masked out are zeros, so the sum is the selected term.
  float h;
  if (maxc == r) h = bc - gc;
  else if (maxc == g) h = (rc + 2.f) - bc;
  else h = (gc + 4.f) - rc;
  h = h * static_cast<float>(1.0 / 6.0);
  h = jitter_fmod1(h + 1.f);
  // h.add_(hue).remainder_(1.0): fmod, then + 1 where the remainder is negative.
  h = jitter_fmod1(h + hue);
  if (h != 0.f && h < 0.f) h = h + 1.f;
  // _hsv_to_rgb
  const float h6 = h * 6.f;
  const float fi = floorf(h6);
  const float f = h6 - fi;
  // trunc_i32: h is NaN when maxc - minc overflows (float images with values near +-FLT_MAX).
  const int i = trunc_i32(fi) % 6;
  const float v = maxc;
  const float sxf = s * f;
  const float one_minus_s = 1.f - s;
  const float q = clamp01((1.f - sxf) * v);
  const float t = clamp01((sxf + one_minus_s) * v);
  const float p = clamp01(one_minus_s * v);
  switch (i) {
    case 0: r = v, g = t, b = p; break;
    case 1: r = q, g = v, b = p; break;
    case 2: r = p, g = v, b = t; break;
    case 3: r = p, g = q, b = v; break;
    case 4: r = t, g = p, b = v; break;
    default: r = v, g = p, b = q; break;
  }
}

// Hue on one pixel of sample type T: integers go to [0, 1] as v * (float)(1 / max) and back as
// trunc(y * (float)(max + 1 - 0.001)), saturated (torchvision's to_dtype with scale=True).
template <class T>
AUG_HD void jitter_hue(float* px, float hue) {
  if constexpr (std::is_same_v<T, float>) {
    jitter_hue_unit(px[0], px[1], px[2], hue);
  } else {
    constexpr double max = static_cast<double>(SampleTraits<T>::max);
    const float in_scale = static_cast<float>(1.0 / max);
    const float out_scale = static_cast<float>(max + 1.0 - 1e-3);
    float r = px[0] * in_scale, g = px[1] * in_scale, b = px[2] * in_scale;
    jitter_hue_unit(r, g, b, hue);
    const float u[3] = {r, g, b};
    for (int c = 0; c < 3; ++c) {
      const float y = static_cast<float>(static_cast<std::int32_t>(u[c] * out_scale));
      px[c] = y > static_cast<float>(max) ? static_cast<float>(max) : y;
    }
  }
}

// Adjustments op[from .. to) of `a` on one pixel's colour values `px` (cc of them).
// (Array members are read with constant indices only, so that a kernel keeps them in registers.)
template <class T>
AUG_HD void jitter_steps(float* px, int cc, const JitterArgs& a, int from, int to, float mean) {
  for (int k = 0; k < 4; ++k) {
    if (k < from || k >= to) continue;
    const int op = k == 0 ? a.op[0] : (k == 1 ? a.op[1] : (k == 2 ? a.op[2] : a.op[3]));
    const float f = op == 0 ? a.ratio[0] : (op == 1 ? a.ratio[1] : (op == 2 ? a.ratio[2] : a.ratio[3]));
    const float rest = op == 0 ? a.rest[0] : (op == 1 ? a.rest[1] : (op == 2 ? a.rest[2] : a.rest[3]));
    if (op == kJitterBrightness) {
      for (int c = 0; c < 3; ++c)
        if (c < cc) px[c] = jitter_settle<T>(px[c] * f);
    } else if (op == kJitterContrast) {
      const float m = rest * mean;
      for (int c = 0; c < 3; ++c)
        if (c < cc) px[c] = jitter_settle<T>(px[c] * f + m);
    } else if (cc == 3 && op == kJitterSaturation) {
      const float m = rest * jitter_gray<T>(px[0], px[1], px[2]);
      for (int c = 0; c < 3; ++c) px[c] = jitter_settle<T>(px[c] * f + m);
    } else if (cc == 3 && op == kJitterHue) {
      jitter_hue<T>(px, a.hue);
    }
  }
}

// What contrast averages for one pixel: the (floored) grayscale of RGB, the value of gray.
template <class T>
AUG_HD float jitter_luma(const float* px, int cc) {
  return cc == 3 ? jitter_gray<T>(px[0], px[1], px[2]) : px[0];
}

}  // namespace aug::k
