// JPEG files as quantised DCT coefficients, through libjpeg-turbo's transcoding API: the lossless
// half of the codec on the host, for the device to do the pixel half (kernels/codec/jpeg_codec.hpp,
// docs/arithmetic.md#jpeg-on-the-device).
//
//   read_jpeg_coefficients(file) + k::jpeg_reconstruct    == jpeg_decode(file), value for value
//   k::jpeg_transform(image) + write_jpeg_coefficients    == jpeg_encode(image, quality), byte for byte
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/codec/jpeg_codec.hpp"
#include "lib/io/codec.hpp"

namespace aug {

struct JpegCoefficients {
  k::JpegLayout layout;
  k::JpegTables tables;                    // of components 0..layout.components-1
  std::vector<std::int16_t> coefficients;  // layout.coefficients() values
};

// The entropy-decoded coefficients of a JPEG file whose decoding the device reproduces exactly:
// 8-bit samples; gray, or YCbCr with every component at full, half-width, half-height or half
// resolution (4:4:4, 4:2:2, 4:2:0, 4:4:0); baseline or progressive with every scan complete; no
// warning from libjpeg. Anything else (CMYK, RGB without colour transform, 4:1:1 and other
// sampling, 12-bit, truncated or corrupt data) gives nullopt with the reason in `why`: decode it
// with jpeg_decode, which also reports what is wrong with it.
std::optional<JpegCoefficients> read_jpeg_coefficients(const std::uint8_t* data, std::size_t size,
                                                       std::string* why = nullptr);

// For --device-jpeg: the coefficients of an input file whose decode_image result the device
// reconstructs exactly (a JPEG read_jpeg_coefficients takes, within `options`' pixel limit, with no
// EXIF orientation to apply). nullopt otherwise, with the reason in `why` ("" when not a JPEG):
// decode_image decodes it, or says what is wrong with it.
std::optional<JpegCoefficients> read_jpeg_for_device(const std::uint8_t* data, std::size_t size,
                                                     const DecodeOptions& options, std::string* why);

// The quantisation tables jpeg_set_defaults + jpeg_set_quality(quality, TRUE) give each
// component of a gray (1) or colour (3) image.
k::JpegTables jpeg_quality_tables(int quality, int channels);

// A JPEG file from coefficients in k::jpeg_encoder_layout quantised with
// jpeg_quality_tables(quality): libjpeg's settings as jpeg_encode makes them, the same file.
std::vector<std::uint8_t> write_jpeg_coefficients(const JpegCoefficients& coefficients, int quality);

}  // namespace aug
