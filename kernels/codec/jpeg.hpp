// The jpeg stage's two arithmetics.
//
// libjpeg: the lossy part of encoding with libjpeg-turbo (YCbCr 4:2:0, integer "islow" DCT, the
// standard tables scaled to a quality, baseline) and decoding it (islow IDCT, fancy upsampling),
// in integer arithmetic: decode(encode(image)) without the lossless entropy coding
// (docs/stages/codec.md#jpeg). 8-bit samples; other types go through to_u8 / from_u8.
//
// kornia: Kornia's differentiable JPEG approximation (docs/stages/codec.md#jpeg) in binary32 on [0, 1]
// images, from host tables (DCT basis, scaled quantisation tables).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/codec/jpeg_arith.hpp"
#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// Quantisation tables in natural (row-major) order, as libjpeg builds them for a quality.
struct JpegQuant {
  std::uint16_t luma[64];
  std::uint16_t chroma[64];
};

// Scratch the libjpeg path needs for a width x height image.
std::size_t jpeg_libjpeg_scratch_bytes(int width, int height);

template <class T>
void jpeg_libjpeg(View<const T> in, View<T> out, const JpegQuant* quant, Scratch& scratch, const Exec& exec);

// Kornia mode tables, all binary32, computed on the host.
struct KorniaJpegTables {
  float basis[8][8];     // cos((2x + 1) u pi / 16) with Kornia's binary32 pi: [x][u]
  float scale[8][8];     // 0.25 alpha(u) alpha(v): [u][v]
  float q_luma[64];      // Q' = dfloor(softclip((QT s + 50) / 100, 1, 255)), natural order
  float q_chroma[64];
  float blur[3];         // the chroma anti-aliasing taps, Gaussian sigma 0.5
};

// The kornia mode's binary32 planes in its scratch: the image padded (edges replicated) to
// multiples of 16 as Y, Cb, Cr on [0, 255]; the chroma after the blur along x; the chroma halved.
struct KorniaPlanes {
  AUG_FIELDS(KorniaPlanes, w, h, wp, hp, y, cb, cr, tmp_cb, tmp_cr, cbs, crs)
  int w, h, wp, hp;
  float *y, *cb, *cr, *tmp_cb, *tmp_cr, *cbs, *crs;

  AUG_HD static std::size_t padded(int n) { return static_cast<std::size_t>((n + 15) / 16 * 16); }
  AUG_HD static std::size_t scratch_bytes(int w, int h) { return padded(w) * padded(h) * 11 / 2 * sizeof(float); }
  AUG_HD static KorniaPlanes make(int w, int h, void* scratch) {
    KorniaPlanes p{w, h, static_cast<int>(padded(w)), static_cast<int>(padded(h)), nullptr, nullptr, nullptr, nullptr,
                   nullptr, nullptr, nullptr};
    auto* f = static_cast<float*>(scratch);
    const std::size_t full = padded(w) * padded(h);
    p.y = f;
    p.cb = f + full;
    p.cr = f + 2 * full;
    p.tmp_cb = f + 3 * full;
    p.tmp_cr = f + 4 * full;
    p.cbs = f + 5 * full;
    p.crs = p.cbs + full / 4;
    return p;
  }
};

inline std::size_t jpeg_kornia_scratch_bytes(int width, int height) { return KorniaPlanes::scratch_bytes(width, height); }

template <class T>
void jpeg_kornia(View<const T> in, View<T> out, const KorniaJpegTables* tables, Scratch& scratch,
                 const Exec& exec);

// ---- kornia mode's arithmetic, shared by the kernels and the CPU driver ----

// RGB on [0, 1] -> Y, Cb, Cr on [0, 255].
AUG_HD void kornia_ycc(float r, float g, float b, float& y, float& cb, float& cr) {
  const float Y = 0.299f * r + 0.587f * g + 0.114f * b;
  y = Y * 255.f;
  cb = ((b - Y) * 0.564f + 0.5f) * 255.f;
  cr = ((r - Y) * 0.713f + 0.5f) * 255.f;
}

// Y, Cb, Cr on [0, 255] -> RGB on [0, 1], clamped.
AUG_HD void kornia_rgb(float y, float cb, float cr, float& r, float& g, float& b) {
  const float Y = y / 255.f, u = cb / 255.f - 0.5f, v = cr / 255.f - 0.5f;
  r = clamp01(Y + 1.403f * v);
  g = clamp01(Y - 0.714f * v - 0.344f * u);
  b = clamp01(Y + 1.773f * u);
}

// Reflection about the first and last sample (n >= 2), for the chroma blur's 3 taps.
AUG_HD int kornia_reflect(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - 2 - i : i); }

// The chroma anti-aliasing blur: taps in order from 0.
AUG_HD float kornia_blur3(const float* t, float a, float b, float c) {
  float v = 0.f;
  v = v + t[0] * a;
  v = v + t[1] * b;
  v = v + t[2] * c;
  return v;
}

// Bilinear x0.5 of a 2x2 block (rows a b, c d): its mean, in PyTorch's order.
AUG_HD float kornia_mean4(float a, float b, float c, float d) {
  return 0.5f * (0.5f * a + 0.5f * b) + 0.5f * (0.5f * c + 0.5f * d);
}

// PyTorch bilinear x2 (half-pixel, align_corners=False): output d reads i0, i1 with weight l1 on
// i1; source d/2 - 0.25, clamped at 0.
AUG_HD void kornia_half_pixel(int d, int n, int& i0, int& i1, float& l1) {
  float s = (static_cast<float>(d) + 0.5f) * 0.5f - 0.5f;
  s = s < 0.f ? 0.f : s;
  i0 = static_cast<int>(s);
  i1 = i0 < n - 1 ? i0 + 1 : i0;
  l1 = s - static_cast<float>(i0);
}

AUG_HD float kornia_bilinear(float a00, float a01, float a10, float a11, float lx, float ly) {
  return (1.f - ly) * ((1.f - lx) * a00 + lx * a01) + ly * ((1.f - lx) * a10 + lx * a11);
}

// Shin et al.'s differentiable rounding, r + (x - r)^3 with r = x rounded half to even.
AUG_HD float kornia_dround(float x) {
  const float r = rne_float(x);
  const float d = x - r;
  return r + d * d * d;
}

// A DCT coefficient s of an 8x8 block through quantisation and back: scale alpha(u) alpha(v) / 4
// and quantiser q.
AUG_HD float kornia_quantise(float s, float scale, float q) {
  const float coef = scale * s;
  return scale * (kornia_dround(coef / q) * q);
}

namespace cpu {  // kornia mode's vectorised host driver; `scratch` holds jpeg_kornia_scratch_bytes
template <class T>
void jpeg_kornia(View<const T> in, View<T> out, const KorniaJpegTables& tables, void* scratch);
}  // namespace cpu

}  // namespace aug::k
