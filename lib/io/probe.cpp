#include "lib/io/probe.hpp"

#include <cstring>
#include <string>

#include "lib/core/error.hpp"

namespace aug {

const char* format_name(Format f) {
  switch (f) {
    case Format::Jpeg: return "JPEG";
    case Format::Png: return "PNG";
    case Format::Bmp: return "BMP";
    case Format::Tiff: return "TIFF";
    case Format::Webp: return "WebP";
  }
  return "?";
}

const char* format_extension(Format f) {
  switch (f) {
    case Format::Jpeg: return ".jpg";
    case Format::Png: return ".png";
    case Format::Bmp: return ".bmp";
    case Format::Tiff: return ".tif";
    case Format::Webp: return ".webp";
  }
  return "";
}

namespace {

// Bounds-checked little/big-endian reads over the file bytes.
struct Bytes {
  const std::uint8_t* p;
  std::size_t n;
  bool big = false;

  bool has(std::size_t at, std::size_t len) const { return at <= n && len <= n - at; }
  std::uint32_t u8(std::size_t at) const { return p[at]; }
  std::uint32_t u16(std::size_t at) const {
    return big ? (p[at] << 8 | p[at + 1]) : (p[at] | p[at + 1] << 8);
  }
  std::uint32_t u24(std::size_t at) const {  // little-endian (WebP)
    return p[at] | p[at + 1] << 8 | p[at + 2] << 16;
  }
  std::uint32_t u32(std::size_t at) const {
    return big ? (std::uint32_t(p[at]) << 24 | p[at + 1] << 16 | p[at + 2] << 8 | p[at + 3])
               : (p[at] | p[at + 1] << 8 | p[at + 2] << 16 | std::uint32_t(p[at + 3]) << 24);
  }
  std::uint64_t u64(std::size_t at) const {
    return big ? (std::uint64_t(u32(at)) << 32 | u32(at + 4)) : (u32(at) | std::uint64_t(u32(at + 4)) << 32);
  }
};

[[noreturn]] void bad(const std::string& why) { throw InputError(why); }

// TIFF structure (a TIFF file, or the EXIF block of a JPEG/PNG/WebP): IFD0's width, height and orientation.
struct TiffFields {
  std::uint64_t width = 0, height = 0;
  int orientation = 1;
  bool ok = false;
};

TiffFields read_tiff(const std::uint8_t* data, std::size_t size) {
  TiffFields f;
  Bytes b{data, size};
  if (!b.has(0, 8)) return f;
  if (data[0] == 'I' && data[1] == 'I') b.big = false;
  else if (data[0] == 'M' && data[1] == 'M') b.big = true;
  else return f;
  const std::uint32_t version = b.u16(2);
  const bool bigtiff = version == 43;
  if (version != 42 && !bigtiff) return f;
  std::uint64_t ifd = bigtiff ? (b.has(8, 8) ? b.u64(8) : 0) : b.u32(4);
  const std::size_t count_size = bigtiff ? 8 : 2, entry_size = bigtiff ? 20 : 12, value_at = bigtiff ? 12 : 8;
  if (ifd == 0 || !b.has(ifd, count_size)) return f;
  const std::uint64_t entries = bigtiff ? b.u64(ifd) : b.u16(ifd);
  bool seen_width = false, seen_height = false, seen_orientation = false;
  for (std::uint64_t i = 0; i < entries; ++i) {
    const std::size_t e = ifd + count_size + i * entry_size;
    if (!b.has(e, entry_size)) return f;
    const std::uint32_t tag = b.u16(e), type = b.u16(e + 2);
    // SHORT, LONG, and LONG8, which only BigTIFF has (a classic entry's value field is 4 bytes).
    const std::uint64_t v = type == 3 ? b.u16(e + value_at)
                            : type == 4 ? b.u32(e + value_at)
                            : (type == 16 && bigtiff) ? b.u64(e + value_at) : 0;
    // A repeated tag counts once, the first time, as libtiff reads it (the size a later copy
    // gave would not be the size that is decoded, and --max-pixels would check the wrong one).
    if (tag == 256 && !seen_width) f.width = v, seen_width = true;
    else if (tag == 257 && !seen_height) f.height = v, seen_height = true;
    else if (tag == 274 && !seen_orientation) {
      if (v >= 1 && v <= 8) f.orientation = static_cast<int>(v);
      seen_orientation = true;
    }
  }
  f.ok = true;
  return f;
}

ImageInfo probe_jpeg(const Bytes& b) {
  ImageInfo info{Format::Jpeg};
  std::size_t at = 2;
  while (true) {
    // Markers: 0xFF (fill 0xFF...) code; standalone ones have no length.
    if (!b.has(at, 2)) bad("truncated JPEG header (no frame header before the end of the file)");
    if (b.u8(at) != 0xFF) bad("corrupt JPEG header (expected a marker at byte " + std::to_string(at) + ")");
    std::uint32_t code = b.u8(at + 1);
    while (code == 0xFF) {
      ++at;
      if (!b.has(at, 2)) bad("truncated JPEG header");
      code = b.u8(at + 1);
    }
    at += 2;
    if (code == 0x01 || (code >= 0xD0 && code <= 0xD7)) continue;
    if (code == 0xD9 || code == 0xDA) bad("corrupt JPEG header (no frame header before the image data)");
    Bytes be = b;
    be.big = true;
    if (!b.has(at, 2)) bad("truncated JPEG header");
    const std::size_t len = be.u16(at);
    if (len < 2) bad("corrupt JPEG header (bad segment length)");
    if (!b.has(at, len)) bad("truncated JPEG header");
    const bool sof = (code >= 0xC0 && code <= 0xCF) && code != 0xC4 && code != 0xC8 && code != 0xCC;
    if (code == 0xE1 && len >= 8 && std::memcmp(b.p + at + 2, "Exif\0\0", 6) == 0)
      info.orientation = exif_orientation(b.p + at + 8, len - 8);
    if (sof) {
      if (len < 8) bad("corrupt JPEG frame header");
      info.height = static_cast<int>(be.u16(at + 3));
      info.width = static_cast<int>(be.u16(at + 5));
      if (info.width == 0 || info.height == 0) bad("corrupt JPEG frame header (zero size)");
      info.components = b.u8(at + 7);
      return info;
    }
    at += len;
  }
}

ImageInfo probe_png(const Bytes& b) {
  ImageInfo info{Format::Png};
  Bytes be = b;
  be.big = true;
  if (!b.has(8, 25) || std::memcmp(b.p + 12, "IHDR", 4) != 0) bad("truncated or corrupt PNG header");
  const std::uint32_t w = be.u32(16), h = be.u32(20);
  if (w == 0 || h == 0 || w > 0x7FFFFFFF || h > 0x7FFFFFFF) bad("corrupt PNG header (bad size)");
  info.width = static_cast<int>(std::min<std::uint32_t>(w, 0x7FFFFFFF));
  info.height = static_cast<int>(std::min<std::uint32_t>(h, 0x7FFFFFFF));
  // Walk the chunks for eXIf and a complete structure ending in IEND.
  std::size_t at = 8;
  while (true) {
    if (!b.has(at, 12)) bad("truncated PNG (the file ends inside its chunks, before IEND)");
    const std::uint32_t len = be.u32(at);
    if (len > 0x7FFFFFFF || !b.has(at + 8, std::size_t{len} + 4)) bad("truncated PNG (a chunk runs past the end of the file)");
    if (std::memcmp(b.p + at + 4, "eXIf", 4) == 0) info.orientation = exif_orientation(b.p + at + 8, len);
    if (std::memcmp(b.p + at + 4, "IEND", 4) == 0) return info;
    at += 12 + std::size_t{len};
  }
}

ImageInfo probe_bmp(const Bytes& b) {
  ImageInfo info{Format::Bmp};
  if (!b.has(14, 4)) bad("truncated BMP header");
  const std::uint32_t header = b.u32(14);
  std::int64_t w, h;
  std::uint32_t bpp = 0, compression = 0;
  if (header == 12) {
    if (!b.has(14, 12)) bad("truncated BMP header");
    w = b.u16(18);
    h = b.u16(20);
    bpp = b.u16(24);
  } else if (header >= 40) {
    if (!b.has(14, 40)) bad("truncated BMP header");
    w = static_cast<std::int32_t>(b.u32(18));
    h = static_cast<std::int32_t>(b.u32(22));
    bpp = b.u16(28);
    compression = b.u32(30);
  } else {
    bad("corrupt BMP header");
  }
  if (h < 0) h = -h;
  if (w <= 0 || h <= 0 || w > 0x7FFFFFFF || h > 0x7FFFFFFF) bad("corrupt BMP header (bad size)");
  info.width = static_cast<int>(w);
  info.height = static_cast<int>(h);
  // Uncompressed pixel data must all be there.
  if (compression == 0 && bpp > 0) {
    const std::uint64_t stride = (static_cast<std::uint64_t>(w) * bpp + 31) / 32 * 4;
    const std::uint64_t need = b.u32(10) + stride * static_cast<std::uint64_t>(h);
    if (need > b.n) bad("truncated BMP (pixel data ends early)");
  }
  return info;
}

ImageInfo probe_webp(const Bytes& b) {
  ImageInfo info{Format::Webp};
  if (!b.has(12, 8)) bad("truncated WebP header");
  if (std::uint64_t{b.u32(4)} + 8 > b.n) bad("truncated WebP (the file is shorter than its header says)");
  bool have_size = false;
  std::size_t at = 12;
  while (b.has(at, 8)) {
    const std::uint8_t* tag = b.p + at;
    const std::uint32_t len = b.u32(at + 4);
    const std::size_t data = at + 8;
    if (!b.has(data, len)) bad("truncated WebP (a chunk runs past the end of the file)");
    if (std::memcmp(tag, "VP8X", 4) == 0 && len >= 10) {
      info.width = static_cast<int>(b.u24(data + 4) + 1);
      info.height = static_cast<int>(b.u24(data + 7) + 1);
      have_size = true;
    } else if (std::memcmp(tag, "VP8 ", 4) == 0 && len >= 10 && !have_size) {
      if (b.u8(data + 3) != 0x9D || b.u8(data + 4) != 0x01 || b.u8(data + 5) != 0x2A) bad("corrupt WebP (VP8 frame)");
      info.width = static_cast<int>(b.u16(data + 6) & 0x3FFF);
      info.height = static_cast<int>(b.u16(data + 8) & 0x3FFF);
      have_size = true;
    } else if (std::memcmp(tag, "VP8L", 4) == 0 && len >= 5 && !have_size) {
      if (b.u8(data) != 0x2F) bad("corrupt WebP (VP8L header)");
      const std::uint32_t bits = b.u32(data + 1);
      info.width = static_cast<int>((bits & 0x3FFF) + 1);
      info.height = static_cast<int>(((bits >> 14) & 0x3FFF) + 1);
      have_size = true;
    } else if (std::memcmp(tag, "EXIF", 4) == 0) {
      std::size_t skip = (len >= 6 && std::memcmp(b.p + data, "Exif\0\0", 6) == 0) ? 6 : 0;
      info.orientation = exif_orientation(b.p + data + skip, len - skip);
    }
    at = data + len + (len & 1);
  }
  if (!have_size || info.width <= 0 || info.height <= 0) bad("corrupt WebP (no image size)");
  return info;
}

ImageInfo probe_tiff(const Bytes& b) {
  const TiffFields f = read_tiff(b.p, b.n);
  if (!f.ok || f.width == 0 || f.height == 0) bad("truncated or corrupt TIFF header");
  if (f.width > 0x7FFFFFFF || f.height > 0x7FFFFFFF) bad("corrupt TIFF header (bad size)");
  ImageInfo info{Format::Tiff};
  info.width = static_cast<int>(f.width);
  info.height = static_cast<int>(f.height);
  info.orientation = f.orientation;
  return info;
}

}  // namespace

int exif_orientation(const std::uint8_t* tiff, std::size_t size) {
  const TiffFields f = read_tiff(tiff, size);
  return f.ok ? f.orientation : 1;
}

ImageInfo probe(const std::uint8_t* data, std::size_t size) {
  if (size == 0) bad("empty file");
  const Bytes b{data, size};
  if (b.has(0, 3) && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) return probe_jpeg(b);
  if (b.has(0, 8) && std::memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0) return probe_png(b);
  if (b.has(0, 2) && data[0] == 'B' && data[1] == 'M') return probe_bmp(b);
  if (b.has(0, 12) && std::memcmp(data, "RIFF", 4) == 0 && std::memcmp(data + 8, "WEBP", 4) == 0) return probe_webp(b);
  if (b.has(0, 4) && (std::memcmp(data, "II*\0", 4) == 0 || std::memcmp(data, "MM\0*", 4) == 0 ||
                      std::memcmp(data, "II+\0", 4) == 0 || std::memcmp(data, "MM\0+", 4) == 0))
    return probe_tiff(b);
  bad("not an image (no JPEG, PNG, BMP, TIFF or WebP signature)");
}

}  // namespace aug
