#include "kernels/codec/jpeg.hpp"

namespace aug::k {

namespace jpeg_impl {
namespace {

// ---------------------------------------------------------------------------------------------
// libjpeg mode (docs/stages/codec.md#jpeg)

using namespace jpeg;

// One 8x8 block through FDCT, quantisation, dequantisation and IDCT.
AUG_HD void roundtrip_block(const std::uint8_t* src, std::uint8_t* dst, int pitch, const std::uint16_t* q) {
  std::int16_t levels[64];
  forward_block(src, pitch, q, levels);
  inverse_block(levels, q, dst, static_cast<std::size_t>(pitch));
}

// Plane geometry: luma padded to multiples of 8; chroma 4:2:0 planes of 8 ceil(W/16) x 8 ceil(H/16).
struct LibjpegPlanes {
  AUG_FIELDS(LibjpegPlanes, w, h, w8, h8, wc, hc, cw, ch, y, cb, cr, yd, cbd, crd)
  int w, h, w8, h8, wc, hc, cw, ch;  // image; luma plane; chroma plane; real chroma size
  std::uint8_t *y, *cb, *cr, *yd, *cbd, *crd;

  AUG_HD static LibjpegPlanes make(int w, int h, void* scratch) {
    LibjpegPlanes p{w, h, (w + 7) / 8 * 8, (h + 7) / 8 * 8, (w + 15) / 16 * 8, (h + 15) / 16 * 8, (w + 1) / 2, (h + 1) / 2,
                    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    auto* b = static_cast<std::uint8_t*>(scratch);
    const std::size_t luma = static_cast<std::size_t>(p.w8) * p.h8, chroma = static_cast<std::size_t>(p.wc) * p.hc;
    p.y = b;
    p.yd = b + luma;
    p.cb = b + 2 * luma;
    p.cr = p.cb + chroma;
    p.cbd = p.cr + chroma;
    p.crd = p.cbd + chroma;
    return p;
  }
};

template <class T>
struct LumaPlane {  // the luma plane, edges replicated to multiples of 8
  AUG_FIELDS(LumaPlane, in, p)
  View<const T> in;
  LibjpegPlanes p;
  AUG_HD void operator()(int x, int y) const { p.y[static_cast<std::size_t>(y) * p.w8 + x] = padded_luma(in, x, y); }
};

template <class T>
struct ChromaPlanes {  // 2x2 sums with the alternating bias 1, 2; edges replicated (jcsample.c)
  AUG_FIELDS(ChromaPlanes, in, p)
  View<const T> in;
  LibjpegPlanes p;
  AUG_HD void operator()(int j, int r) const {
    int cb, cr;
    downsampled_chroma(in, j, r, cb, cr);
    p.cb[static_cast<std::size_t>(r) * p.wc + j] = static_cast<std::uint8_t>(cb);
    p.cr[static_cast<std::size_t>(r) * p.wc + j] = static_cast<std::uint8_t>(cr);
  }
};

struct Blocks {  // every 8x8 block of the luma plane, then of Cb, then of Cr
  AUG_FIELDS(Blocks, p, q, color)
  LibjpegPlanes p;
  const JpegQuant* q;
  bool color;
  AUG_HD void operator()(std::size_t i) const {
    const std::size_t luma = static_cast<std::size_t>(p.w8 / 8) * (p.h8 / 8);
    const std::size_t chroma = static_cast<std::size_t>(p.wc / 8) * (p.hc / 8);
    if (i < luma) {
      const std::size_t at = (i / (p.w8 / 8)) * 8 * p.w8 + (i % (p.w8 / 8)) * 8;
      roundtrip_block(p.y + at, p.yd + at, p.w8, q->luma);
      return;
    }
    i -= luma;
    const bool is_cr = i >= chroma;
    if (is_cr) i -= chroma;
    const std::size_t at = (i / (p.wc / 8)) * 8 * p.wc + (i % (p.wc / 8)) * 8;
    roundtrip_block((is_cr ? p.cr : p.cb) + at, (is_cr ? p.crd : p.cbd) + at, p.wc, q->chroma);
  }
};

template <class T>
struct Decode {  // upsample, YCbCr -> RGB (jdcolor.c), crop; alpha carried
  AUG_FIELDS(Decode, in, out, p)
  View<const T> in;
  View<T> out;
  LibjpegPlanes p;
  AUG_HD void operator()(int x, int y) const {
    T* d = out.row(y) + x * out.channels;
    const int Y = p.yd[static_cast<std::size_t>(y) * p.w8 + x];
    if (out.channels == 1) {
      d[0] = from_u8<T>(static_cast<std::uint8_t>(Y));
      return;
    }
    const int cb = upsampled(p.cbd, p.wc, p.cw, p.ch, 2, 2, x, y) - 128;
    const int cr = upsampled(p.crd, p.wc, p.cw, p.ch, 2, 2, x, y) - 128;
    std::uint8_t r, g, b;
    ycc_rgb(Y, cb, cr, r, g, b);
    d[0] = from_u8<T>(r);
    d[1] = from_u8<T>(g);
    d[2] = from_u8<T>(b);
    if (out.channels == 4) d[3] = in.row(y)[x * 4 + 3];
  }
};

// ---------------------------------------------------------------------------------------------
// kornia mode (docs/stages/codec.md#jpeg)

template <class T>
struct KorniaYcc {  // padded (edges replicated) RGB -> YCbCr on [0, 255]
  AUG_FIELDS(KorniaYcc, in, p)
  View<const T> in;
  KorniaPlanes p;
  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y < p.h ? y : p.h - 1) + (x < p.w ? x : p.w - 1) * in.channels;
    const std::size_t at = static_cast<std::size_t>(y) * p.wp + x;
    kornia_ycc(to_unit(s[0]), to_unit(s[1]), to_unit(s[2]), p.y[at], p.cb[at], p.cr[at]);
  }
};

struct ChromaBlurX {  // 3-tap Gaussian along x, reflect border
  AUG_FIELDS(ChromaBlurX, p, t)
  KorniaPlanes p;
  const KorniaJpegTables* t;
  AUG_HD void operator()(int x, int y) const {
    const std::size_t row = static_cast<std::size_t>(y) * p.wp;
    const std::size_t l = row + kornia_reflect(x - 1, p.wp), r = row + kornia_reflect(x + 1, p.wp);
    p.tmp_cb[row + x] = kornia_blur3(t->blur, p.cb[l], p.cb[row + x], p.cb[r]);
    p.tmp_cr[row + x] = kornia_blur3(t->blur, p.cr[l], p.cr[row + x], p.cr[r]);
  }
};

struct ChromaHalve {  // the blur along y at the 2x2 block, then bilinear x0.5 = the block's mean
  AUG_FIELDS(ChromaHalve, p, t)
  KorniaPlanes p;
  const KorniaJpegTables* t;
  AUG_HD float blurred(const float* plane, int y, int x) const {
    auto at = [&](int row) { return plane[static_cast<std::size_t>(kornia_reflect(row, p.hp)) * p.wp + x]; };
    return kornia_blur3(t->blur, at(y - 1), at(y), at(y + 1));
  }
  AUG_HD float mean(const float* plane, int i, int j) const {
    return kornia_mean4(blurred(plane, 2 * i, 2 * j), blurred(plane, 2 * i, 2 * j + 1), blurred(plane, 2 * i + 1, 2 * j),
                        blurred(plane, 2 * i + 1, 2 * j + 1));
  }
  AUG_HD void operator()(int j, int i) const {
    const std::size_t at = static_cast<std::size_t>(i) * (p.wp / 2) + j;
    p.cbs[at] = mean(p.tmp_cb, i, j);
    p.crs[at] = mean(p.tmp_cr, i, j);
  }
};

// One 8x8 block in place: DCT, quantisation, dequantisation, IDCT (separable, sums in index order).
AUG_HD void kornia_block(float* f, int pitch, const float* q, const KorniaJpegTables* t) {
  float tmp[8][8], F[8][8];
  for (int x = 0; x < 8; ++x)
    for (int v = 0; v < 8; ++v) {
      float s = 0.f;
      for (int y = 0; y < 8; ++y) s = s + (f[x * pitch + y] - 128.f) * t->basis[y][v];
      tmp[x][v] = s;
    }
  for (int u = 0; u < 8; ++u)
    for (int v = 0; v < 8; ++v) {
      float s = 0.f;
      for (int x = 0; x < 8; ++x) s = s + t->basis[x][u] * tmp[x][v];
      F[u][v] = kornia_quantise(s, t->scale[u][v], q[8 * u + v]);
    }
  for (int x = 0; x < 8; ++x)
    for (int v = 0; v < 8; ++v) {
      float s = 0.f;
      for (int u = 0; u < 8; ++u) s = s + t->basis[x][u] * F[u][v];
      tmp[x][v] = s;
    }
  for (int x = 0; x < 8; ++x)
    for (int y = 0; y < 8; ++y) {
      float s = 0.f;
      for (int v = 0; v < 8; ++v) s = s + t->basis[y][v] * tmp[x][v];
      f[x * pitch + y] = s + 128.f;
    }
}

struct KorniaBlocks {
  AUG_FIELDS(KorniaBlocks, p, t)
  KorniaPlanes p;
  const KorniaJpegTables* t;
  AUG_HD void operator()(std::size_t i) const {
    const std::size_t luma = static_cast<std::size_t>(p.wp / 8) * (p.hp / 8);
    const std::size_t chroma = luma / 4;
    if (i < luma) {
      kornia_block(p.y + (i / (p.wp / 8)) * 8 * p.wp + (i % (p.wp / 8)) * 8, p.wp, t->q_luma, t);
      return;
    }
    i -= luma;
    float* plane = i < chroma ? p.cbs : p.crs;
    if (i >= chroma) i -= chroma;
    const int cw = p.wp / 2;
    kornia_block(plane + (i / (cw / 8)) * 8 * cw + (i % (cw / 8)) * 8, cw, t->q_chroma, t);
  }
};

template <class T>
struct KorniaDecode {  // chroma x2, YCbCr -> RGB on [0, 1], clamp, crop; alpha carried
  AUG_FIELDS(KorniaDecode, in, out, p)
  View<const T> in;
  View<T> out;
  KorniaPlanes p;
  AUG_HD void operator()(int x, int y) const {
    const int cw = p.wp / 2;
    int x0, x1, y0, y1;
    float lx, ly;
    kornia_half_pixel(x, cw, x0, x1, lx);
    kornia_half_pixel(y, p.hp / 2, y0, y1, ly);
    auto up = [&](const float* c) {
      const float* r0 = c + static_cast<std::size_t>(y0) * cw;
      const float* r1 = c + static_cast<std::size_t>(y1) * cw;
      return kornia_bilinear(r0[x0], r0[x1], r1[x0], r1[x1], lx, ly);
    };
    float r, g, b;
    kornia_rgb(p.y[static_cast<std::size_t>(y) * p.wp + x], up(p.cbs), up(p.crs), r, g, b);
    T* d = out.row(y) + x * out.channels;
    d[0] = from_unit<T>(r);
    d[1] = from_unit<T>(g);
    d[2] = from_unit<T>(b);
    if (out.channels == 4) d[3] = in.row(y)[x * 4 + 3];
  }
};

}  // namespace
}  // namespace jpeg_impl

