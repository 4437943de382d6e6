// Mask files: libpng directly for PNG (palette indices and 16-bit values exactly as stored,
// which the image decoder, made for pixels, does not keep), decode_image for other formats.
#include "lib/datasets/masks.hpp"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <utility>

#include <png.h>

#include "lib/core/error.hpp"
#include "lib/io/codec.hpp"
#include "lib/io/files.hpp"

namespace aug::labels {

namespace fs = std::filesystem;

namespace {

const char* const kSingleChannel =
    "a mask must be a single-channel label map (8- or 16-bit gray) or a palette PNG";

bool host_is_little_endian() {
  const std::uint16_t one = 1;
  std::uint8_t first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

// ---- reading --------------------------------------------------------------------------------

struct ReadJob {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t pos;
  char message[256];
  int refused_color;  // >= 0: a colour type that is no label map (no libpng error)
  Mask* mask;
};

void on_error(png_structp p, png_const_charp msg) {
  auto* job = static_cast<ReadJob*>(png_get_error_ptr(p));
  std::snprintf(job->message, sizeof job->message, "%s", msg);
  png_longjmp(p, 1);
}

void on_warning(png_structp, png_const_charp) {}

void on_read(png_structp p, png_bytep out, png_size_t n) {
  auto* job = static_cast<ReadJob*>(png_get_io_ptr(p));
  if (n > job->size - job->pos) png_error(p, "the file ends early");
  std::memcpy(out, job->data + job->pos, n);
  job->pos += n;
}

// Called from read_png with normal returns only: the objects live in the caller's frame.
std::uint8_t* allocate(ReadJob& job, int width, int height, int depth) {
  job.mask->image = Image(Shape{width, height, 1, depth == 16 ? DType::U16 : DType::U8});
  return job.mask->image.data();
}

void keep_palette(ReadJob& job, const png_color* colors, int num_colors, const png_byte* alpha, int num_alpha) {
  Palette palette;
  palette.colors.resize(static_cast<std::size_t>(num_colors));
  for (int i = 0; i < num_colors; ++i) palette.colors[i] = {colors[i].red, colors[i].green, colors[i].blue};
  if (alpha && num_alpha > 0) palette.alpha.assign(alpha, alpha + std::min(num_alpha, num_colors));
  job.mask->palette = std::move(palette);
}

// Only trivial locals: libpng's errors longjmp back here.
bool read_png(ReadJob& job) {
  png_structp p = png_create_read_struct(PNG_LIBPNG_VER_STRING, &job, on_error, on_warning);
  if (!p) {
    std::snprintf(job.message, sizeof job.message, "out of memory");
    return false;
  }
  png_infop info = png_create_info_struct(p);
  if (!info || setjmp(png_jmpbuf(p))) {
    png_destroy_read_struct(&p, info ? &info : nullptr, nullptr);
    return false;
  }
  png_set_read_fn(p, &job, on_read);
  png_set_user_limits(p, 0x7FFFFFFF, 0x7FFFFFFF);
  png_read_info(p, info);
  const int color = png_get_color_type(p, info);
  const int depth = png_get_bit_depth(p, info);
  if (color != PNG_COLOR_TYPE_GRAY && color != PNG_COLOR_TYPE_PALETTE) {
    job.refused_color = color;
    png_destroy_read_struct(&p, &info, nullptr);
    return false;
  }
  if (color == PNG_COLOR_TYPE_PALETTE) {
    png_colorp colors = nullptr;
    int num_colors = 0;
    png_bytep alpha = nullptr;
    int num_alpha = 0;
    png_color_16p unused = nullptr;
    if (png_get_PLTE(p, info, &colors, &num_colors) != PNG_INFO_PLTE) png_error(p, "palette PNG without PLTE");
    if (png_get_valid(p, info, PNG_INFO_tRNS)) png_get_tRNS(p, info, &alpha, &num_alpha, &unused);
    keep_palette(job, colors, num_colors, alpha, num_alpha);
  }
  // Values as stored: 1/2/4-bit samples one per byte, unscaled (indices and class ids, not
  // intensities); no tRNS to alpha, no palette to RGB.
  if (depth < 8) png_set_packing(p);
  if (depth == 16 && host_is_little_endian()) png_set_swap(p);
  const int passes = png_set_interlace_handling(p);
  png_read_update_info(p, info);
  const int width = static_cast<int>(png_get_image_width(p, info));
  const int height = static_cast<int>(png_get_image_height(p, info));
  std::uint8_t* pixels = allocate(job, width, height, depth);
  const std::size_t pitch = static_cast<std::size_t>(width) * (depth == 16 ? 2 : 1);
  for (int pass = 0; pass < passes; ++pass)
    for (int y = 0; y < height; ++y) png_read_row(p, pixels + y * pitch, nullptr);
  png_read_end(p, nullptr);
  png_destroy_read_struct(&p, &info, nullptr);
  return true;
}

const char* color_name(int color) {
  switch (color) {
    case PNG_COLOR_TYPE_RGB: return "RGB";
    case PNG_COLOR_TYPE_RGB_ALPHA: return "RGBA";
    case PNG_COLOR_TYPE_GRAY_ALPHA: return "gray + alpha";
  }
  return "not single-channel";
}

Mask read_png_mask(const fs::path& file, const std::vector<std::uint8_t>& bytes) {
  Mask mask;
  ReadJob job{bytes.data(), bytes.size(), 0, {}, -1, &mask};
  if (!read_png(job)) {
    if (job.refused_color >= 0)
      throw InputError(file.string() + ": " + kSingleChannel + " (this PNG is " + color_name(job.refused_color) +
                       ")");
    const std::string why = job.message;
    if (why.find("ends early") != std::string::npos || why.find("incomplete") != std::string::npos)
      throw InputError(file.string() + ": truncated PNG (" + why + ")");
    throw InputError(file.string() + ": corrupt PNG (" + why + ")");
  }
  return mask;
}

bool is_png(const std::vector<std::uint8_t>& bytes) {
  static const std::uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  return bytes.size() >= 8 && std::memcmp(bytes.data(), sig, 8) == 0;
}

// ---- writing --------------------------------------------------------------------------------

struct WriteJob {
  const Mask* mask;
  std::vector<std::uint8_t>* out;
  char message[256];
};

void on_write_error(png_structp p, png_const_charp msg) {
  auto* job = static_cast<WriteJob*>(png_get_error_ptr(p));
  std::snprintf(job->message, sizeof job->message, "%s", msg);
  png_longjmp(p, 1);
}

// No exception may cross libpng's C frames: a failed append becomes a libpng error.
void on_write(png_structp p, png_bytep data, png_size_t n) {
  auto* job = static_cast<WriteJob*>(png_get_io_ptr(p));
  bool ok = true;
  try {
    job->out->insert(job->out->end(), data, data + n);
  } catch (...) {
    ok = false;
  }
  if (!ok) png_error(p, "out of memory");
}

void on_flush(png_structp) {}

// Only trivial locals: libpng's errors longjmp back here.
bool write_png(WriteJob& job) {
  png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, &job, on_write_error, on_warning);
  if (!p) {
    std::snprintf(job.message, sizeof job.message, "out of memory");
    return false;
  }
  png_infop info = png_create_info_struct(p);
  if (!info || setjmp(png_jmpbuf(p))) {
    png_destroy_write_struct(&p, info ? &info : nullptr);
    return false;
  }
  png_set_write_fn(p, &job, on_write, on_flush);
  const Image& image = job.mask->image;
  const Palette* palette = job.mask->palette ? &*job.mask->palette : nullptr;
  const int depth = image.dtype() == DType::U16 ? 16 : 8;
  png_set_IHDR(p, info, static_cast<png_uint_32>(image.width()), static_cast<png_uint_32>(image.height()), depth,
               palette ? PNG_COLOR_TYPE_PALETTE : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (palette) {
    png_color colors[256];
    const int n = static_cast<int>(palette->colors.size());
    for (int i = 0; i < n; ++i) {
      colors[i].red = palette->colors[i][0];
      colors[i].green = palette->colors[i][1];
      colors[i].blue = palette->colors[i][2];
    }
    png_set_PLTE(p, info, colors, n);
    if (!palette->alpha.empty())
      png_set_tRNS(p, info, palette->alpha.data(), static_cast<int>(palette->alpha.size()), nullptr);
  }
  png_write_info(p, info);
  if (depth == 16 && host_is_little_endian()) png_set_swap(p);
  for (int y = 0; y < image.height(); ++y) png_write_row(p, image.row(y));
  png_write_end(p, nullptr);
  png_destroy_write_struct(&p, &info);
  return true;
}

}  // namespace

Mask read_mask(const fs::path& file) {
  std::vector<std::uint8_t> bytes;
  try {
    bytes = read_file(file);
  } catch (const InputError& e) {
    throw InputError(file.string() + ": " + e.what());
  }
  if (bytes.empty()) throw InputError(file.string() + ": empty file");
  if (is_png(bytes)) return read_png_mask(file, bytes);
  Image image;
  try {
    image = decode_image(bytes.data(), bytes.size(), DecodeOptions{});
  } catch (const InputError& e) {
    throw InputError(file.string() + ": " + e.what());
  }
  if (image.channels() != 1 || image.dtype() == DType::F32)
    throw InputError(file.string() + ": " + kSingleChannel + " (this one is " + to_string(image.shape()) + ")");
  return Mask{std::move(image), std::nullopt};
}

std::vector<std::uint8_t> encode_mask_png(const Mask& mask) {
  const Image& image = mask.image;
  if (image.empty() || image.width() <= 0 || image.height() <= 0) throw InputError("cannot write an empty mask");
  if (image.channels() != 1 || (image.dtype() != DType::U8 && image.dtype() != DType::U16))
    throw InputError(std::string("cannot write a ") + to_string(image.shape()) + " mask: " + kSingleChannel);
  if (mask.palette) {
    const Palette& pal = *mask.palette;
    if (image.dtype() != DType::U8) throw InputError("cannot write a 16-bit mask as a palette PNG");
    if (pal.colors.empty() || pal.colors.size() > 256)
      throw InputError("a PNG palette holds 1 to 256 colours, this one " + std::to_string(pal.colors.size()));
    if (pal.alpha.size() > pal.colors.size())
      throw InputError("the palette has more alpha values (" + std::to_string(pal.alpha.size()) + ") than colours (" +
                       std::to_string(pal.colors.size()) + ")");
    for (int y = 0; y < image.height(); ++y) {
      const std::uint8_t* row = image.row(y);
      for (int x = 0; x < image.width(); ++x)
        if (row[x] >= pal.colors.size())
          throw InputError("mask index " + std::to_string(row[x]) + " at (" + std::to_string(x) + ", " +
                           std::to_string(y) + ") is beyond the palette's " + std::to_string(pal.colors.size()) +
                           " colours");
    }
  }
  std::vector<std::uint8_t> out;
  WriteJob job{&mask, &out, {}};
  if (!write_png(job)) throw InputError(std::string("cannot encode the mask as PNG (") + job.message + ")");
  return out;
}

// ---- the folder -----------------------------------------------------------------------------

namespace {

fs::path beside(const fs::path& root, const std::string& rel, const std::string& suffix) {
  const fs::path r = fs::path(rel).relative_path();  // never escapes root through a leading '/'
  return root / r.parent_path() / (r.stem().string() + suffix);
}

}  // namespace

MaskFolder::MaskFolder(fs::path dir, std::string suffix) : dir_(std::move(dir)), suffix_(std::move(suffix)) {
  std::error_code ec;
  if (!fs::is_directory(dir_, ec)) throw UsageError("--masks " + dir_.string() + ": not a folder");
  if (suffix_.empty()) throw UsageError("the mask suffix is empty (e.g. \".png\" or \"_mask.png\")");
}

fs::path MaskFolder::path_for(const std::string& rel) const { return beside(dir_, rel, suffix_); }

std::optional<fs::path> MaskFolder::find(const std::string& rel) const {
  fs::path path = path_for(rel);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  return path;
}

fs::path MaskFolder::output_path(const fs::path& masks_out, const std::string& out_rel, const std::string& suffix) {
  return beside(masks_out, out_rel, suffix);
}

std::filesystem::path masks_output_folder(const std::filesystem::path& output,
                                          const std::optional<std::filesystem::path>& chosen) {
  if (chosen) return *chosen;
  const std::filesystem::path out = output.lexically_normal();
  const std::filesystem::path name = out.has_filename() ? out.filename() : out.parent_path().filename();
  const std::filesystem::path above = out.has_filename() ? out.parent_path() : out.parent_path().parent_path();
  return above / (name == "images" ? std::filesystem::path("masks") : std::filesystem::path(name.string() + "_masks"));
}

std::filesystem::path mask_output_file(const std::filesystem::path& folder, const std::string& out_rel,
                                       const std::string& suffix) {
  std::string s = suffix;
  const std::filesystem::path ext = std::filesystem::path(s).extension();
  if (!ext.empty() && ext != ".png") s = s.substr(0, s.size() - ext.string().size()) + ".png";
  return MaskFolder::output_path(folder, out_rel, s);
}

}  // namespace aug::labels
