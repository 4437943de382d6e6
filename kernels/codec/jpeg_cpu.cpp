// The jpeg stage's kornia mode on the host: rows and rows of blocks, the same binary32 operations in the
// same order as the kernels.
#include "kernels/codec/jpeg.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace jpeg_cpu_impl {
namespace {

// Row kernels: each body is written once as a template and cloned for AVX2 through the wrappers.
template <class T>
[[gnu::always_inline]] inline void ycc_body(float* __restrict y, float* __restrict cb, float* __restrict cr,
                                            const T* __restrict s, int w, int wp, int C) {
  for (int x = 0; x < w; ++x) kornia_ycc(to_unit(s[x * C]), to_unit(s[x * C + 1]), to_unit(s[x * C + 2]), y[x], cb[x], cr[x]);
  for (int x = w; x < wp; ++x) {  // the padding replicates the last column
    y[x] = y[w - 1];
    cb[x] = cb[w - 1];
    cr[x] = cr[w - 1];
  }
}
AUG_CLONES void ycc_row(float* y, float* cb, float* cr, const std::uint8_t* s, int w, int wp, int C) {
  ycc_body(y, cb, cr, s, w, wp, C);
}
template <class T>
void ycc_row(float* y, float* cb, float* cr, const T* s, int w, int wp, int C) {
  ycc_body(y, cb, cr, s, w, wp, C);
}

// d[x] = blur3(s[x - 1], s[x], s[x + 1]), reflected at both ends (n >= 2).
AUG_CLONES void blur3_row(float* __restrict d, const float* s, int n, const float* t) {
  d[0] = kornia_blur3(t, s[1], s[0], s[1]);
  for (int x = 1; x < n - 1; ++x) d[x] = kornia_blur3(t, s[x - 1], s[x], s[x + 1]);
  d[n - 1] = kornia_blur3(t, s[n - 2], s[n - 1], s[n - 2]);
}
// d[x] = blur3(a[x], b[x], c[x]): the blur across three rows.
AUG_CLONES void blur3_rows(float* __restrict d, const float* a, const float* b, const float* c, int n, const float* t) {
  for (int x = 0; x < n; ++x) d[x] = kornia_blur3(t, a[x], b[x], c[x]);
}
// d[j] = the mean of the 2x2 block at column 2j of rows a, b.
AUG_CLONES void halve_row(float* __restrict d, const float* a, const float* b, int n) {
  for (int j = 0; j < n; ++j) d[j] = kornia_mean4(a[2 * j], a[2 * j + 1], b[2 * j], b[2 * j + 1]);
}

// A row of 8x8 blocks, each as kernels/codec/jpeg.cu's KorniaRows, KorniaColumns and
// KorniaRowsBack compute it, with each pass as eight sums at once (one per lane) that still add
// their terms in index order.
AUG_CLONES void kornia_block_row(float* f, int pitch, int blocks, const float* q, const KorniaJpegTables& t) {
  f8 basis[8], basis_t[8], scale[8], quant[8];  // rows: basis[y] over v, basis_t[v] over y
  for (int i = 0; i < 8; ++i) {
    load8(basis[i], t.basis[i]);
    load8(scale[i], t.scale[i]);
    load8(quant[i], q + 8 * i);
    for (int j = 0; j < 8; ++j) basis_t[i][j] = t.basis[j][i];
  }
  for (int b = 0; b < blocks; ++b, f += 8) {
    f8 tmp[8], F[8];
    for (int x = 0; x < 8; ++x) {  // tmp[x][v] = sum_y (f[x][y] - 128) basis[y][v]
      f8 a;
      load8(a, f + x * pitch);
      a = a - 128.f;
      f8 s = {};
      for (int y = 0; y < 8; ++y) s = s + a[y] * basis[y];
      tmp[x] = s;
    }
    for (int u = 0; u < 8; ++u) {  // F[u][v] = quantise(sum_x basis[x][u] tmp[x][v])
      f8 s = {};
      for (int x = 0; x < 8; ++x) s = s + t.basis[x][u] * tmp[x];
      for (int v = 0; v < 8; ++v) F[u][v] = kornia_quantise(s[v], scale[u][v], quant[u][v]);
    }
    for (int x = 0; x < 8; ++x) {  // tmp[x][v] = sum_u basis[x][u] F[u][v]
      f8 s = {};
      for (int u = 0; u < 8; ++u) s = s + t.basis[x][u] * F[u];
      tmp[x] = s;
    }
    for (int x = 0; x < 8; ++x) {  // f[x][y] = sum_v basis[y][v] tmp[x][v] + 128
      f8 s = {};
      for (int v = 0; v < 8; ++v) s = s + basis_t[v] * tmp[x][v];
      s = s + 128.f;
      std::memcpy(f + x * pitch, &s, sizeof s);
    }
  }
}

// An output row: the chroma rows upsampled x2 (columns from precomputed taps), YCbCr -> RGB as
// planar values, then interleaved.
struct DecodeRow {
  const float *y, *cb0, *cb1, *cr0, *cr1;  // luma row; the two chroma rows of each plane
  const int *x0, *x1;
  const float* lx;
  float ly;
  float *cb, *cr, *r, *g, *b;  // w floats each
};
AUG_CLONES void upsample_row(float* __restrict d, const float* r0, const float* r1, const int* x0, const int* x1,
                             const float* lx, float ly, int w) {
  for (int x = 0; x < w; ++x) d[x] = kornia_bilinear(r0[x0[x]], r0[x1[x]], r1[x0[x]], r1[x1[x]], lx[x], ly);
}
AUG_CLONES void rgb_row(float* __restrict r, float* __restrict g, float* __restrict b, const float* __restrict y,
                        const float* __restrict cb, const float* __restrict cr, int w) {
  for (int x = 0; x < w; ++x) kornia_rgb(y[x], cb[x], cr[x], r[x], g[x], b[x]);
}
// from_unit's RNE(v * max) for v in [0, 1], kept as floats so that the loop vectorises; the
// integer conversion after it is exact.
AUG_CLONES void scale_round_row(float* v, int n, float max) {
  for (int i = 0; i < n; ++i) v[i] = rne_float(v[i] * max);
}
template <class T>
void decode_row(T* d, const T* in, const DecodeRow& a, int w, int C) {
  upsample_row(a.cb, a.cb0, a.cb1, a.x0, a.x1, a.lx, a.ly, w);
  upsample_row(a.cr, a.cr0, a.cr1, a.x0, a.x1, a.lx, a.ly, w);
  rgb_row(a.r, a.g, a.b, a.y, a.cb, a.cr, w);
  if constexpr (!std::is_same_v<T, float>)
    for (float* v : {a.r, a.g, a.b}) scale_round_row(v, w, static_cast<float>(SampleTraits<T>::max));
  for (int x = 0; x < w; ++x) {
    d[x * C] = static_cast<T>(a.r[x]);
    d[x * C + 1] = static_cast<T>(a.g[x]);
    d[x * C + 2] = static_cast<T>(a.b[x]);
    if (C == 4) d[x * C + 3] = in[x * C + 3];
  }
}

}  // namespace
}  // namespace jpeg_cpu_impl


