// Host side of the filter2d engine (kernels/engines/filter2d.hpp): a k x k kernel of binary32
// weights applied as cv::filter2D(src, dst, -1, kernel, anchor at the centre, delta 0,
// BORDER_REFLECT_101) applies it on CPUs with AVX2: for each output value, the kernel's non-zero
// entries in row-major order, one fused multiply-add each, from 0. motion_blur, sharpen, emboss and
// defocus describe their kernels as a Filter2D.
//
// The CPU backend calls cv::filter2D itself where OpenCV computes exactly these sums: AVX2 and FMA3
// present, and fewer kernel entries than where OpenCV correlates through a DFT instead (130 for 8-bit
// and float images, 50 for 16-bit ones); the engine's host driver otherwise. The catalog tests hold
// the paths equal.
#pragma once

#include <cstdint>
#include <vector>

#include "lib/core/image.hpp"
#include "lib/stages/kernel_context.hpp"

namespace cv {
class Mat;
}

namespace aug {

class Filter2D {
 public:
  // `weights`: size x size, row-major, size odd; `clip`: float results clamped to [0, 1] (integer
  // results are always saturated).
  Filter2D(int size, std::vector<float> weights, bool clip = false);

  int size() const { return size_; }
  const std::vector<float>& weights() const { return dense_; }
  // The non-zero entries, in row-major order.
  int taps() const { return static_cast<int>(tap_weights_.size()); }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const;

 private:
  int size_;
  std::vector<float> dense_;
  bool clip_;
  std::vector<std::int32_t> offsets_;
  std::vector<float> tap_weights_;
};

// Whether cv::filter2D computes a size x size kernel on `dtype` with the direct fused sums above
// on this CPU (the tests compare with it bit for bit there).
bool cv_filter2d_is_direct(int size, DType dtype);

// The kernel as a CV_32F cv::Mat (for cv::filter2D).
cv::Mat filter2d_kernel_mat(int size, const std::vector<float>& weights);

}  // namespace aug
