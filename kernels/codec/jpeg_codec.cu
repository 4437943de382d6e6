#include "kernels/codec/jpeg_codec.hpp"

#include "kernels/codec/jpeg_arith.hpp"

namespace aug::k {

namespace jpeg_codec_impl {
namespace {

using namespace jpeg;

// Which component and block a flat block index names.
struct BlockAt {
  int c;
  int bx, by;
};

AUG_HD BlockAt block_at(const JpegLayout& l, std::size_t i) {
  int c = 0;
  for (; c < l.components - 1; ++c) {
    const std::size_t n = static_cast<std::size_t>(l.comp[c].blocks_w) * l.comp[c].blocks_h;
    if (i < n) break;
    i -= n;
  }
  return {c, static_cast<int>(i % l.comp[c].blocks_w), static_cast<int>(i / l.comp[c].blocks_w)};
}

// Decoded component planes in scratch: component c is blocks_w * 8 samples wide, one after another.
struct Planes {
  AUG_FIELDS(Planes, base, start)
  std::uint8_t* base;
  std::size_t start[3];
  AUG_HD std::uint8_t* plane(int c) const { return base + start[c]; }
};

// The islow IDCT of every block in two launches, one thread per column and then one per row of
// each block, 8 values each (one thread per block held 64 values and a workspace of 64 in local
// memory): the same operations as inverse_block, the column pass's results kept in an int32
// workspace.
struct InverseColumns {  // dequantisation and the column pass of column t % 8 of block t / 8
  AUG_FIELDS(InverseColumns, l, coef, tables, ws)
  JpegLayout l;
  const std::int16_t* coef;
  const JpegTables* tables;
  std::int32_t* ws;  // 64 values per block, natural order
  AUG_HD void operator()(std::size_t t) const {
    const std::size_t i = t / 8;
    const int col = static_cast<int>(t % 8);
    const BlockAt b = block_at(l, i);
    const JpegComponent& c = l.comp[b.c];
    const std::int16_t* levels = coef + c.offset + (static_cast<std::size_t>(b.by) * c.blocks_w + b.bx) * 64;
    const std::uint16_t* q = tables->q[b.c];
    std::int32_t in[8];
    AUG_UNROLL
    for (int r = 0; r < 8; ++r)
      in[r] = static_cast<std::int32_t>(levels[8 * r + col]) * static_cast<std::int32_t>(q[8 * r + col]);
    std::int64_t out[8];
    idct_1d(in, 1, kConstBits - kPass1Bits, out);
    AUG_UNROLL
    for (int r = 0; r < 8; ++r) ws[i * 64 + 8 * r + col] = static_cast<std::int32_t>(out[r]);
  }
};

struct InverseRows {  // the row pass of row t % 8 of block t / 8, range-limited into its plane
  AUG_FIELDS(InverseRows, l, ws, planes)
  JpegLayout l;
  const std::int32_t* ws;
  Planes planes;
  AUG_HD void operator()(std::size_t t) const {
    const std::size_t i = t / 8;
    const int r = static_cast<int>(t % 8);
    const BlockAt b = block_at(l, i);
    const std::size_t pitch = static_cast<std::size_t>(l.comp[b.c].blocks_w) * 8;
    std::int64_t out[8];
    idct_1d(ws + i * 64 + 8 * r, 1, kConstBits + kPass1Bits + 3, out);
    std::uint8_t* dst = planes.plane(b.c) + (static_cast<std::size_t>(b.by) * 8 + r) * pitch + b.bx * 8;
    AUG_UNROLL
    for (int k = 0; k < 8; ++k) dst[k] = range_limit(out[k]);
  }
};

struct ToPixels {  // upsampling and YCbCr -> RGB, cropped to the image
  AUG_FIELDS(ToPixels, l, planes, out)
  JpegLayout l;
  Planes planes;
  View<std::uint8_t> out;
  AUG_HD int sample(int c, int x, int y) const {
    const JpegComponent& k = l.comp[c];
    return upsampled(planes.plane(c), static_cast<std::size_t>(k.blocks_w) * 8, k.width, k.height, k.hx, k.vx, x, y);
  }
  AUG_HD void operator()(int x, int y) const {
    std::uint8_t* d = out.row(y) + x * out.channels;
    if (l.components == 1) {
      d[0] = static_cast<std::uint8_t>(sample(0, x, y));
      return;
    }
    ycc_rgb(sample(0, x, y), sample(1, x, y) - 128, sample(2, x, y) - 128, d[0], d[1], d[2]);
  }
};

// Encoding, in two launches as decoding: one thread per row of each block takes its 8 samples
// (colour conversion, edge padding, downsampling) through the FDCT's row pass into the workspace,
// then one thread per column does the column pass and quantises: forward_block's operations.
struct ForwardRows {
  AUG_FIELDS(ForwardRows, in, l, ws)
  View<const std::uint8_t> in;
  JpegLayout l;
  std::int32_t* ws;
  AUG_HD void operator()(std::size_t t) const {
    const std::size_t i = t / 8;
    const int r = static_cast<int>(t % 8);
    const BlockAt b = block_at(l, i);
    std::int32_t d[8];
    AUG_UNROLL
    for (int k = 0; k < 8; ++k) {
      const int x = b.bx * 8 + k, y = b.by * 8 + r;
      int s;
      if (b.c == 0) {
        s = padded_luma(in, x, y);
      } else {
        int cb, cr;
        downsampled_chroma(in, x, y, cb, cr);
        s = static_cast<std::uint8_t>(b.c == 1 ? cb : cr);
      }
      d[k] = s - 128;
    }
    fdct_1d(d, 1, true);
    AUG_UNROLL
    for (int k = 0; k < 8; ++k) ws[i * 64 + 8 * r + k] = d[k];
  }
};

struct ForwardColumns {
  AUG_FIELDS(ForwardColumns, l, tables, ws, coef)
  JpegLayout l;
  const JpegTables* tables;
  const std::int32_t* ws;
  std::int16_t* coef;
  AUG_HD void operator()(std::size_t t) const {
    const std::size_t i = t / 8;
    const int col = static_cast<int>(t % 8);
    const BlockAt b = block_at(l, i);
    const JpegComponent& c = l.comp[b.c];
    std::int32_t d[8];
    AUG_UNROLL
    for (int r = 0; r < 8; ++r) d[r] = ws[i * 64 + 8 * r + col];
    fdct_1d(d, 1, false);
    const std::uint16_t* q = tables->q[b.c];
    std::int16_t* levels = coef + c.offset + (static_cast<std::size_t>(b.by) * c.blocks_w + b.bx) * 64;
    AUG_UNROLL
    for (int r = 0; r < 8; ++r) levels[8 * r + col] = static_cast<std::int16_t>(quantise(d[r], q[8 * r + col]));
  }
};

Planes planes_in(const JpegLayout& l, void* scratch) {
  Planes p{static_cast<std::uint8_t*>(scratch), {0, 0, 0}};
  std::size_t at = 0;
  for (int c = 0; c < l.components; ++c) {
    p.start[c] = at;
    at += static_cast<std::size_t>(l.comp[c].blocks_w) * l.comp[c].blocks_h * 64;
  }
  return p;
}

}  // namespace
}  // namespace jpeg_codec_impl

JpegLayout jpeg_encoder_layout(int width, int height, int channels) {
  JpegLayout l;
  l.width = width;
  l.height = height;
  l.components = channels == 1 ? 1 : 3;
  std::size_t offset = 0;
  for (int c = 0; c < l.components; ++c) {
    JpegComponent& k = l.comp[c];
    const int f = c == 0 ? 1 : 2;  // 4:2:0: Y at full resolution, chroma halved both ways
    k.hx = k.vx = f;
    k.width = (width + f - 1) / f;
    k.height = (height + f - 1) / f;
    k.blocks_w = (k.width + 7) / 8;
    k.blocks_h = (k.height + 7) / 8;
    k.offset = offset;
    offset += static_cast<std::size_t>(k.blocks_w) * k.blocks_h * 64;
  }
  return l;
}

// The IDCT's workspace (int32, 64 per block), then the component planes.
std::size_t jpeg_workspace_bytes(const JpegLayout& layout) { return (layout.blocks() * 64 * sizeof(std::int32_t) + 255) / 256 * 256; }
std::size_t jpeg_reconstruct_scratch_bytes(const JpegLayout& layout) { return jpeg_workspace_bytes(layout) + layout.blocks() * 64; }

void jpeg_reconstruct(const JpegLayout& layout, const std::int16_t* coefficients, const JpegTables* tables,
                      View<std::uint8_t> out, Scratch& scratch, const Exec& exec) {
  if (out.width != layout.width || out.height != layout.height || out.channels != (layout.components == 1 ? 1 : 3))
    throw KernelError("jpeg_reconstruct: the output does not match the coefficients' image");
  auto* base = static_cast<unsigned char*>(scratch.scratch(jpeg_reconstruct_scratch_bytes(layout)));
  auto* ws = reinterpret_cast<std::int32_t*>(base);
  const jpeg_codec_impl::Planes planes = jpeg_codec_impl::planes_in(layout, base + jpeg_workspace_bytes(layout));
  for_1d(jpeg_codec_impl::InverseColumns{layout, coefficients, tables, ws}, layout.blocks() * 8, exec,
         "jpeg decode (IDCT columns)");
  for_1d(jpeg_codec_impl::InverseRows{layout, ws, planes}, layout.blocks() * 8, exec, "jpeg decode (IDCT rows)");
  for_2d(jpeg_codec_impl::ToPixels{layout, planes, out}, out.width, out.height, exec, "jpeg decode (upsampling, colour conversion)");
}

void jpeg_transform(View<const std::uint8_t> in, const JpegLayout& layout, const JpegTables* tables,
                    std::int16_t* coefficients, Scratch& scratch, const Exec& exec) {
  if (in.width != layout.width || in.height != layout.height || (in.channels != 1 && in.channels != 3) ||
      layout.components != (in.channels == 1 ? 1 : 3))
    throw KernelError("jpeg_transform: the image does not match the layout");
  auto* ws = static_cast<std::int32_t*>(scratch.scratch(jpeg_workspace_bytes(layout)));
  for_1d(jpeg_codec_impl::ForwardRows{in, layout, ws}, layout.blocks() * 8, exec, "jpeg encode (FDCT rows)");
  for_1d(jpeg_codec_impl::ForwardColumns{layout, tables, ws, coefficients}, layout.blocks() * 8, exec,
         "jpeg encode (FDCT columns, quantisation)");
}

}  // namespace aug::k
