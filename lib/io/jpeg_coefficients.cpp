#include "lib/io/jpeg_coefficients.hpp"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <jpeglib.h>
#include <jerror.h>

#include "lib/io/libjpeg.hpp"
#include "lib/io/probe.hpp"

namespace aug {

namespace {

int round_up(int n, int to) { return (n + to - 1) / to * to; }

// What the device path cannot reproduce, or "" when it can (after jpeg_read_header).
const char* unsupported(const jpeg_decompress_struct& d) {
  if (d.data_precision != 8) return "not 8-bit";
  if (d.num_components == 1) return d.jpeg_color_space == JCS_GRAYSCALE ? "" : "one component that is not gray";
  if (d.num_components != 3) return "not gray or YCbCr (CMYK?)";
  if (d.jpeg_color_space != JCS_YCbCr) return "3 components that are not YCbCr";
  for (int c = 0; c < 3; ++c) {
    const int h = d.comp_info[c].h_samp_factor, v = d.comp_info[c].v_samp_factor;
    if ((d.max_h_samp_factor != h && d.max_h_samp_factor != 2 * h) ||
        (d.max_v_samp_factor != v && d.max_v_samp_factor != 2 * v))
      return "chroma sampling other than 4:4:4, 4:2:2, 4:2:0 or 4:4:0";
  }
  return "";
}

struct ReadJob {
  const std::uint8_t* data;
  std::size_t size;
  JpegCoefficients* out;
  const char* why;
  const ImageAllocator* allocate;
};

bool read(jpeg_decompress_struct& d, JpegErrors& e, ReadJob& job) {
  if (setjmp(e.jump)) return false;
  jpeg_mem_src(&d, job.data, static_cast<unsigned long>(job.size));
  jpeg_read_header(&d, TRUE);
  job.why = unsupported(d);
  if (*job.why) return true;
  jvirt_barray_ptr* arrays = ::jpeg_read_coefficients(&d);
  if (d.err->num_warnings) {
    job.why = "libjpeg warned";
    return true;
  }
  if (d.progressive_mode && d.coef_bits)
    for (int c = 0; c < d.num_components; ++c)
      for (int k = 0; k < DCTSIZE2; ++k)
        if (d.coef_bits[c][k] != 0) {
          job.why = "a progressive scan is missing (the decoder would smooth blocks)";
          return true;
        }
  k::JpegLayout& l = job.out->layout;
  l.width = static_cast<int>(d.image_width);
  l.height = static_cast<int>(d.image_height);
  l.components = d.num_components;
  std::size_t offset = 0;
  for (int c = 0; c < l.components; ++c) {
    const jpeg_component_info& info = d.comp_info[c];
    k::JpegComponent& k = l.comp[c];
    k.hx = d.max_h_samp_factor / info.h_samp_factor;
    k.vx = d.max_v_samp_factor / info.v_samp_factor;
    k.width = static_cast<int>(info.downsampled_width);
    k.height = static_cast<int>(info.downsampled_height);
    k.blocks_w = static_cast<int>(info.width_in_blocks);
    k.blocks_h = static_cast<int>(info.height_in_blocks);
    k.offset = offset;
    offset += static_cast<std::size_t>(k.blocks_w) * k.blocks_h * DCTSIZE2;
    if (!info.quant_table) {
      job.why = "a component without a quantisation table";
      return true;
    }
    for (int i = 0; i < DCTSIZE2; ++i) job.out->tables.q[c][i] = info.quant_table->quantval[i];
  }
  job.out->coefficients.resize(offset, *job.allocate);
  for (int c = 0; c < l.components; ++c) {
    const k::JpegComponent& k = l.comp[c];
    std::int16_t* dst = job.out->coefficients.data() + k.offset;
    for (int by = 0; by < k.blocks_h; ++by) {
      JBLOCKARRAY row = (*d.mem->access_virt_barray)(reinterpret_cast<j_common_ptr>(&d), arrays[c],
                                                     static_cast<JDIMENSION>(by), 1, FALSE);
      static_assert(sizeof(JCOEF) == sizeof(std::int16_t));
      std::memcpy(dst + static_cast<std::size_t>(by) * k.blocks_w * DCTSIZE2, row[0],
                  static_cast<std::size_t>(k.blocks_w) * sizeof(JBLOCK));
    }
  }
  jpeg_finish_decompress(&d);
  if (d.err->num_warnings) job.why = "libjpeg warned";
  return true;
}

struct TablesJob {
  int quality, channels;
  k::JpegTables* out;
};

bool tables(JpegCompressor& m, TablesJob& job) {
  jpeg_compress_struct& c = m.c;
  if (setjmp(m.errors.jump)) return false;
  set_jpeg_parameters(c, 16, 16, job.channels, job.quality);
  for (int ci = 0; ci < c.num_components; ++ci) {
    const JQUANT_TBL* t = c.quant_tbl_ptrs[c.comp_info[ci].quant_tbl_no];
    for (int i = 0; i < DCTSIZE2; ++i) job.out->q[ci][i] = t->quantval[i];
  }
  return true;
}

struct WriteJob {
  const JpegCoefficients* in;
  int quality;
};

bool write(JpegCompressor& m, const WriteJob& job) {
  jpeg_compress_struct& c = m.c;
  if (setjmp(m.errors.jump)) return false;
  const k::JpegLayout& l = job.in->layout;
  jpeg_mem_dest(&c, &m.out, &m.size);
  set_jpeg_parameters(c, l.width, l.height, l.components, job.quality);
  if (c.num_components != l.components) ERREXIT(&c, JERR_COMPONENT_COUNT);
  jvirt_barray_ptr arrays[3];
  for (int ci = 0; ci < l.components; ++ci) {
    const jpeg_component_info& info = c.comp_info[ci];
    // Whole MCUs: the encoder itself fills the blocks past the image (jctrans.c, as jccoefct.c).
    arrays[ci] = (*c.mem->request_virt_barray)(
        reinterpret_cast<j_common_ptr>(&c), JPOOL_IMAGE, TRUE,
        static_cast<JDIMENSION>(round_up(l.comp[ci].blocks_w, info.h_samp_factor)),
        static_cast<JDIMENSION>(round_up(l.comp[ci].blocks_h, info.v_samp_factor)),
        static_cast<JDIMENSION>(info.v_samp_factor));
  }
  ::jpeg_write_coefficients(&c, arrays);
  for (int ci = 0; ci < l.components; ++ci) {
    const k::JpegComponent& k = l.comp[ci];
    if (c.comp_info[ci].width_in_blocks != static_cast<JDIMENSION>(k.blocks_w) ||
        c.comp_info[ci].height_in_blocks != static_cast<JDIMENSION>(k.blocks_h))
      ERREXIT(&c, JERR_BAD_DCTSIZE);
    const std::int16_t* src = job.in->coefficients.data() + k.offset;
    for (int by = 0; by < k.blocks_h; ++by) {
      JBLOCKARRAY row = (*c.mem->access_virt_barray)(reinterpret_cast<j_common_ptr>(&c), arrays[ci],
                                                     static_cast<JDIMENSION>(by), 1, TRUE);
      std::memcpy(row[0], src + static_cast<std::size_t>(by) * k.blocks_w * DCTSIZE2,
                  static_cast<std::size_t>(k.blocks_w) * sizeof(JBLOCK));
    }
  }
  jpeg_finish_compress(&c);
  return true;
}

}  // namespace

std::optional<JpegCoefficients> read_jpeg_coefficients(const std::uint8_t* data, std::size_t size, std::string* why,
                                                       const ImageAllocator& allocate) {
  JpegErrors e;
  e.init();
  jpeg_decompress_struct d;
  d.err = &e.pub;
  jpeg_create_decompress(&d);
  JpegCoefficients out;
  ReadJob job{data, size, &out, "", &allocate};
  const bool ok = read(d, e, job);
  jpeg_destroy_decompress(&d);
  if (!ok || *job.why) {
    if (why) *why = ok ? job.why : std::string("libjpeg: ") + e.message;
    return std::nullopt;
  }
  return out;
}

std::optional<JpegCoefficients> read_jpeg_for_device(const std::uint8_t* data, std::size_t size,
                                                     const DecodeOptions& options, std::string* why) {
  why->clear();
  ImageInfo info;
  try {
    info = probe(data, size);
  } catch (const std::exception&) {
    return std::nullopt;  // decode_image says what is wrong
  }
  if (info.format != Format::Jpeg) return std::nullopt;
  if (static_cast<std::uint64_t>(info.width) * static_cast<std::uint64_t>(info.height) > options.max_pixels) {
    *why = "over --max-pixels";
    return std::nullopt;
  }
  if (info.orientation > 1) {
    *why = "an EXIF orientation to apply";
    return std::nullopt;
  }
  return read_jpeg_coefficients(data, size, why, options.allocate);
}

k::JpegTables jpeg_quality_tables(int quality, int channels) {
  JpegCompressor m;
  k::JpegTables out{};
  TablesJob job{quality, channels == 1 ? 1 : 3, &out};
  if (!tables(m, job)) throw std::runtime_error(std::string("JPEG tables: ") + m.errors.message);
  return out;
}

std::vector<std::uint8_t> write_jpeg_coefficients(const JpegCoefficients& coefficients, int quality) {
  if (coefficients.coefficients.size() != coefficients.layout.coefficients())
    throw std::invalid_argument("write_jpeg_coefficients: the coefficients do not fill their layout");
  JpegCompressor m;
  if (!write(m, WriteJob{&coefficients, quality}))
    throw std::runtime_error(std::string("JPEG encoder: ") + m.errors.message);
  return m.bytes();
}

}  // namespace aug
