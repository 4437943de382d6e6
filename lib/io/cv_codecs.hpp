// OpenCV's image codecs (BMP, TIFF and WebP, and PNG encoding), loaded on first use from a small
// plugin, libaugment_cvcodecs.so (lib/io/cv_codecs_plugin.cpp). Linking libopencv_imgcodecs into
// augment itself would load its hundred-odd libraries (GDAL, DICOM, HEIF, codecs) at every start,
// about 80 ms, which is most of a short run; JPEG input and output never need them. It is looked
// for at $AUGMENT_CVCODECS when set, else next to the program, where `cmake --install` puts it
// relative to the program (LIBDIR/augment beside BINDIR: ../lib/augment/ with the default
// directories), in the build tree, then on the loader's path. The debug log names the one loaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

namespace aug::cvcodecs {

// cv::imdecode with `flags` (cv::IMREAD_*; -1 is IMREAD_UNCHANGED); empty when OpenCV cannot
// decode the bytes.
cv::Mat decode(const std::uint8_t* data, std::size_t size, int flags = -1);
// cv::imencode; false when the encoder refuses the image.
bool encode(const std::string& extension, const cv::Mat& image, const std::vector<int>& params,
            std::vector<std::uint8_t>& out);
// Loads the plugin (once, thread-safe) and builds OpenCV's codec registry. Throws
// std::runtime_error naming the places it looked when it cannot be loaded.
void load();

}  // namespace aug::cvcodecs
