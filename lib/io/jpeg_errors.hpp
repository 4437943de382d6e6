// libjpeg's error handling as lib/io's JPEG readers and writers use it (jpeg.cpp,
// jpeg_coefficients.cpp). Fatal errors go through error_exit, which must not return: it longjmps
// back to the setjmp in the function that made the call, which holds only trivial locals.
// Warnings are counted: every one in pub.num_warnings, and apart those that mean a truncated file
// and those that mean corrupt data (the first of which is kept as text).
#pragma once

#include <csetjmp>
#include <cstdio>
#include <cstring>

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

}  // namespace aug
