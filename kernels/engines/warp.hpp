// The warp engine: every output pixel is mapped back through an inverse 3x3 matrix to a source
// position, which is sampled (nearest, bilinear or bicubic) under a border mode. It is the
// arithmetic shared by the rotate / affine / perspective stages, and it is OpenCV 4.6's
// cv::warpAffine / cv::warpPerspective (without WARP_INVERSE_MAP) followed by cv::remap:
//
// Coordinates: fixed point with INTER_BITS = 5 fractional bits (1/32 pixel).
//   affine:      per column adelta[x] = R((m0*x)*1024), bdelta[x] = R((m3*x)*1024);
//                per row    X0[y] = R((m1*y + m2)*1024) + d, Y0[y] likewise with m4, m5,
//                           d = 512 for nearest, 16 otherwise (AB_BITS = 10), where R is OpenCV's
//                           cvRound on x86-64: RNE, INT_MIN when the result leaves the int range;
//                nearest:   sx = sat_i16((X0[y] + adelta[x]) >> 10)                   (int32, wrapping)
//                otherwise: X = (X0[y] + adelta[x]) >> 5; sx = sat_i16(X >> 5), fx = X & 31.
//                The four int32 tables are computed on the host in double (WarpArgs::coords).
//   perspective: in double, per pixel, with OpenCV's column blocks of width `block_width`:
//                xb = x - x % block_width, x1 = x % block_width,
//                X0 = (m0*xb + m1*y) + m2, Y0, W0 likewise; W = W0 + m6*x1;
//                nearest:   W = W ? 1/W : 0;  sx = sat_i16(RNE(clamp_i32((X0 + m0*x1)*W)))
//                otherwise: W = W ? 32/W : 0; X = RNE(clamp_i32((X0 + m0*x1)*W));
//                           sx = sat_i16(X >> 5), fx = X & 31.
//   maps:        cv::remap with two CV_32FC1 maps (map_x, map_y: the input position of each output
//                pixel; `maps` 2 gives one map_x per column and one map_y per row, i.e. the meshgrid
//                of the two): nearest: sx = sat_i16(R(map_x)); otherwise X = R(map_x * 32.f) (binary32
//                product), sx = sat_i16(X >> 5), fx = X & 31, where R is cvRound of a float on x86-64
//                (RNE; INT_MIN for NaN or a result outside the int range).
// Sampling (cv::remap with those maps; `fill` is cval, per channel, saturated to the sample type):
//   nearest:  the pixel (sx, sy) when inside; otherwise fill (Constant), the clamped pixel
//             (Replicate) or the pixel at cv::borderInterpolate(sx), (sy) (other borders).
//   bilinear: weights w = {(32-fy)(32-fx), (32-fy)fx, fy(32-fx), fy fx} over the taps
//             (sx, sy), (sx+1, sy), (sx, sy+1), (sx+1, sy+1).
//             8-bit: integer weights w*32 (sum 2^15), out = sat_u8((sum + 2^14) >> 15).
//             16-bit and float: float weights w/1024 (exact), sum = ((t0 + t1) + t2) + t3 in
//             binary32 without FMA, out = RNE and saturate (u16) or the sum (float).
//             A pixel whose 2x2 taps are all inside uses them directly. Otherwise: Constant and
//             the taps entirely outside (sx >= W, sx+1 < 0, sy >= H or sy+1 < 0) give fill;
//             Replicate clamps each tap; the other borders index each tap by borderInterpolate
//             (Constant: a tap outside reads fill).
//   bicubic:  4x4 taps from (sx-1, sy-1) with a [1024][16] table indexed by fy*32+fx, built on the
//             host as OpenCV's initInterTab2D(INTER_CUBIC): float Keys cubic (A = -0.75) per axis,
//             products in float, 8-bit: sat_i16(RNE(v*2^15)) with OpenCV's sum correction.
//             With bx = sx-1, by = sy-1: inside (0 <= bx < W-3, 0 <= by < H-3) sum row by row
//             (s = r0; s += r1; s += r2; s += r3, each r = p0w0 + p1w1 + p2w2 + p3w3).
//             Otherwise: Constant with all 16 taps outside (bx >= W, bx+4 <= 0, by >= H or
//             by+4 <= 0) gives fill; else the same sums over the taps indexed by borderInterpolate,
//             a tap outside (Constant) reading fill. 8-bit: int32 sums, out = sat_u8((s + 2^14) >> 15),
//             which equals OpenCV's fill*2^15 + sum (p - fill)*w; 16-bit and float: binary32 sums,
//             RNE + saturate for 16-bit. (OpenCV's float border formula fill + sum (p - fill)*w
//             is not used: it does not give the identity when fill != 0.)
// Everything is integer or IEEE double/float arithmetic without contraction, so the host loop and
// the CUDA kernel (built with --fmad=false) compute the same bits.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/core/border.hpp"
#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

enum WarpInterpMode : std::int32_t { kWarpNearest = 0, kWarpBilinear = 1, kWarpBicubic = 2 };
// Where the source positions come from: the matrix, or float maps (full, or one per column and row).
enum WarpMapMode : std::int32_t { kWarpNoMaps = 0, kWarpFullMaps = 1, kWarpSeparableMaps = 2 };
constexpr int kWarpInterBits = 5;
constexpr int kWarpTabSize = 1 << kWarpInterBits;  // 32 sub-pixel positions per axis
constexpr int kWarpAbBits = 10;                    // affine coordinate fixed point
constexpr int kWarpCoefBits = 15;                  // 8-bit interpolation weights

// Everything the kernel needs, passed by value. Pointers are device-resident tables (from
// KernelContext::table) or null.
struct WarpArgs {
  AUG_FIELDS(WarpArgs, m, perspective, interp, border, block_width, fill, coords, itab, ftab, maps, map_x, map_y)
  double m[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};  // inverse map: output pixel -> input pixel, row-major
  std::int32_t perspective = 0;               // 0: affine (uses `coords`), 1: per-pixel double
  std::int32_t interp = kWarpBilinear;        // WarpInterpMode
  std::int32_t border = kBorderConstant;      // BorderMode
  std::int32_t block_width = 1;               // perspective: OpenCV's column block width
  double fill[4] = {0, 0, 0, 0};              // border value per channel, in sample units
  // Affine: adelta[out_w], bdelta[out_w], X0[out_h], Y0[out_h] (see above).
  const std::int32_t* coords = nullptr;
  // Bicubic: [1024][16] weights, int16 for 8-bit images, float for 16-bit and float images.
  const std::int16_t* itab = nullptr;
  const float* ftab = nullptr;
  // Maps (WarpMapMode; the matrix is unused then): full, out_w x out_h each, row-major; separable,
  // map_x[out_w] and map_y[out_h].
  std::int32_t maps = kWarpNoMaps;
  const float* map_x = nullptr;
  const float* map_y = nullptr;
};
static_assert(std::is_trivially_copyable_v<WarpArgs>, "WarpArgs is copied to the device by value");

// Runs the warp of `in` into `out` (same channel count and sample type).
template <class T>
void warp(View<const T> in, View<T> out, const WarpArgs& a, const Exec& exec);

}  // namespace aug::k
