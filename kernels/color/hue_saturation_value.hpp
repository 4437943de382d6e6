// hue_saturation_value: 8-bit RGB(A) through OpenCV's 8-bit HSV (hue in [0, 180)), a table per
// HSV component, and back, as cv::cvtColor computes both conversions (OpenCV 4.6):
//   to HSV (integers): v = max(r, g, b), d = v - min(r, g, b),
//     s = (d * sdiv[v] + 2^11) >> 12,  sdiv[i] = rne(255 * 2^12 / i) (0 at 0),
//     h' = g - b (v == r), b - r + 2d (v == g), r - g + 4d (otherwise),
//     h = (h' * hdiv[d] + 2^11) >> 12, + 180 when negative,  hdiv[i] = rne(180 * 2^12 / (6 i)) (0 at 0)
//   tables: h = lut[h], s = lut[256 + s], v = lut[512 + v]
//   to RGB (binary32): sf = s * (1/255), vf = v * (1/255), t = h * (6/180), sector i = trunc(t),
//     f = t - i, p = vf (1 - sf), q = vf (1 - sf f), u = vf (1 - sf (1 - f)); (r, g, b) is
//     (vf, u, p), (q, vf, p), (p, vf, u), (p, q, vf), (u, p, vf), (vf, p, q) for sectors 0 to 5
//     (i mod 6), times 255, to 8 bits.
// OpenCV converts a row in blocks of 32 pixels with its AVX2 code and the rest of the row (fewer than
// 32 pixels) one by one, and the two differ: the blocks compute q and u each with one fused
// multiply-add (1 - sf f and 1 - sf (1 - f) rounded once) and truncate; the pixels after them fuse
// q's only and round half to even (and take r = g = b = vf when s is 0). Both are written out here:
// pixel x of a row of width W takes the block arithmetic when x < 32 floor(W / 32). Alpha is copied.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// The pixels of a row OpenCV converts in blocks (its AVX2 code: 4 vectors of 8 floats).
inline constexpr int kHsvBlock = 32;

struct HsvArgs {
  AUG_FIELDS(HsvArgs, sdiv, hdiv, lut)
  const std::int32_t* sdiv;  // 256 entries
  const std::int32_t* hdiv;  // 256 entries
  const std::uint8_t* lut;   // 3 x 256: hue, saturation, value
};

void hue_saturation_value(View<const std::uint8_t> in, View<std::uint8_t> out, const HsvArgs& args,
                          const Exec& exec);

namespace cpu {  // the host driver (the CPU backend): the same pixels, with the hardware's FMA where it has one
void hue_saturation_value(View<const std::uint8_t> in, View<std::uint8_t> out, const HsvArgs& args);
}  // namespace cpu

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

// An RGB pixel's 8-bit HSV after the tables (OpenCV's integer conversion, then lut).
AUG_HD void shifted_hsv(int r, int g, int b, const HsvArgs& a, int& h_out, int& s_out, int& v_out) {
  const int v = r > g ? (r > b ? r : b) : (g > b ? g : b);
  const int lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
  const int diff = v - lo;
  const int s = (diff * a.sdiv[v] + (1 << 11)) >> 12;
  int h = v == r ? g - b : (v == g ? b - r + 2 * diff : r - g + 4 * diff);
  h = (h * a.hdiv[diff] + (1 << 11)) >> 12;
  h += h < 0 ? 180 : 0;
  h_out = a.lut[h];
  s_out = a.lut[256 + s];
  v_out = a.lut[512 + v];
}

// One pixel p (C channels) to d: to HSV, the tables, back to RGB; alpha copied.
AUG_HD void hsv_pixel(const std::uint8_t* p, std::uint8_t* d, int C, const HsvArgs& a, bool block) {
  int h, s, v;
  shifted_hsv(p[0], p[1], p[2], a, h, s, v);
  std::uint8_t rgb[3];
  hsv_to_rgb(h, s, v, block, rgb);
  d[0] = rgb[0];
  d[1] = rgb[1];
  d[2] = rgb[2];
  if (C == 4) d[3] = p[3];
}

}  // namespace aug::k
