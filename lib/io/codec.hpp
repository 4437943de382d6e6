// Image files to images and back. Decoding keeps the file's sample type (8-bit, 16-bit, 32-bit
// float), gives gray, RGB or RGBA, and applies the EXIF orientation.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/image.hpp"
#include "lib/io/probe.hpp"

namespace aug {

// A rectangle of pixels: columns [x0, x1), rows [y0, y1).
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool operator==(const PixelRect& o) const { return x0 == o.x0 && y0 == o.y0 && x1 == o.x1 && y1 == o.y1; }
};

struct DecodeOptions {
  bool allow_truncated = false;
  std::uint64_t max_pixels = 100'000'000;
  // Shrink-on-load (JPEG only): given the image's full shape as it will be decoded (EXIF
  // orientation applied), the n in {1, 2, 4, 8} to decode it at 1/n of that size. Unset: full size.
  std::function<int(const Shape& full)> shrink;
  // Region decode (JPEG as stored, without EXIF rotation): given the shape as decoded (after any
  // shrink), the pixels the pipeline will read, [x0, x1) x [y0, y1); only those (and the few
  // around them the codec needs) are rebuilt, the rest of the image is 0. Nothing: all of it.
  std::function<std::optional<PixelRect>(const Shape& decoded)> region;
  // Where the decoded pixels go when the decoder's own buffer is the result (JPEG and PNG without
  // an EXIF rotation): a GPU backend's pinned staging (Backend::input_allocator). Unset: plain.
  ImageAllocator allocate;
};

// A side of n pixels decoded at 1/shrink, as libjpeg sizes it.
constexpr int shrunk_size(int n, int shrink) { return (n + shrink - 1) / shrink; }

// Throws InputError with the reason (empty, not an image, truncated, corrupt, too large...).
// `info`, when given, receives the header's facts and the shrink the image was decoded at.
Image decode_image(const std::uint8_t* data, std::size_t size, const DecodeOptions& options,
                   ImageInfo* info = nullptr);

struct EncodeOptions {
  int quality = 95;  // JPEG and WebP
};

struct Encoded {
  std::vector<std::uint8_t> bytes;
  std::string conversion;  // what had to change to fit the format ("" when nothing), e.g. "16-bit to 8-bit"
};

Encoded encode_image(const Image& image, Format format, const EncodeOptions& options);


// The image libraries whose arithmetic decides output bytes, each as "name version": OpenCV (at
// run time), libjpeg-turbo (built with), libpng (at run time).
std::vector<std::string> codec_library_versions();

// ".jpg"/".JPEG"/... to a format; nullopt for anything else.
std::optional<Format> format_for_extension(const std::string& ext);

// Sample-type conversions used when a format cannot hold an image's type.
Image to_u8(const Image& in);   // u16: RNE(v / 257); f32: RNE(clamp(v, 0, 1) * 255)
Image to_u16(const Image& in);  // f32: RNE(clamp(v, 0, 1) * 65535)
Image to_f32(const Image& in);  // u8: v / 255; u16: v / 65535
Image drop_alpha(const Image& in);

// EXIF orientation 1..8 applied to the pixels.
Image apply_orientation(const Image& in, int orientation);

}  // namespace aug
