// The pixel half of a JPEG codec on the device, with libjpeg-turbo's integer arithmetic
// (kernels/codec/jpeg_arith.hpp; docs/arithmetic.md#jpeg-on-the-device). The entropy coding, the
// lossless half, stays with libjpeg on the host:
//  - jpeg_reconstruct: quantised DCT coefficients (what jpeg_read_coefficients gives) to the
//    pixels libjpeg-turbo decodes (dequantisation, islow IDCT, fancy upsampling, YCbCr -> RGB);
//  - jpeg_transform: pixels to the quantised coefficients libjpeg-turbo's encoder entropy-codes
//    (RGB -> YCbCr, 4:2:0 downsampling with its edge padding, islow FDCT, quantisation).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/fields.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// One component of a JPEG image: its blocks and the real size of its (downsampled) plane.
struct JpegComponent {
  AUG_FIELDS(JpegComponent, hx, vx, width, height, blocks_w, blocks_h, offset)
  int hx = 1, vx = 1;           // upsampling factor to full resolution, 1 or 2 each way
  int width = 0, height = 0;    // real samples: ceil(image size / factor)
  int blocks_w = 0, blocks_h = 0;
  std::size_t offset = 0;       // its first coefficient in the coefficient array
};

// The coefficients of an image: per component, blocks_h rows of blocks_w blocks of 64 int16
// in natural (row-major) order, components one after another.
struct JpegLayout {
  AUG_FIELDS(JpegLayout, width, height, components, comp)
  int width = 0, height = 0;
  int components = 0;  // 1 (gray) or 3 (YCbCr)
  JpegComponent comp[3];

  std::size_t blocks() const {
    std::size_t n = 0;
    for (int c = 0; c < components; ++c) n += static_cast<std::size_t>(comp[c].blocks_w) * comp[c].blocks_h;
    return n;
  }
  std::size_t coefficients() const { return blocks() * 64; }
};

// The layout libjpeg's encoder gives an image with jpeg_set_defaults: gray, or YCbCr 4:2:0.
JpegLayout jpeg_encoder_layout(int width, int height, int channels);

// Quantisation tables of components 0..2, natural order.
struct JpegTables {
  std::uint16_t q[3][64];
};

std::size_t jpeg_reconstruct_scratch_bytes(const JpegLayout& layout);

// `coefficients` and `tables` on the executing device; `out` 8-bit with 1 channel (1 component)
// or 3 (RGB), layout.width x layout.height.
void jpeg_reconstruct(const JpegLayout& layout, const std::int16_t* coefficients, const JpegTables* tables,
                      View<std::uint8_t> out, Scratch& scratch, const Exec& exec);

// `in` 8-bit gray or RGB; `layout` = jpeg_encoder_layout(in); `coefficients` holds
// layout.coefficients() values on the executing device.
void jpeg_transform(View<const std::uint8_t> in, const JpegLayout& layout, const JpegTables* tables,
                    std::int16_t* coefficients, Scratch& scratch, const Exec& exec);

}  // namespace aug::k
