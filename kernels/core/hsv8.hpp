// OpenCV's 8-bit HSV conversions (hue in [0, 180)), as cv::cvtColor computes them (OpenCV 4.6),
// shared by the colour and weather stages (kernels/color/hue_saturation_value.hpp has the formulas):
//   to HSV (integers): v = max(r, g, b), d = v - min(r, g, b), s = (d * sdiv[v] + 2^11) >> 12,
//     h' = g - b (v == r), b - r + 2d (v == g), r - g + 4d (otherwise),
//     h = (h' * hdiv[d] + 2^11) >> 12, + 180 when negative; sdiv[i] = rne(255 * 2^12 / i),
//     hdiv[i] = rne(180 * 2^12 / (6 i)) (0 at 0), host tables
//   to RGB (binary32): the block arithmetic of OpenCV's AVX2 code for the first 32 floor(W / 32)
//     pixels of a row, the one-by-one arithmetic for the rest; hues up to 255 wrap past 180.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"

namespace aug::k {

// The pixels of a row OpenCV converts in blocks (its AVX2 code: 4 vectors of 8 floats).
inline constexpr int kHsvBlock = 32;

// One 8-bit HSV triple to RGB, the block arithmetic (`block`) or the one-by-one one.
AUG_HD float hsv_fma(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return __builtin_fmaf(a, b, c);
#endif
}

AUG_HD void hsv_to_rgb(int h, int s, int v, bool block, std::uint8_t rgb[3]) {
  const float hscale = 6.0f / 180.0f;
  const float sf = static_cast<float>(s) * (1.0f / 255.0f), vf = static_cast<float>(v) * (1.0f / 255.0f);
  float t = static_cast<float>(h) * hscale;
  if (block) {
    const float pre = static_cast<float>(static_cast<int>(t));
    const float f = t - pre;
    const float turns = static_cast<float>(static_cast<int>(pre * (1.0f / 6.0f)));
    const int sector = static_cast<int>(pre - turns * 6.0f);
    const float p = vf * (1.0f - sf), q = vf * hsv_fma(-sf, f, 1.0f), u = vf * hsv_fma(-sf, 1.0f - f, 1.0f);
    const float r = sector < 1 ? vf : sector == 1 ? q : sector <= 3 ? p : sector == 4 ? u : vf;
    const float g = sector < 1 ? u : sector <= 2 ? vf : sector == 3 ? q : p;
    const float b = sector < 2 ? p : sector == 2 ? u : sector <= 4 ? vf : q;
    const float o[3] = {r, g, b};
    for (int c = 0; c < 3; ++c) {
      const int x = static_cast<int>(o[c] * 255.0f);  // truncation
      rgb[c] = static_cast<std::uint8_t>(x < 0 ? 0 : (x > 255 ? 255 : x));
    }
    return;
  }
  float r = vf, g = vf, b = vf;
  if (s != 0) {
    if (t >= 6.0f) t -= 6.0f;  // fmod(t, 6): t < 8.5 here, and the difference is exact
    int sector = static_cast<int>(t);
    float f = t - static_cast<float>(sector);
    if (sector >= 6) {
      sector = 0;
      f = 0.0f;
    }
    const float p = vf * (1.0f - sf), q = vf * hsv_fma(-sf, f, 1.0f), u = vf * (1.0f - sf * (1.0f - f));
    switch (sector) {
      case 0: r = vf, g = u, b = p; break;
      case 1: r = q, g = vf, b = p; break;
      case 2: r = p, g = vf, b = u; break;
      case 3: r = p, g = q, b = vf; break;
      case 4: r = u, g = p, b = vf; break;
      default: r = vf, g = p, b = q; break;
    }
  }
  const float o[3] = {r, g, b};
  for (int c = 0; c < 3; ++c) rgb[c] = saturate<std::uint8_t>(rne(o[c] * 255.0f));
}

// OpenCV's integer RGB2HSV of one 8-bit pixel.
AUG_HD void hsv8_from_rgb(int r, int g, int b, const std::int32_t* sdiv, const std::int32_t* hdiv, int& h_out,
                          int& s_out, int& v_out) {
  const int v = r > g ? (r > b ? r : b) : (g > b ? g : b);
  const int lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
  const int diff = v - lo;
  const int s = (diff * sdiv[v] + (1 << 11)) >> 12;
  int h = v == r ? g - b : (v == g ? b - r + 2 * diff : r - g + 4 * diff);
  h = (h * hdiv[diff] + (1 << 11)) >> 12;
  h += h < 0 ? 180 : 0;
  h_out = h;
  s_out = s;
  v_out = v;
}

}  // namespace aug::k