template <class T>
void jpeg_kornia(View<const T> in, View<T> out, const KorniaJpegTables& t, void* scratch) {
  const KorniaPlanes p = KorniaPlanes::make(in.width, in.height, scratch);
  const int wp = p.wp, hp = p.hp, cw = wp / 2, ch = hp / 2;
  auto row = [](float* plane, int pitch, int y) { return plane + static_cast<std::size_t>(y) * pitch; };
  // Colour conversion, padding rows replicate the last row; the blur along x.
  for (int y = 0; y < hp; ++y) {
    jpeg_cpu_impl::ycc_row(row(p.y, wp, y), row(p.cb, wp, y), row(p.cr, wp, y), in.row(std::min(y, p.h - 1)), p.w, wp, in.channels);
    jpeg_cpu_impl::blur3_row(row(p.tmp_cb, wp, y), row(p.cb, wp, y), wp, t.blur);
    jpeg_cpu_impl::blur3_row(row(p.tmp_cr, wp, y), row(p.cr, wp, y), wp, t.blur);
  }
  // The blur along y and the halving; p.cb and p.cr are free again and hold the blurred rows.
  for (int i = 0; i < ch; ++i)
    for (auto [src, dst] : {std::pair{p.tmp_cb, p.cbs}, std::pair{p.tmp_cr, p.crs}}) {
      float* upper = p.cb;
      float* lower = p.cb + wp;
      for (int k = 0; k < 2; ++k) {
        const int y = 2 * i + k;
        jpeg_cpu_impl::blur3_rows(k == 0 ? upper : lower, row(src, wp, kornia_reflect(y - 1, hp)), row(src, wp, y),
                   row(src, wp, kornia_reflect(y + 1, hp)), wp, t.blur);
      }
      jpeg_cpu_impl::halve_row(row(dst, cw, i), upper, lower, cw);
    }
  // The blocks.
  for (int by = 0; by < hp / 8; ++by) jpeg_cpu_impl::kornia_block_row(row(p.y, wp, 8 * by), wp, wp / 8, t.q_luma, t);
  for (float* plane : {p.cbs, p.crs})
    for (int by = 0; by < ch / 8; ++by) jpeg_cpu_impl::kornia_block_row(row(plane, cw, 8 * by), cw, cw / 8, t.q_chroma, t);
  // Upsampling and back to RGB; the column taps once for the image.
  const auto w = static_cast<std::size_t>(in.width);
  std::vector<int> x0(w), x1(w);
  std::vector<float> lx(w), rows(5 * w);
  for (int x = 0; x < in.width; ++x) kornia_half_pixel(x, cw, x0[x], x1[x], lx[x]);
  for (int y = 0; y < in.height; ++y) {
    int y0, y1;
    float ly;
    kornia_half_pixel(y, ch, y0, y1, ly);
    const jpeg_cpu_impl::DecodeRow r{row(p.y, wp, y), row(p.cbs, cw, y0), row(p.cbs, cw, y1), row(p.crs, cw, y0), row(p.crs, cw, y1),
                      x0.data(), x1.data(), lx.data(), ly, rows.data(), rows.data() + w, rows.data() + 2 * w,
                      rows.data() + 3 * w, rows.data() + 4 * w};
    jpeg_cpu_impl::decode_row(out.row(y), in.row(y), r, in.width, out.channels);
  }
}


template void jpeg_kornia<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const KorniaJpegTables&, void*);
template void jpeg_kornia<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const KorniaJpegTables&, void*);
template void jpeg_kornia<float>(View<const float>, View<float>, const KorniaJpegTables&, void*);

}  // namespace aug::k::cpu
