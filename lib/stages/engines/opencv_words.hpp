// The shared vocabulary (engines/vocabulary.hpp) in OpenCV's codes, for the CPU paths that call
// OpenCV and for the stages' counterparts (StageSpec::counterpart).
#pragma once

#include <string>

#include <opencv2/imgproc.hpp>

#include "lib/stages/engines/vocabulary.hpp"

namespace aug {

inline int cv_border(Border b) {
  static constexpr int kCode[] = {cv::BORDER_CONSTANT, cv::BORDER_REPLICATE, cv::BORDER_REFLECT,
                                  cv::BORDER_REFLECT_101, cv::BORDER_WRAP};  // in Border's order
  return kCode[static_cast<int>(b)];
}
inline int cv_border(const std::string& word) { return cv_border(border_words().parse(word)); }

// The warps' interpolations: nearest, bilinear and bicubic.
inline int cv_warp_interpolation(Interp i) {
  return i == Interp::Nearest ? cv::INTER_NEAREST : (i == Interp::Bilinear ? cv::INTER_LINEAR : cv::INTER_CUBIC);
}

// resize's, by word: 8-bit bilinear is INTER_LINEAR_EXACT (the same arithmetic), the others by name.
inline int cv_resize_interpolation(const std::string& word) {
  switch (interp_words().parse(word)) {
    case Interp::Nearest: return cv::INTER_NEAREST;
    case Interp::Bilinear: return cv::INTER_LINEAR_EXACT;
    case Interp::Area: return cv::INTER_AREA;
    case Interp::Lanczos: return cv::INTER_LANCZOS4;
    case Interp::Bicubic: break;
  }
  return cv::INTER_CUBIC;
}

}  // namespace aug
