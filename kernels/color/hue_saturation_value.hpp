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
#include "kernels/core/hsv8.hpp"  // kHsvBlock, hsv_to_rgb
#include "kernels/core/launch.hpp"

namespace aug::k {

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