std::size_t jpeg_libjpeg_scratch_bytes(int width, int height) {
  const std::size_t luma = static_cast<std::size_t>((width + 7) / 8 * 8) * ((height + 7) / 8 * 8);
  const std::size_t chroma = static_cast<std::size_t>((width + 15) / 16 * 8) * ((height + 15) / 16 * 8);
  return 2 * luma + 4 * chroma;
}

template <class T>
void jpeg_libjpeg(View<const T> in, View<T> out, const JpegQuant* quant, Scratch& scratch, const Exec& exec) {
  const jpeg_impl::LibjpegPlanes p =
      jpeg_impl::LibjpegPlanes::make(in.width, in.height, scratch.scratch(jpeg_libjpeg_scratch_bytes(in.width, in.height)));
  const bool color = in.channels >= 3;
  for_2d(jpeg_impl::LumaPlane<T>{in, p}, p.w8, p.h8, exec, "jpeg (colour conversion)");
  if (color) for_2d(jpeg_impl::ChromaPlanes<T>{in, p}, p.wc, p.hc, exec, "jpeg (chroma downsampling)");
  const std::size_t blocks = static_cast<std::size_t>(p.w8 / 8) * (p.h8 / 8) +
                             (color ? 2 * static_cast<std::size_t>(p.wc / 8) * (p.hc / 8) : 0);
  for_1d(jpeg_impl::Blocks{p, quant, color}, blocks, exec, "jpeg (DCT, quantisation, IDCT)");
  for_2d(jpeg_impl::Decode<T>{in, out, p}, out.width, out.height, exec, "jpeg (upsampling, colour conversion)");
}

