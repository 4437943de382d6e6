#include "kernels/codec/jpeg.hpp"

namespace aug::k {

namespace jpeg_impl {
namespace {

// ---------------------------------------------------------------------------------------------
// libjpeg mode (docs/stages/codec.md#jpeg)

using namespace jpeg;

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

// Block i of the luma plane, then of Cb, then of Cr: its first sample in the planes before and
// after the round trip, their pitch and its quantisation table.
struct BlockPlace {
  const std::uint8_t* src;
  std::uint8_t* dst;
  int pitch;
  const std::uint16_t* q;
};

AUG_HD BlockPlace block_place(const LibjpegPlanes& p, const JpegQuant& q, std::size_t i) {
  const std::size_t luma = static_cast<std::size_t>(p.w8 / 8) * (p.h8 / 8);
  const std::size_t chroma = static_cast<std::size_t>(p.wc / 8) * (p.hc / 8);
  if (i < luma) {
    const std::size_t at = (i / (p.w8 / 8)) * 8 * p.w8 + (i % (p.w8 / 8)) * 8;
    return {p.y + at, p.yd + at, p.w8, q.luma};
  }
  i -= luma;
  const bool is_cr = i >= chroma;
  if (is_cr) i -= chroma;
  const std::size_t at = (i / (p.wc / 8)) * 8 * p.wc + (i % (p.wc / 8)) * 8;
  return {(is_cr ? p.cr : p.cb) + at, (is_cr ? p.crd : p.cbd) + at, p.wc, q.chroma};
}

// Every block through FDCT, quantisation, dequantisation and IDCT (forward_block then
// inverse_block) in three launches of 8 threads per block, 8 values each, through an int32
// workspace of 64 per block: the FDCT's row pass; its column pass, quantisation, dequantisation
// and the IDCT's column pass (a column stays a column); the IDCT's row pass and range limit.
struct BlockRows {
  AUG_FIELDS(BlockRows, p, q, ws)
  LibjpegPlanes p;
  const JpegQuant* q;
  std::int32_t* ws;
  AUG_HD void operator()(std::size_t t) const {
    const std::size_t i = t / 8;
    const int r = static_cast<int>(t % 8);
    const BlockPlace b = block_place(p, *q, i);
    std::int32_t d[8];
    AUG_UNROLL
    for (int k = 0; k < 8; ++k) d[k] = static_cast<std::int32_t>(b.src[r * b.pitch + k]) - 128;
    fdct_1d(d, 1, true);
    AUG_UNROLL
    for (int k = 0; k < 8; ++k) ws[i * 64 + 8 * r + k] = d[k];
  }
};

struct BlockColumns {
  AUG_FIELDS(BlockColumns, p, q, ws)
  LibjpegPlanes p;
  const JpegQuant* q;
  std::int32_t* ws;
  AUG_HD void operator()(std::size_t t) const {
    const std::size_t i = t / 8;
    const int col = static_cast<int>(t % 8);
    const BlockPlace b = block_place(p, *q, i);
    std::int32_t d[8];
    AUG_UNROLL
    for (int r = 0; r < 8; ++r) d[r] = ws[i * 64 + 8 * r + col];
    fdct_1d(d, 1, false);
    AUG_UNROLL
    for (int r = 0; r < 8; ++r) {
      const std::int32_t qk = b.q[8 * r + col];
      d[r] = static_cast<std::int32_t>(static_cast<std::int16_t>(quantise(d[r], qk))) * qk;
    }
    std::int64_t out[8];
    idct_1d(d, 1, kConstBits - kPass1Bits, out);
    AUG_UNROLL
    for (int r = 0; r < 8; ++r) ws[i * 64 + 8 * r + col] = static_cast<std::int32_t>(out[r]);
  }
};

struct BlockRowsBack {
  AUG_FIELDS(BlockRowsBack, p, q, ws)
  LibjpegPlanes p;
  const JpegQuant* q;
  const std::int32_t* ws;
  AUG_HD void operator()(std::size_t t) const {
    const std::size_t i = t / 8;
    const int r = static_cast<int>(t % 8);
    const BlockPlace b = block_place(p, *q, i);
    std::int64_t out[8];
    idct_1d(ws + i * 64 + 8 * r, 1, kConstBits + kPass1Bits + 3, out);
    AUG_UNROLL
    for (int k = 0; k < 8; ++k) b.dst[r * b.pitch + k] = range_limit(out[k]);
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

// Every block of Y, then Cb, then Cr (subsampled), in place: its first sample, pitch and quantiser.
struct KorniaPlace {
  float* f;
  int pitch;
  const float* q;
};

AUG_HD KorniaPlace kornia_place(const KorniaPlanes& p, const KorniaJpegTables& t, std::size_t i) {
  const std::size_t luma = static_cast<std::size_t>(p.wp / 8) * (p.hp / 8);
  const std::size_t chroma = luma / 4;
  if (i < luma) return {p.y + (i / (p.wp / 8)) * 8 * p.wp + (i % (p.wp / 8)) * 8, p.wp, t.q_luma};
  i -= luma;
  float* plane = i < chroma ? p.cbs : p.crs;
  if (i >= chroma) i -= chroma;
  const int cw = p.wp / 2;
  return {plane + (i / (cw / 8)) * 8 * cw + (i % (cw / 8)) * 8, cw, t.q_chroma};
}

// A block f (rows x, columns y) through the DCT with the basis B, quantisation and back, in four
// passes of sums in binary32, each in index order:
//   1. tmp[x][v] = sum_y (f[x][y] - 128) B[y][v]      (row x of f)
//   2. F[u][v]   = quantise(sum_x B[x][u] tmp[x][v])  (column v of tmp)
//   3. tmp[x][v] = sum_u B[x][u] F[u][v]              (column v of F)
//   4. f[x][y]   = sum_v B[y][v] tmp[x][v] + 128      (row x of tmp)
// in three launches of 8 threads per block, through a workspace of 64 floats per block: one per
// row (1), one per column (2 and 3), one per row (4). The CPU backend runs the same sums
// (kernels/codec/jpeg_cpu.cpp).
struct KorniaRows {  // pass 1
  AUG_FIELDS(KorniaRows, p, t, ws)
  KorniaPlanes p;
  const KorniaJpegTables* t;
  float* ws;
  AUG_HD void operator()(std::size_t k) const {
    const std::size_t i = k / 8;
    const int x = static_cast<int>(k % 8);
    const KorniaPlace b = kornia_place(p, *t, i);
    float f[8];
    AUG_UNROLL
    for (int y = 0; y < 8; ++y) f[y] = b.f[x * b.pitch + y] - 128.f;
    AUG_UNROLL
    for (int v = 0; v < 8; ++v) {
      float s = 0.f;
      AUG_UNROLL
      for (int y = 0; y < 8; ++y) s = s + f[y] * t->basis[y][v];
      ws[i * 64 + 8 * x + v] = s;
    }
  }
};

struct KorniaColumns {  // passes 2 and 3
  AUG_FIELDS(KorniaColumns, p, t, ws)
  KorniaPlanes p;
  const KorniaJpegTables* t;
  float* ws;
  AUG_HD void operator()(std::size_t k) const {
    const std::size_t i = k / 8;
    const int v = static_cast<int>(k % 8);
    const KorniaPlace b = kornia_place(p, *t, i);
    float tmp[8], F[8];
    AUG_UNROLL
    for (int x = 0; x < 8; ++x) tmp[x] = ws[i * 64 + 8 * x + v];
    AUG_UNROLL
    for (int u = 0; u < 8; ++u) {
      float s = 0.f;
      AUG_UNROLL
      for (int x = 0; x < 8; ++x) s = s + t->basis[x][u] * tmp[x];
      F[u] = kornia_quantise(s, t->scale[u][v], b.q[8 * u + v]);
    }
    AUG_UNROLL
    for (int x = 0; x < 8; ++x) {
      float s = 0.f;
      AUG_UNROLL
      for (int u = 0; u < 8; ++u) s = s + t->basis[x][u] * F[u];
      ws[i * 64 + 8 * x + v] = s;
    }
  }
};

struct KorniaRowsBack {  // pass 4
  AUG_FIELDS(KorniaRowsBack, p, t, ws)
  KorniaPlanes p;
  const KorniaJpegTables* t;
  const float* ws;
  AUG_HD void operator()(std::size_t k) const {
    const std::size_t i = k / 8;
    const int x = static_cast<int>(k % 8);
    const KorniaPlace b = kornia_place(p, *t, i);
    float tmp[8];
    AUG_UNROLL
    for (int v = 0; v < 8; ++v) tmp[v] = ws[i * 64 + 8 * x + v];
    AUG_UNROLL
    for (int y = 0; y < 8; ++y) {
      float s = 0.f;
      AUG_UNROLL
      for (int v = 0; v < 8; ++v) s = s + t->basis[y][v] * tmp[v];
      b.f[x * b.pitch + y] = s + 128.f;
    }
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

// The bytes of the planes (LibjpegPlanes::make); the blocks' int32 workspace follows them.
std::size_t libjpeg_planes_bytes(int width, int height) {
  const std::size_t luma = static_cast<std::size_t>((width + 7) / 8 * 8) * ((height + 7) / 8 * 8);
  const std::size_t chroma = static_cast<std::size_t>((width + 15) / 16 * 8) * ((height + 15) / 16 * 8);
  return (2 * luma + 4 * chroma + 255) / 256 * 256;
}

}  // namespace
}  // namespace jpeg_impl

std::size_t jpeg_libjpeg_scratch_bytes(int width, int height) {
  const std::size_t planes = jpeg_impl::libjpeg_planes_bytes(width, height);
  return planes + planes / 2 * sizeof(std::int32_t);  // a workspace value per source sample
}

template <class T>
void jpeg_libjpeg(View<const T> in, View<T> out, const JpegQuant* quant, Scratch& scratch, const Exec& exec) {
  auto* base = static_cast<unsigned char*>(scratch.scratch(jpeg_libjpeg_scratch_bytes(in.width, in.height)));
  const jpeg_impl::LibjpegPlanes p = jpeg_impl::LibjpegPlanes::make(in.width, in.height, base);
  auto* ws = reinterpret_cast<std::int32_t*>(base + jpeg_impl::libjpeg_planes_bytes(in.width, in.height));
  const bool color = in.channels >= 3;
  for_2d(jpeg_impl::LumaPlane<T>{in, p}, p.w8, p.h8, exec, "jpeg (colour conversion)");
  if (color) for_2d(jpeg_impl::ChromaPlanes<T>{in, p}, p.wc, p.hc, exec, "jpeg (chroma downsampling)");
  const std::size_t blocks = static_cast<std::size_t>(p.w8 / 8) * (p.h8 / 8) +
                             (color ? 2 * static_cast<std::size_t>(p.wc / 8) * (p.hc / 8) : 0);
  for_1d(jpeg_impl::BlockRows{p, quant, ws}, blocks * 8, exec, "jpeg (FDCT rows)");
  for_1d(jpeg_impl::BlockColumns{p, quant, ws}, blocks * 8, exec, "jpeg (FDCT columns, quantisation, IDCT columns)");
  for_1d(jpeg_impl::BlockRowsBack{p, quant, ws}, blocks * 8, exec, "jpeg (IDCT rows)");
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
  // The blocks' workspace (64 floats a block: 1.5 planes) reuses the full-size chroma planes, which
  // nothing reads after the subsampling.
  float* ws = p.cb;
  for_1d(jpeg_impl::KorniaRows{p, tables, ws}, blocks * 8, exec, "jpeg kornia (DCT rows)");
  for_1d(jpeg_impl::KorniaColumns{p, tables, ws}, blocks * 8, exec, "jpeg kornia (DCT columns, quantisation, IDCT columns)");
  for_1d(jpeg_impl::KorniaRowsBack{p, tables, ws}, blocks * 8, exec, "jpeg kornia (IDCT rows)");
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
