// JPEG through libjpeg-turbo directly: decoding that tells truncated and corrupt data apart,
// encoding at a quality with libjpeg's defaults (4:2:0 chroma, integer DCT), and the lossy round
// trip the jpeg stage reproduces (docs/stages/codec.md#jpeg).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/image.hpp"

namespace aug {

struct JpegDecodeOptions {
  bool allow_truncated = false;  // accept "premature end of JPEG file" (the rest is grey)
  // Decode at 1/scale_denominator of the size (1, 2, 4 or 8), in the DCT domain: libjpeg-turbo's
  // scaled inverse DCTs; the size is ceil(width / n) x ceil(height / n).
  int scale_denominator = 1;
  // Decode only the columns [x0, x1) and rows [y0, y1) of the (scaled) image, plus the few around
  // them that make their values those of a full decode; the rest of the image is 0. x1 = 0: all.
  // Rows above and below are entropy-decoded (the file is checked as a whole) but not rebuilt.
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  ImageAllocator allocate;  // where the pixels go (unset: a plain Image)
};

// RGB or gray 8-bit. Throws InputError naming what is wrong (truncated, corrupt data, unsupported).
Image jpeg_decode(const std::uint8_t* data, std::size_t size, const JpegDecodeOptions& options);

// 8-bit gray or RGB; quality 1..100.
std::vector<std::uint8_t> jpeg_encode(const ImageRef& image, int quality);

// decode(encode(in, quality)) into `out` (same shape as `in`: 8-bit, 1 or 3 channels).
void jpeg_roundtrip(const ImageRef& in, int quality, const ImageRef& out);

// The libjpeg-turbo this was built with ("2.1.5"; it has no run-time query), or the libjpeg
// API version when the library is another libjpeg.
std::string jpeg_library_version();

}  // namespace aug