template <class T>
void jpeg_kornia(View<const T> in, View<T> out, const KorniaJpegTables* tables, Scratch& scratch,
                 const Exec& exec) {
  void* planes = scratch.scratch(jpeg_kornia_scratch_bytes(in.width, in.height));
  if (exec.cpu) return cpu::jpeg_kornia(in, out, *tables, planes);
  const KorniaPlanes p = KorniaPlanes::make(in.width, in.height, planes);
  for_2d(jpeg_impl::KorniaYcc<T>{in, p}, p.wp, p.hp, exec, "jpeg kornia (colour conversion)");
  for_2d(jpeg_impl::ChromaBlurX{p, tables}, p.wp, p.hp, exec, "jpeg kornia (chroma blur)");
  for_2d(jpeg_impl::ChromaHalve{p, tables}, p.wp / 2, p.hp / 2, exec, "jpeg kornia (chroma subsampling)");
  const std::size_t blocks = static_cast<std::size_t>(p.wp / 8) * (p.hp / 8) * 3 / 2;
  for_1d(jpeg_impl::KorniaBlocks{p, tables}, blocks, exec, "jpeg kornia (DCT, quantisation, IDCT)");
  for_2d(jpeg_impl::KorniaDecode<T>{in, out, p}, out.width, out.height, exec, "jpeg kornia (upsampling, colour conversion)");
}

#define AUG_INSTANTIATE(T)                                                                                   \
  template void jpeg_libjpeg<T>(View<const T>, View<T>, const JpegQuant*, Scratch&, const Exec&);               \
  template void jpeg_kornia<T>(View<const T>, View<T>, const KorniaJpegTables*, Scratch&, const Exec&);
AUG_INSTANTIATE(std::uint8_t)
AUG_INSTANTIATE(std::uint16_t)
AUG_INSTANTIATE(float)
#undef AUG_INSTANTIATE

}  // namespace aug::k
