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

// Quantised coefficients in memory an ImageAllocator gives (a GPU backend's pinned buffers, so that
// they are uploaded and downloaded without a copy) or plain memory: held as an image of one 8x8
// block (64 16-bit values) per row.
class CoefficientValues {
 public:
  CoefficientValues() = default;
  CoefficientValues(const CoefficientValues& o) : storage_(o.storage_.clone()), size_(o.size_) {}  // a copy
  CoefficientValues& operator=(const CoefficientValues& o) {
    storage_ = o.storage_.clone();
    size_ = o.size_;
    return *this;
  }
  CoefficientValues(CoefficientValues&&) noexcept = default;
  CoefficientValues& operator=(CoefficientValues&&) noexcept = default;

  std::int16_t* data() { return reinterpret_cast<std::int16_t*>(storage_.data()); }
  const std::int16_t* data() const { return reinterpret_cast<const std::int16_t*>(storage_.data()); }
  std::size_t size() const { return size_; }
  std::int16_t& operator[](std::size_t i) { return data()[i]; }
  std::int16_t operator[](std::size_t i) const { return data()[i]; }
  std::int16_t* begin() { return data(); }
  std::int16_t* end() { return data() + size_; }
  const std::int16_t* begin() const { return data(); }
  const std::int16_t* end() const { return data() + size_; }
  // n values, their contents undefined (new storage each time).
  void resize(std::size_t n, const ImageAllocator& allocate = {}) {
    const int rows = static_cast<int>(n / 64 + (n % 64 != 0));
    storage_ = allocate_image(Shape{64, rows > 0 ? rows : 1, 1, DType::U16}, allocate);
    size_ = n;
  }

 private:
  Image storage_;
  std::size_t size_ = 0;
};

struct JpegCoefficients {
  k::JpegLayout layout;
  k::JpegTables tables;            // of components 0..layout.components-1
  CoefficientValues coefficients;  // layout.coefficients() values
};

// The entropy-decoded coefficients of a JPEG file whose decoding the device reproduces exactly:
// 8-bit samples; gray, or YCbCr with every component at full, half-width, half-height or half
// resolution (4:4:4, 4:2:2, 4:2:0, 4:4:0); baseline or progressive with every scan complete; no
// warning from libjpeg. Anything else (CMYK, RGB without colour transform, 4:1:1 and other
// sampling, 12-bit, truncated or corrupt data) gives nullopt with the reason in `why`: decode it
// with jpeg_decode, which also reports what is wrong with it.
// `allocate`: where the coefficients go (unset: plain memory).
std::optional<JpegCoefficients> read_jpeg_coefficients(const std::uint8_t* data, std::size_t size,
                                                       std::string* why = nullptr, const ImageAllocator& allocate = {});

// For --device-jpeg: the coefficients of an input file whose decode_image result the device
// reconstructs exactly (a JPEG read_jpeg_coefficients takes, within `options`' pixel limit, with no
// EXIF orientation to apply), in options.allocate's memory. nullopt otherwise, with the reason in
// `why` ("" when not a JPEG): decode_image decodes it, or says what is wrong with it.
std::optional<JpegCoefficients> read_jpeg_for_device(const std::uint8_t* data, std::size_t size,
                                                     const DecodeOptions& options, std::string* why);

// The quantisation tables jpeg_set_defaults + jpeg_set_quality(quality, TRUE) give each
// component of a gray (1) or colour (3) image.
k::JpegTables jpeg_quality_tables(int quality, int channels);

// A JPEG file from coefficients in k::jpeg_encoder_layout quantised with
// jpeg_quality_tables(quality): libjpeg's settings as jpeg_encode makes them, the same file.
std::vector<std::uint8_t> write_jpeg_coefficients(const JpegCoefficients& coefficients, int quality);

}  // namespace aug
