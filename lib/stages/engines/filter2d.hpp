// Host side of the filter2d engine (kernels/engines/filter2d.hpp): a k x k kernel of binary32
// weights applied as cv::filter2D(src, dst, -1, kernel, anchor at the centre, delta 0,
// BORDER_REFLECT_101) applies it on CPUs with AVX2: for each output value, the kernel's non-zero
// entries in row-major order, one fused multiply-add each, from 0. motion_blur, sharpen, emboss,
// defocus and advanced_blur describe their kernels as a Filter2D.
//
// The CPU backend calls cv::filter2D itself where OpenCV computes exactly these sums: AVX2 and FMA3
// present, and fewer kernel entries than where OpenCV correlates through a DFT instead (130 for 8-bit
// and float images, 50 for 16-bit ones); the engine's host driver otherwise. The catalog tests hold
// the paths equal.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/image.hpp"
#include "lib/params/param.hpp"
#include "lib/stages/kernel_context.hpp"
#include "lib/stages/stage.hpp"

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

// The benchmark's counterpart (Counterpart::make) of a stage whose Op records its kernel as
// "kernel" (size x size weights, row-major): cv::filter2D with it, BORDER_REFLECT_101.
std::function<void()> filter2d_counterpart(const nlohmann::json& resolved, const cv::Mat& src, cv::Mat& dst);

// An Op that applies one Filter2D; the manifest records `drawn` (the stage's resolved values) and
// the kernel as "kernel".
class Filter2DOp final : public Op {
 public:
  Filter2DOp(const Shape& s, nlohmann::json drawn, Filter2D filter)
      : Op(s, s), drawn_(std::move(drawn)), filter_(std::move(filter)) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override { filter_.run(ctx, in, out); }

  nlohmann::json params() const override {
    nlohmann::json j = drawn_;
    j["kernel"] = filter_.weights();
    return j;
  }

 private:
  nlohmann::json drawn_;
  Filter2D filter_;
};

// A stage whose 3x3 kernel is built from two numbers drawn in turn (sharpen: alpha, lightness;
// emboss: alpha, strength) and applied with float results clamped to [0, 1].
class DrawnKernel3x3Stage : public Stage {
 public:
  using Build = std::vector<float> (*)(double first, double second);

  DrawnKernel3x3Stage(const StageConfig& c, const Param<NumberParam>& first, const Param<NumberParam>& second,
                      Build build);

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override;

 private:
  std::string first_name_, second_name_;
  NumberParam first_, second_;
  Build build_;
};

}  // namespace aug
