// PNG decoding through libpng directly, so that a broken file yields one message of ours instead
// of libpng's own lines on stderr.
#include "lib/io/png.hpp"

#include <csetjmp>
#include <cstring>
#include <string>

#include <png.h>

#include "lib/core/error.hpp"

namespace aug {

namespace {

struct PngJob {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t pos;
  char message[256];
  // Set by the allocation callback once the header is read.
  Image* image;
  const ImageAllocator* allocate;
};

void on_error(png_structp p, png_const_charp msg) {
  auto* job = static_cast<PngJob*>(png_get_error_ptr(p));
  std::snprintf(job->message, sizeof job->message, "%s", msg);
  png_longjmp(p, 1);
}

void on_warning(png_structp, png_const_charp) {}  // e.g. "iCCP: known incorrect sRGB profile": harmless

void on_read(png_structp p, png_bytep out, png_size_t n) {
  auto* job = static_cast<PngJob*>(png_get_io_ptr(p));
  if (n > job->size - job->pos) png_error(p, "the file ends early");
  std::memcpy(out, job->data + job->pos, n);
  job->pos += n;
}

// Allocates the image in the caller's frame (a normal return, never skipped by a longjmp).
std::uint8_t* allocate(PngJob& job, int width, int height, int channels, int depth) {
  *job.image = allocate_image(Shape{width, height, channels, depth == 16 ? DType::U16 : DType::U8}, *job.allocate);
  return job.image->data();
}

// Only trivial locals: libpng's errors longjmp back here.
bool read_png(PngJob& job) {
  png_structp p = png_create_read_struct(PNG_LIBPNG_VER_STRING, &job, on_error, on_warning);
  if (!p) return false;
  png_infop info = png_create_info_struct(p);
  if (!info || setjmp(png_jmpbuf(p))) {
    png_destroy_read_struct(&p, info ? &info : nullptr, nullptr);
    return false;
  }
  png_set_read_fn(p, &job, on_read);
  png_set_user_limits(p, 0x7FFFFFFF, 0x7FFFFFFF);  // --max-pixels is checked before decoding
  png_read_info(p, info);
  const int color = png_get_color_type(p, info);
  const int depth = png_get_bit_depth(p, info);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(p);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(p);
  if (png_get_valid(p, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(p);
  if (color == PNG_COLOR_TYPE_GRAY_ALPHA ||
      (color == PNG_COLOR_TYPE_GRAY && png_get_valid(p, info, PNG_INFO_tRNS)))
    png_set_gray_to_rgb(p);  // gray + alpha becomes RGBA: channels are 1, 3 or 4
  if (depth == 16) png_set_swap(p);  // host order (little-endian)
  const int passes = png_set_interlace_handling(p);
  png_read_update_info(p, info);
  const int width = static_cast<int>(png_get_image_width(p, info));
  const int height = static_cast<int>(png_get_image_height(p, info));
  const int channels = png_get_channels(p, info);
  const int out_depth = png_get_bit_depth(p, info);
  std::uint8_t* pixels = allocate(job, width, height, channels, out_depth);
  const std::size_t pitch = static_cast<std::size_t>(width) * channels * (out_depth / 8);
  for (int pass = 0; pass < passes; ++pass)
    for (int y = 0; y < height; ++y) png_read_row(p, pixels + y * pitch, nullptr);
  png_read_end(p, nullptr);
  png_destroy_read_struct(&p, &info, nullptr);
  return true;
}

}  // namespace

Image png_decode(const std::uint8_t* data, std::size_t size, const ImageAllocator& allocate) {
  Image image;
  PngJob job{data, size, 0, {}, &image, &allocate};
  if (!read_png(job)) {
    const std::string why = job.message;
    if (why.find("ends early") != std::string::npos || why.find("incomplete") != std::string::npos)
      throw InputError("truncated PNG (" + why + ")");
    throw InputError("corrupt PNG (" + why + ")");
  }
  return image;
}

std::string png_library_version() { return png_get_libpng_ver(nullptr); }

}  // namespace aug
