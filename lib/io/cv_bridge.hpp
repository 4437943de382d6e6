// Wrapping images as cv::Mat headers (no copy), for the codecs and the CPU fast paths.
#pragma once

#include <opencv2/core.hpp>

#include "lib/core/image.hpp"

namespace aug {

inline int cv_type(const Shape& s) {
  const int depth = s.dtype == DType::U8 ? CV_8U : (s.dtype == DType::U16 ? CV_16U : CV_32F);
  return CV_MAKETYPE(depth, s.channels);
}

inline cv::Mat as_mat(const ImageRef& r) { return cv::Mat(r.shape.height, r.shape.width, cv_type(r.shape), r.data, r.pitch); }

}  // namespace aug
