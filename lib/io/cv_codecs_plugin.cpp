// The plugin behind lib/io/cv_codecs.hpp: OpenCV's imgcodecs behind three C entry points, so that
// augment (and the test programs) load libopencv_imgcodecs and its dependencies only when they
// need them. An entry point's name changes with its signature, so that a stale plugin is refused
// by name rather than called wrongly. Nothing here may throw across the boundary.
#include <cstddef>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

extern "C" {

// Builds OpenCV's codec registry (a function-local static) before any thread decodes.
__attribute__((visibility("default"))) void augment_cvcodecs_prepare() {
  try {
    (void)cv::haveImageWriter(".png");
  } catch (...) {
  }
}

// cv::imdecode with its flags (cv::IMREAD_*).
__attribute__((visibility("default"))) bool augment_cvcodecs_imdecode(const unsigned char* data, std::size_t size,
                                                                      int flags, cv::Mat* out) {
  try {
    *out = cv::imdecode(cv::Mat(1, static_cast<int>(size), CV_8U, const_cast<unsigned char*>(data)), flags);
    return !out->empty();
  } catch (...) {
    out->release();
    return false;
  }
}

__attribute__((visibility("default"))) bool augment_cvcodecs_encode(const char* extension, const cv::Mat* image,
                                                                    const int* params, std::size_t count,
                                                                    std::vector<unsigned char>* out) {
  try {
    return cv::imencode(extension, *image, *out, std::vector<int>(params, params + count));
  } catch (...) {
    return false;
  }
}

}  // extern "C"
