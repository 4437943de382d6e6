// Host-side tables for the separable engine (kernels/engines/separable.hpp), computed in double once per
// image and handed unchanged to every backend, and the op that runs it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/engines/separable.hpp"
#include "lib/core/image.hpp"
#include "lib/stages/kernel_context.hpp"
#include "lib/stages/engines/vocabulary.hpp"

namespace aug {

class Op;

// The `interpolation` of the stages that resample a window (resize, random_resized_crop).
Choice<Interp> resample_interpolation_param();

// Fractional bits of the fixed-point weights for integer images (0 for float).
int resize_frac_bits(Interp interp, DType dtype);
int blur_frac_bits(DType dtype);

struct AxisTable {
  int taps = 0;
  int length = 0;  // output length
  std::vector<std::int32_t> index;
  std::vector<std::int32_t> iweight;
  std::vector<float> fweight;

  int min_index() const;
  int max_index() const;
};

// Resampling of source positions [offset, offset + src_len) onto dst_len outputs. `centred`
// nearest (label maps) takes the source pixel under each output pixel's centre, floor((d + 0.5)
// scale) (OpenCV's INTER_NEAREST_EXACT), where plain nearest is OpenCV's floor(d scale).
// `inv_scale` is cv::resize's factor (dst per src pixel): 0 takes dst_len / src_len, as cv::resize
// with an explicit size; a factor given to cv::resize as fx (no size) is used as is, scale = 1 / fx.
AxisTable resize_axis(int src_len, int dst_len, int offset, Interp interp, DType dtype, bool centred = false,
                      double inv_scale = 0);

// Correlation with `kernel` (odd length, sums to 1, from cv::getGaussianKernel) under `border`.
AxisTable blur_axis(int len, const std::vector<double>& kernel, Border border, DType dtype);
// A blur kernel's integer weights for 8/16-bit images (blur_frac_bits fractional bits): OpenCV's
// error diffusion from the outside in, the centre taking the remainder, so that they sum to 2^bits.
std::vector<std::int32_t> blur_fixed_weights(const std::vector<double>& kernel, int bits);

// Runs the separable engine with the given tables on `ctx` (its kernels, or on the CPU backend its
// vectorised host driver; both compute the same function).
void run_separable(KernelContext& ctx, const ImageRef& in, const ImageRef& out, const AxisTable& h, const AxisTable& v,
                   int frac_bits);

// A source window resampled to out_width x out_height: resize (window = whole image) and
// random_resized_crop. 8-bit bilinear is cv::resize INTER_LINEAR_EXACT to the bit (docs/stages/geometry.md#resize).
struct Window {
  int x = 0, y = 0, width = 0, height = 0;
};
// `centred`: nearest takes the pixel under each output pixel's centre (label maps: resize_axis).
std::unique_ptr<Op> make_resample_op(const Shape& in, const Window& window, int out_width, int out_height,
                                     Interp interp, bool centred = false);

}  // namespace aug
