#include "lib/io/jpeg.hpp"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <jpeglib.h>

#include "lib/core/error.hpp"
#include "lib/io/libjpeg.hpp"

namespace aug {

namespace {

struct DecodeJob {
  const std::uint8_t* data;
  std::size_t size;
  int scale_denominator;
  int x0, y0, x1, y1;  // the region to rebuild; x1 = 0: all
  // Filled by read_header; then the caller allocates and sets `pixels`.
  int width, height, components;
  bool cmyk;
  std::uint8_t* pixels;
  std::size_t pitch;
  std::uint8_t* cmyk_row;  // scratch row for CMYK input
  std::uint8_t* tail_row;  // scratch row for the last row, below a region
};

bool read_header(jpeg_decompress_struct& d, JpegErrors& e, DecodeJob& job) {
  if (setjmp(e.jump)) return false;
  jpeg_mem_src(&d, job.data, static_cast<unsigned long>(job.size));
  jpeg_read_header(&d, TRUE);
  job.cmyk = d.num_components == 4;
  d.out_color_space = d.num_components == 1 ? JCS_GRAYSCALE : (job.cmyk ? JCS_CMYK : JCS_RGB);
  d.dct_method = JDCT_ISLOW;
  d.do_fancy_upsampling = TRUE;
  d.scale_num = 1;
  d.scale_denom = static_cast<unsigned int>(job.scale_denominator);
  jpeg_start_decompress(&d);
  job.width = static_cast<int>(d.output_width);
  job.height = static_cast<int>(d.output_height);
  job.components = d.output_components;
  return true;
}

bool read_pixels(jpeg_decompress_struct& d, JpegErrors& e, DecodeJob& job) {
  if (setjmp(e.jump)) return false;
  // A region: libjpeg-turbo rebuilds whole iMCU columns around it (jpeg_crop_scanline widens the
  // span) and skips the rows above and below without the inverse DCT. Fancy upsampling reads a
  // neighbour on each side, so the span asked for reaches a few pixels past the region: inside it
  // every value is the full decode's (tests/unit/test_io.cpp checks it). A progressive file whose
  // scans leave coefficients unknown (cut short, or never sent) is rebuilt with block smoothing:
  // each block's low frequencies estimated from the DC values of up to two blocks on each side.
  // Cropped, the decoder takes the crop's first column for the image's first, so the crop starts two
  // blocks of the widest kind (two iMCUs) further left; blocks to the right are read in full.
  JDIMENSION x0 = 0, width = d.output_width, y_end = d.output_height;
  if (job.x1 > 0 && !job.cmyk) {
    constexpr int kMargin = 4;
    const int smoothing = d.progressive_mode ? 2 * d.max_h_samp_factor * d.min_DCT_scaled_size : 0;
    const int w = static_cast<int>(d.output_width), h = static_cast<int>(d.output_height);
    const int left = std::max(0, job.x0 - kMargin - smoothing), right = std::min(w, job.x1 + kMargin);
    const int top = std::max(0, job.y0 - kMargin), bottom = std::min(h, job.y1 + kMargin);
    if (left < right && top < bottom) {
      x0 = static_cast<JDIMENSION>(left);
      width = static_cast<JDIMENSION>(right - left);
      if (width < d.output_width) jpeg_crop_scanline(&d, &x0, &width);
      if (top > 0) jpeg_skip_scanlines(&d, static_cast<JDIMENSION>(top));
      y_end = static_cast<JDIMENSION>(bottom);
    }
  }
  const std::size_t px = static_cast<std::size_t>(d.output_components);
  while (d.output_scanline < y_end) {
    std::uint8_t* row = job.pixels + d.output_scanline * job.pitch + x0 * px;
    JSAMPROW target = job.cmyk ? job.cmyk_row : row;
    jpeg_read_scanlines(&d, &target, 1);
    if (job.cmyk) {
      // Adobe files store inverted CMYK: R = C*K/255, G = M*K/255, B = Y*K/255.
      const bool inverted = d.saw_Adobe_marker;
      for (int x = 0; x < job.width; ++x) {
        int c = job.cmyk_row[4 * x], m = job.cmyk_row[4 * x + 1], y = job.cmyk_row[4 * x + 2], k = job.cmyk_row[4 * x + 3];
        if (!inverted) c = 255 - c, m = 255 - m, y = 255 - y, k = 255 - k;
        row[3 * x] = static_cast<std::uint8_t>((c * k + 127) / 255);
        row[3 * x + 1] = static_cast<std::uint8_t>((m * k + 127) / 255);
        row[3 * x + 2] = static_cast<std::uint8_t>((y * k + 127) / 255);
      }
    }
  }
  if (d.output_scanline < d.output_height) {
    // Below the window: entropy-decoded (skipping to the very end would stop reading the file, and
    // a truncated or corrupt tail would go unnoticed), and the last row read for the same reason.
    if (d.output_scanline + 1 < d.output_height) jpeg_skip_scanlines(&d, d.output_height - 1 - d.output_scanline);
    JSAMPROW last = job.tail_row;
    jpeg_read_scanlines(&d, &last, 1);
  }
  jpeg_finish_decompress(&d);
  return true;
}

struct EncodeJob {
  const std::uint8_t* pixels;
  std::size_t pitch;
  int width, height, components, quality;
};

bool write_jpeg(JpegCompressor& m, const EncodeJob& job) {
  jpeg_compress_struct& c = m.c;
  if (setjmp(m.errors.jump)) return false;
  jpeg_mem_dest(&c, &m.out, &m.size);
  set_jpeg_parameters(c, job.width, job.height, job.components, job.quality);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = const_cast<std::uint8_t*>(job.pixels + c.next_scanline * job.pitch);
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  return true;
}

}  // namespace

Image jpeg_decode(const std::uint8_t* data, std::size_t size, const JpegDecodeOptions& options) {
  const int n = options.scale_denominator;
  if (n != 1 && n != 2 && n != 4 && n != 8)
    throw std::invalid_argument("jpeg_decode: scale 1/" + std::to_string(n) + " (1, 2, 4 or 8)");
  JpegErrors e;
  e.init();
  jpeg_decompress_struct d;
  d.err = &e.pub;
  jpeg_create_decompress(&d);
  DecodeJob job{data, size, n, options.x0, options.y0, options.x1, options.y1, 0, 0, 0, false, nullptr, 0, nullptr,
                nullptr};
  Image image;
  std::vector<std::uint8_t> cmyk_row, tail_row;
  bool ok = read_header(d, e, job);
  if (ok) {
    image = allocate_image(Shape{job.width, job.height, job.cmyk ? 3 : job.components, DType::U8}, options.allocate);
    if (options.x1 > 0) std::memset(image.data(), 0, image.pitch() * static_cast<std::size_t>(job.height));
    if (job.cmyk) cmyk_row.resize(static_cast<std::size_t>(job.width) * 4);
    job.pixels = image.data();
    job.pitch = image.pitch();
    job.cmyk_row = cmyk_row.data();
    if (options.x1 > 0) tail_row.resize(static_cast<std::size_t>(job.width) * 4);
    job.tail_row = tail_row.data();
    ok = read_pixels(d, e, job);
  }
  jpeg_destroy_decompress(&d);
  if (!ok) {
    if (e.eof_warnings) throw InputError(std::string("truncated JPEG (") + e.message + ")");
    throw InputError(std::string("corrupt JPEG: ") + e.message);
  }
  if (e.eof_warnings && !options.allow_truncated)
    throw InputError("truncated JPEG (premature end of the file; --allow-truncated accepts it)");
  if (e.corrupt_warnings && !e.eof_warnings) throw InputError(std::string("corrupt JPEG data: ") + e.first_warning);
  return image;
}

std::vector<std::uint8_t> jpeg_encode(const ImageRef& image, int quality) {
  const Shape& s = image.shape;
  if (s.dtype != DType::U8 || (s.channels != 1 && s.channels != 3))
    throw std::invalid_argument("jpeg_encode: needs an 8-bit gray or RGB image, got " + to_string(s));
  JpegCompressor m;
  const EncodeJob job{static_cast<const std::uint8_t*>(image.data), image.pitch, s.width, s.height, s.channels,
                      quality};
  if (!write_jpeg(m, job)) throw std::runtime_error(std::string("JPEG encoder: ") + m.errors.message);
  return m.bytes();
}

void jpeg_roundtrip(const ImageRef& in, int quality, const ImageRef& out) {
  const std::vector<std::uint8_t> bytes = jpeg_encode(in, quality);
  const Image decoded = jpeg_decode(bytes.data(), bytes.size(), {});
  for (int y = 0; y < in.shape.height; ++y)
    std::memcpy(static_cast<std::uint8_t*>(out.data) + y * out.pitch, decoded.row(y), decoded.pitch());
}

std::string jpeg_library_version() {
#ifdef LIBJPEG_TURBO_VERSION_NUMBER
  constexpr int v = LIBJPEG_TURBO_VERSION_NUMBER;  // e.g. 2001005 for 2.1.5
  return "libjpeg-turbo " + std::to_string(v / 1000000) + "." + std::to_string(v / 1000 % 1000) + "." +
         std::to_string(v % 1000);
#else
  return "libjpeg (API " + std::to_string(JPEG_LIB_VERSION) + ")";
#endif
}

}  // namespace aug
