// What lib/io's JPEG readers and writers (jpeg.cpp, jpeg_coefficients.cpp) share of libjpeg: its
// error handling and the compressor every writer uses.
//
// Fatal errors go through error_exit, which must not return: it longjmps back to the setjmp in the
// function that made the call, which holds only trivial locals. Warnings are counted: every one in
// pub.num_warnings, and apart those that mean a truncated file and those that mean corrupt data (the
// first of which is kept as text).
#pragma once

#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <jpeglib.h>
#include <jerror.h>

namespace aug {

struct JpegErrors {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  char first_warning[JMSG_LENGTH_MAX];  // the first corrupt-data warning
  int eof_warnings;
  int corrupt_warnings;

  static void on_error(j_common_ptr c) {
    auto* e = reinterpret_cast<JpegErrors*>(c->err);
    (*c->err->format_message)(c, e->message);
    std::longjmp(e->jump, 1);
  }

  static void on_message(j_common_ptr c, int level) {
    if (level >= 0) return;  // trace messages
    auto* e = reinterpret_cast<JpegErrors*>(c->err);
    switch (c->err->msg_code) {
      case JWRN_JPEG_EOF: ++e->eof_warnings; break;
      case JWRN_ARITH_BAD_CODE:
      case JWRN_BOGUS_PROGRESSION:
      case JWRN_HIT_MARKER:
      case JWRN_HUFF_BAD_CODE:
      case JWRN_MUST_RESYNC:
      case JWRN_NOT_SEQUENTIAL:
        if (e->corrupt_warnings++ == 0) (*c->err->format_message)(c, e->first_warning);
        break;
      default: break;  // benign: extraneous bytes, Adobe transform, JFIF version...
    }
    c->err->num_warnings++;
  }

  // Cleared, with libjpeg's defaults and the two handlers above; point a codec's `err` at `pub`.
  void init() {
    std::memset(this, 0, sizeof *this);
    jpeg_std_error(&pub);
    pub.error_exit = on_error;
    pub.emit_message = on_message;
  }
};

// A compressor with JpegErrors, writing into memory once a writer calls jpeg_mem_dest(&c, &out,
// &size). The writer holds the setjmp and this object lives in its caller, so that a longjmp leaves
// it intact (and the destructor frees what libjpeg allocated).
struct JpegCompressor {
  JpegErrors errors;
  jpeg_compress_struct c;
  unsigned char* out = nullptr;
  unsigned long size = 0;

  JpegCompressor() {
    errors.init();
    c.err = &errors.pub;
    jpeg_create_compress(&c);
  }
  ~JpegCompressor() {
    jpeg_destroy_compress(&c);
    std::free(out);
  }
  JpegCompressor(const JpegCompressor&) = delete;
  JpegCompressor& operator=(const JpegCompressor&) = delete;

  std::vector<std::uint8_t> bytes() const { return {out, out + size}; }
};

// The settings of every JPEG augment writes, as cv::imwrite makes them: jpeg_set_defaults (YCbCr
// 4:2:0, or one gray component; the integer DCT; no optimisation) and jpeg_set_quality(quality,
// force_baseline). Call inside the writer's setjmp.
inline void set_jpeg_parameters(jpeg_compress_struct& c, int width, int height, int channels, int quality) {
  c.image_width = static_cast<JDIMENSION>(width);
  c.image_height = static_cast<JDIMENSION>(height);
  c.input_components = channels;
  c.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, quality, TRUE);
}

}  // namespace aug
