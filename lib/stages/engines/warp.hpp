// Host side of the warp engine (kernels/engines/warp.hpp): the matrix, its inverse, the
// coordinate and weight tables, and the call of the kernel on a KernelContext. The rotate,
// affine and perspective stages describe their geometry as a `Warp` and call run_warp.
//
// With 8-bit images an affine Warp (last row 0 0 1) is cv::warpAffine of OpenCV 4.6 bit for bit,
// and a perspective one is cv::warpPerspective (same interpolation, border mode and value).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernels/engines/warp.hpp"
#include "lib/core/image.hpp"
#include "lib/stages/kernel_context.hpp"
#include "lib/stages/engines/vocabulary.hpp"

namespace cv {
class Mat;
}

namespace aug {

struct Warp {
  // Forward map, input pixel coordinates -> output pixel coordinates (pixel centres at integers),
  // row-major: the matrix cv::warpAffine (first two rows) / cv::warpPerspective take without
  // WARP_INVERSE_MAP.
  std::array<double, 9> matrix{1, 0, 0, 0, 1, 0, 0, 0, 1};
  int out_width = 0, out_height = 0;
  Interp interp = Interp::Bilinear;  // nearest, bilinear or bicubic
  Border border = Border::Constant;
  // Constant border: the value of each channel in sample units (0..255, 0..65535, or a float),
  // saturated to the sample type as OpenCV does; channels beyond the image's are ignored.
  std::array<double, 4> fill{0, 0, 0, 0};
};

// A per-pixel map, as cv::remap takes it with two CV_32FC1 maps: output pixel (x, y) samples the
// input at (map_x, map_y) (pixel centres at integers). Separable maps hold one map_x per output
// column and one map_y per output row (the meshgrid of the two, as a grid distortion builds it).
struct RemapField {
  std::vector<float> map_x, map_y;
  bool separable = false;
  int out_width = 0, out_height = 0;
  Interp interp = Interp::Bilinear;  // nearest, bilinear or bicubic
  Border border = Border::Constant;
  std::array<double, 4> fill{0, 0, 0, 0};  // as Warp::fill

  float source_x(int x, int y) const { return separable ? map_x[x] : map_x[static_cast<std::size_t>(y) * out_width + x]; }
  float source_y(int x, int y) const { return separable ? map_y[y] : map_y[static_cast<std::size_t>(y) * out_width + x]; }
};

// The last row is exactly (0, 0, 1).
bool is_affine(const Warp& w);

// The inverse map (output -> input) exactly as OpenCV computes it in double: for an affine matrix
// the closed form of cv::warpAffine (equal to cv::invertAffineTransform), otherwise cv::invert's
// 3x3 cofactor form (DECOMP_LU on 3x3 matrices). A singular matrix gives all zeros, as in OpenCV.
std::array<double, 9> invert_warp_matrix(const std::array<double, 9>& m);

// OpenCV's column block width in cv::warpPerspective for an output of this size.
int warp_perspective_block_width(int out_width, int out_height);

// The affine coordinate table of the kernel: adelta[out_w], bdelta[out_w], X0[out_h], Y0[out_h].
std::vector<std::int32_t> warp_affine_coords(const std::array<double, 9>& inverse, int out_width, int out_height,
                                             Interp interp);

// The bicubic weight tables, [32*32][16], as OpenCV's initInterTab2D(INTER_CUBIC): fixed point
// with 15 fractional bits (8-bit images) and float (16-bit and float images).
const std::vector<std::int16_t>& warp_bicubic_table_fixed();
const std::vector<float>& warp_bicubic_table_float();

// Warps `in` into `out` (out: w.out_width x w.out_height, same channels and sample type) with the
// kernels of `ctx`. Throws std::invalid_argument for a mismatched output, a non-finite matrix or fill.
void run_warp(KernelContext& ctx, const ImageRef& in, const ImageRef& out, const Warp& w);

// Remaps `in` into `out` (f.out_width x f.out_height) through the field: with 8-bit images
// cv::remap of OpenCV 4.6 with the two float maps, bit for bit. Throws std::invalid_argument for a
// mismatched output or maps of the wrong size, or a non-finite fill.
void run_remap(KernelContext& ctx, const ImageRef& in, const ImageRef& out, const RemapField& f);

// cv::remap of `src` into `dst` through the field's maps (a separable field expanded to full maps,
// as numpy's meshgrid does), interpolation, border and fill: the CPU backend's path, and what the
// field warps' OpenCV counterparts time.
void remap_with_opencv(const cv::Mat& src, cv::Mat& dst, const RemapField& f);

}  // namespace aug
