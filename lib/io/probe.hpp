// Reading an image file's header without decoding it: the format (from the magic bytes, not the
// name), the size (so that --max-pixels is enforced before any pixel is decoded) and the EXIF
// orientation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace aug {

enum class Format { Jpeg, Png, Bmp, Tiff, Webp };

const char* format_name(Format f);       // "JPEG", "PNG", ...
const char* format_extension(Format f);  // ".jpg", ".png", ".bmp", ".tif", ".webp"

struct ImageInfo {
  Format format = Format::Jpeg;
  int width = 0;
  int height = 0;
  int orientation = 1;  // EXIF orientation 1..8 (1: as stored)
  int components = 0;   // JPEG: the frame's colour components (1 gray, 3 YCbCr/RGB, 4 CMYK); 0 otherwise
  int shrink = 1;       // set by decode_image: the image was decoded at 1/shrink of its size
};

// Throws InputError: "empty file", "not an image", or a truncated/malformed header.
ImageInfo probe(const std::uint8_t* data, std::size_t size);

// The orientation tag (274) of an EXIF/TIFF block ("II*\0"/"MM\0*"...), 1 when absent or invalid.
int exif_orientation(const std::uint8_t* tiff, std::size_t size);

}  // namespace aug
