// libFuzzer target: bytes -> probe -> decode, for every accepted format (JPEG and PNG through
// lib/io's own libjpeg/libpng readers, BMP, TIFF and WebP through OpenCV), plus the EXIF reader.
// A rejected file must be rejected with aug::InputError; anything else is a finding, and so is a
// decoded image that disagrees with the header the size limit (--max-pixels) was checked against,
// whole or shrunk on load, or a region decode that disagrees with the whole decode inside its window.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include <opencv2/core/utility.hpp>
#include <opencv2/core/utils/logger.hpp>

#include "lib/core/error.hpp"
#include "lib/io/codec.hpp"
#include "lib/io/probe.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  cv::setNumThreads(0);
  cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int orientation = aug::exif_orientation(data, size);
  if (orientation < 1 || orientation > 8) __builtin_trap();
  aug::DecodeOptions options;
  options.max_pixels = 1 << 22;  // the fuzzer's memory limit, not a format limit
  for (const bool allow_truncated : {false, true}) {
    options.allow_truncated = allow_truncated;
    try {
      aug::ImageInfo info;
      const aug::Image image = aug::decode_image(data, size, options, &info);
      const bool swapped = info.orientation >= 5;
      const int w = swapped ? info.height : info.width, h = swapped ? info.width : info.height;
      if (image.width() != w || image.height() != h) __builtin_trap();
      if (image.channels() != 1 && image.channels() != 3 && image.channels() != 4) __builtin_trap();
      // Shrink-on-load at 1/n (n from the input's length): JPEGs come out ceil(size / n), the
      // others whole; an accepted file is accepted again.
      const int n = 1 << (size % 4);
      aug::DecodeOptions shrink = options;
      shrink.shrink = [n](const aug::Shape&) { return n; };
      aug::Image small;
      try {
        small = aug::decode_image(data, size, shrink);
      } catch (const aug::InputError&) {
        __builtin_trap();
      }
      const bool scaled = info.format == aug::Format::Jpeg && (info.components == 1 || info.components == 3);
      const int k = scaled ? n : 1;
      if (small.width() != aug::shrunk_size(w, k) || small.height() != aug::shrunk_size(h, k)) __builtin_trap();
      // Region decode of the middle third: accepted too, the same size, the same values inside.
      aug::DecodeOptions middle = options;
      const aug::PixelRect r{w / 3, h / 3, 2 * w / 3 + 1, 2 * h / 3 + 1};
      middle.region = [&r](const aug::Shape&) { return std::optional<aug::PixelRect>(r); };
      aug::Image part;
      try {
        part = aug::decode_image(data, size, middle);
      } catch (const aug::InputError&) {
        __builtin_trap();
      }
      if (!(part.shape() == image.shape())) __builtin_trap();
      // Only JPEG has a region path; other formats decode whole again. OpenCV's TIFF decoder can
      // leave part of a corrupt LZW strip uninitialised, so two decodes of such a file differ:
      // a known defect (docs/decoding.md), not checked here until the TIFF path rejects those files.
      if (info.format != aug::Format::Jpeg) return 0;
      const std::size_t px = static_cast<std::size_t>(image.channels()) * aug::sample_size(image.dtype());
      for (int y = r.y0; y < r.y1 && y < image.height(); ++y)
        if (std::memcmp(part.row(y) + r.x0 * px, image.row(y) + r.x0 * px,
                        static_cast<std::size_t>(std::min(r.x1, image.width()) - r.x0) * px) != 0)
          __builtin_trap();
      return 0;
    } catch (const aug::InputError&) {
      // rejected; try once more accepting truncated files
    }
  }
  return 0;
}
