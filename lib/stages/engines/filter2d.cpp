#include "lib/stages/engines/filter2d.hpp"

#include <stdexcept>

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/core/common.hpp"
#include "kernels/engines/filter2d.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

Filter2D::Filter2D(int size, std::vector<float> weights, bool clip)
    : size_(size), dense_(std::move(weights)), clip_(clip) {
  if (size_ < 1 || size_ % 2 == 0 || dense_.size() != static_cast<std::size_t>(size_) * size_)
    throw std::invalid_argument("filter2d: a kernel must be odd-sized and square");
  const int half = size_ / 2;
  for (int y = 0; y < size_; ++y)
    for (int x = 0; x < size_; ++x) {
      const float w = dense_[static_cast<std::size_t>(y) * size_ + x];
      if (w == 0.0f) continue;  // as OpenCV, which leaves zero entries (and -0) out of its sums
      offsets_.push_back(x - half);
      offsets_.push_back(y - half);
      tap_weights_.push_back(w);
    }
  if (tap_weights_.empty()) {  // all zeros: one zero tap at the centre, so that every output is 0
    offsets_ = {0, 0};
    tap_weights_ = {0.0f};
  }
}

bool cv_filter2d_is_direct(int size, DType dtype) {
  static const bool fused = cv::checkHardwareSupport(CV_CPU_AVX2) && cv::checkHardwareSupport(CV_CPU_FMA3);
  return fused && size * size < (dtype == DType::U16 ? 50 : 130);
}

cv::Mat filter2d_kernel_mat(int size, const std::vector<float>& weights) {
  cv::Mat kernel(size, size, CV_32F);
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) kernel.at<float>(y, x) = weights[static_cast<std::size_t>(y) * size + x];
  return kernel;
}

std::function<void()> filter2d_counterpart(const nlohmann::json& resolved, const cv::Mat& src, cv::Mat& dst) {
  const auto w = resolved.at("kernel").get<std::vector<float>>();
  int size = 1;
  while (static_cast<std::size_t>(size) * size < w.size()) size += 2;
  const cv::Mat kernel = filter2d_kernel_mat(size, w);
  return [&dst, src, kernel] { cv::filter2D(src, dst, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101); };
}

DrawnKernel3x3Stage::DrawnKernel3x3Stage(const StageConfig& c, const Param<NumberParam>& first,
                                         const Param<NumberParam>& second, Build build)
    : first_name_(first.name), second_name_(second.name), first_(c.get(first)), second_(c.get(second)),
      build_(build) {}

std::unique_ptr<Op> DrawnKernel3x3Stage::resolve(Draws& d, const Shape& in) const {
  const double a = first_.sample(d);
  const double b = second_.sample(d);
  return std::make_unique<Filter2DOp>(in, nlohmann::json{{first_name_, a}, {second_name_, b}},
                                      Filter2D(3, build_(a, b), true));
}

void Filter2D::run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const {
  if (ctx.cpu() && cv_filter2d_is_direct(size_, in.shape.dtype)) {
    cv::Mat dst = as_mat(out);
    cv::filter2D(as_mat(in), dst, -1, filter2d_kernel_mat(size_, dense_), cv::Point(-1, -1), 0,
                 cv::BORDER_REFLECT_101);
    if (clip_ && in.shape.dtype == DType::F32) {
      const int n = out.shape.width * out.shape.channels;
      for (int y = 0; y < out.shape.height; ++y) {
        float* row = dst.ptr<float>(y);
        for (int i = 0; i < n; ++i) row[i] = k::clamp01(row[i]);
      }
    }
    return;
  }
  const k::Filter2DArgs args{ctx.table(offsets_), ctx.table(tap_weights_), static_cast<int>(tap_weights_.size()),
                             clip_ ? 1 : 0};
  with_views(in, out, [&](auto src, auto dst) { k::filter2d(src, dst, args, ctx.exec()); });
}

}  // namespace aug
