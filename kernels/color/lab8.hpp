// 8-bit sRGB <-> CIE L*a*b* (D65) in integers, as OpenCV 4.6's cv::cvtColor computes COLOR_RGB2Lab and
// COLOR_Lab2RGB on 8-bit images (its bit-exact integer paths). The tables are built once on the host
// (lib/stages/color/lab8.cpp); the per-pixel arithmetic here is integer only, the same on every backend.
//
// RGB -> Lab:  R' = gamma[R] (and G', B'), the linear value times 2040 (3 fractional bits)
//              X = (fx0 R' + fx1 G' + fx2 B' + 2^11) >> 12  (Y, Z likewise), then fX = cbrt[X] (2^15 scale)
//              L = (296 fY - 1336934 + 2^14) >> 15, a = (500 (fX - fY) + 2^22 + 2^14) >> 15,
//              b = (200 (fY - fZ) + 2^22 + 2^14) >> 15, each saturated to [0, 255]
// Lab -> RGB:  y = yf[2 L], fy = yf[2 L + 1] (2^14 scale)
//              ad = ((5 a 53687 + 2^7) >> 13) - 4194, bd = ((b 41943 + 2^4) >> 9) - 10485 + 1 (a / 500 and
//              b / 200 in 2^14 units, OpenCV's approximations)
//              x = ab_to_xz[fy + ad - min_ab], z = ab_to_xz[fy - bd - min_ab]
//              R = (ci0 x + ci1 y + ci2 z + 2^13) >> 14 clamped to [0, 4095], then inv_gamma[R] (G, B likewise)
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"

namespace aug::k {

struct Lab8Tables {
  static constexpr int kCbrtSize = 3072;      // 256 * 3 / 2 * 8
  static constexpr int kInvGammaSize = 4096;  // 12 bits
  static constexpr int kMinAB = -8145;
  static constexpr int kABSize = 16384 * 9 / 4;

  std::uint16_t gamma[256];               // sRGB value -> linear * 2040, rounded
  std::uint16_t cbrt[kCbrtSize];          // f(i / 2040) * 2^15, f the Lab companding function
  std::uint16_t inv_gamma[kInvGammaSize]; // i / 4096 linear -> sRGB value * 255, rounded
  std::uint16_t yf[512];                  // L -> (y, f(y)) in 2^14 units
  std::int32_t ab_to_xz[kABSize];         // f^-1 of (i + min_ab) / 2^14, in 2^14 units
  std::int32_t to_xyz[9];                 // RGB -> XYZ / white, 2^12 units, row by row
  std::int32_t to_rgb[9];                 // XYZ -> RGB times white, 2^12 units, row by row
};

AUG_HD std::uint8_t lab8_sat(int v) { return static_cast<std::uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v)); }

// rgb_to_lab8 in two steps, for callers that run each over a row (the host driver of clahe): the
// cube-root table's indices of X, Y and Z, then L, a and b from the three table values.
// `c`: t.to_xyz, or a copy of it that the caller keeps in registers (stores through uint8_t pointers
// may alias the tables, which would make the compiler reload them).
AUG_HD void rgb_to_xyz8(int r, int g, int b, const Lab8Tables& t, const std::int32_t* c, int& ix, int& iy, int& iz) {
  const int R = t.gamma[r], G = t.gamma[g], Bl = t.gamma[b];
  ix = (R * c[0] + G * c[1] + Bl * c[2] + (1 << 11)) >> 12;
  iy = (R * c[3] + G * c[4] + Bl * c[5] + (1 << 11)) >> 12;
  iz = (R * c[6] + G * c[7] + Bl * c[8] + (1 << 11)) >> 12;
}
AUG_HD void lab8_of_roots(int fx, int fy, int fz, std::uint8_t& L, std::uint8_t& A, std::uint8_t& B) {
  constexpr int kLscale = (116 * 255 + 50) / 100;                    // 296
  constexpr int kLshift = -((16 * 255 * (1 << 15) + 50) / 100);      // -1336934
  L = static_cast<std::uint8_t>((kLscale * fy + kLshift + (1 << 14)) >> 15);  // fy in [4520, 32768]: L in [0, 255]
  A = lab8_sat((500 * (fx - fy) + (128 << 15) + (1 << 14)) >> 15);
  B = lab8_sat((200 * (fy - fz) + (128 << 15) + (1 << 14)) >> 15);
}
AUG_HD void rgb_to_lab8(int r, int g, int b, const Lab8Tables& t, const std::int32_t* c, std::uint8_t& L,
                        std::uint8_t& A, std::uint8_t& B) {
  int ix, iy, iz;
  rgb_to_xyz8(r, g, b, t, c, ix, iy, iz);
  lab8_of_roots(t.cbrt[ix], t.cbrt[iy], t.cbrt[iz], L, A, B);
}
AUG_HD void rgb_to_lab8(int r, int g, int b, const Lab8Tables& t, std::uint8_t& L, std::uint8_t& A, std::uint8_t& B) {
  rgb_to_lab8(r, g, b, t, t.to_xyz, L, A, B);
}

AUG_HD int lab8_channel_out(int v, const Lab8Tables& t) {
  int i = (v + (1 << 13)) >> 14;
  i = i < 0 ? 0 : (i > Lab8Tables::kInvGammaSize - 1 ? Lab8Tables::kInvGammaSize - 1 : i);
  return t.inv_gamma[i];
}

// `c`: t.to_rgb or a copy of it (see rgb_to_lab8).
AUG_HD void lab8_to_rgb(int L, int a, int b, const Lab8Tables& t, const std::int32_t* c, std::uint8_t& R,
                        std::uint8_t& G, std::uint8_t& B) {
  const int y = t.yf[2 * L], fy = t.yf[2 * L + 1];
  const int ad = ((5 * a * 53687 + (1 << 7)) >> 13) - 128 * 16384 / 500;
  const int bd = ((b * 41943 + (1 << 4)) >> 9) - 128 * 16384 / 200 + 1;
  const int x = t.ab_to_xz[fy + ad - Lab8Tables::kMinAB];
  const int z = t.ab_to_xz[fy - bd - Lab8Tables::kMinAB];
  // The sums stay within int32 (|c| < 2^14, |x|, |z| < 2^17): OpenCV sums in int.
  R = static_cast<std::uint8_t>(lab8_channel_out(c[0] * x + c[1] * y + c[2] * z, t));  // the table holds 0..255
  G = static_cast<std::uint8_t>(lab8_channel_out(c[3] * x + c[4] * y + c[5] * z, t));
  B = static_cast<std::uint8_t>(lab8_channel_out(c[6] * x + c[7] * y + c[8] * z, t));
}
AUG_HD void lab8_to_rgb(int L, int a, int b, const Lab8Tables& t, std::uint8_t& R, std::uint8_t& G, std::uint8_t& B) {
  lab8_to_rgb(L, a, b, t, t.to_rgb, R, G, B);
}

}  // namespace aug::k
