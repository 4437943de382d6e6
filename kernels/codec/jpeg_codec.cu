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

struct InverseBlocks {  // dequantisation and islow IDCT of every block of every component
  AUG_FIELDS(InverseBlocks, l, coef, tables, planes)
  JpegLayout l;
  const std::int16_t* coef;
  const JpegTables* tables;
  Planes planes;
  AUG_HD void operator()(std::size_t i) const {
    const BlockAt b = block_at(l, i);
    const JpegComponent& c = l.comp[b.c];
    const std::size_t pitch = static_cast<std::size_t>(c.blocks_w) * 8;
    const std::int16_t* levels = coef + c.offset + (static_cast<std::size_t>(b.by) * c.blocks_w + b.bx) * 64;
    inverse_block(levels, tables->q[b.c], planes.plane(b.c) + static_cast<std::size_t>(b.by) * 8 * pitch + b.bx * 8,
                  pitch);
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

struct ForwardBlocks {  // colour conversion, padding, downsampling, FDCT and quantisation per block
  AUG_FIELDS(ForwardBlocks, in, l, tables, coef)
  View<const std::uint8_t> in;
  JpegLayout l;
  const JpegTables* tables;
  std::int16_t* coef;
  AUG_HD void operator()(std::size_t i) const {
    const BlockAt b = block_at(l, i);
    const JpegComponent& c = l.comp[b.c];
    std::uint8_t s[64];
    for (int r = 0; r < 8; ++r)
      for (int k = 0; k < 8; ++k) {
        const int x = b.bx * 8 + k, y = b.by * 8 + r;
        if (b.c == 0) {
          s[8 * r + k] = padded_luma(in, x, y);
        } else {
          int cb, cr;
          downsampled_chroma(in, x, y, cb, cr);
          s[8 * r + k] = static_cast<std::uint8_t>(b.c == 1 ? cb : cr);
        }
      }
    forward_block(s, 8, tables->q[b.c], coef + c.offset + (static_cast<std::size_t>(b.by) * c.blocks_w + b.bx) * 64);
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

std::size_t jpeg_reconstruct_scratch_bytes(const JpegLayout& layout) { return layout.blocks() * 64; }

void jpeg_reconstruct(const JpegLayout& layout, const std::int16_t* coefficients, const JpegTables* tables,
                      View<std::uint8_t> out, Scratch& scratch, const Exec& exec) {
  if (out.width != layout.width || out.height != layout.height || out.channels != (layout.components == 1 ? 1 : 3))
    throw KernelError("jpeg_reconstruct: the output does not match the coefficients' image");
  const jpeg_codec_impl::Planes planes = jpeg_codec_impl::planes_in(layout, scratch.scratch(jpeg_reconstruct_scratch_bytes(layout)));
  for_1d(jpeg_codec_impl::InverseBlocks{layout, coefficients, tables, planes}, layout.blocks(), exec, "jpeg decode (IDCT)");
  for_2d(jpeg_codec_impl::ToPixels{layout, planes, out}, out.width, out.height, exec, "jpeg decode (upsampling, colour conversion)");
}

void jpeg_transform(View<const std::uint8_t> in, const JpegLayout& layout, const JpegTables* tables,
                    std::int16_t* coefficients, const Exec& exec) {
  if (in.width != layout.width || in.height != layout.height || (in.channels != 1 && in.channels != 3) ||
      layout.components != (in.channels == 1 ? 1 : 3))
    throw KernelError("jpeg_transform: the image does not match the layout");
  for_1d(jpeg_codec_impl::ForwardBlocks{in, layout, tables, coefficients}, layout.blocks(), exec, "jpeg encode (FDCT, quantisation)");
}

}  // namespace aug::k
