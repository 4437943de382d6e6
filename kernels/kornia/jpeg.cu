#include "kernels/kornia/jpeg.hpp"

namespace aug::k {

namespace {

// ---------------------------------------------------------------------------------------------
// libjpeg mode (docs/arithmetic.md#jpeg)

// 13-bit constants of the islow DCTs (jfdctint.c / jidctint.c).
constexpr std::int64_t kF0_298631336 = 2446, kF0_390180644 = 3196, kF0_541196100 = 4433, kF0_765366865 = 6270,
                       kF0_899976223 = 7373, kF1_175875602 = 9633, kF1_501321110 = 12299, kF1_847759065 = 15137,
                       kF1_961570560 = 16069, kF2_053119869 = 16819, kF2_562915447 = 20995, kF3_072711026 = 25172;
constexpr int kConstBits = 13, kPass1Bits = 2;

AUG_HD std::int64_t descale(std::int64_t x, int n) { return (x + (std::int64_t{1} << (n - 1))) >> n; }

// One 8-point forward DCT over d[0], d[step], ... d[7 step] (the LL&M butterfly of jfdctint).
AUG_HD void fdct_1d(std::int32_t* d, int step, bool first_pass) {
  const std::int64_t tmp0 = d[0] + d[7 * step], tmp7 = d[0] - d[7 * step];
  const std::int64_t tmp1 = d[step] + d[6 * step], tmp6 = d[step] - d[6 * step];
  const std::int64_t tmp2 = d[2 * step] + d[5 * step], tmp5 = d[2 * step] - d[5 * step];
  const std::int64_t tmp3 = d[3 * step] + d[4 * step], tmp4 = d[3 * step] - d[4 * step];
  const std::int64_t tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2;
  const int odd_shift = first_pass ? kConstBits - kPass1Bits : kConstBits + kPass1Bits;
  if (first_pass) {
    d[0] = static_cast<std::int32_t>((tmp10 + tmp11) * (1 << kPass1Bits));
    d[4 * step] = static_cast<std::int32_t>((tmp10 - tmp11) * (1 << kPass1Bits));
  } else {
    d[0] = static_cast<std::int32_t>(descale(tmp10 + tmp11, kPass1Bits));
    d[4 * step] = static_cast<std::int32_t>(descale(tmp10 - tmp11, kPass1Bits));
  }
  const std::int64_t z1e = (tmp12 + tmp13) * kF0_541196100;
  d[2 * step] = static_cast<std::int32_t>(descale(z1e + tmp13 * kF0_765366865, odd_shift));
  d[6 * step] = static_cast<std::int32_t>(descale(z1e - tmp12 * kF1_847759065, odd_shift));
  std::int64_t z1 = tmp4 + tmp7, z2 = tmp5 + tmp6, z3 = tmp4 + tmp6, z4 = tmp5 + tmp7;
  const std::int64_t z5 = (z3 + z4) * kF1_175875602;
  const std::int64_t t4 = tmp4 * kF0_298631336, t5 = tmp5 * kF2_053119869, t6 = tmp6 * kF3_072711026,
                     t7 = tmp7 * kF1_501321110;
  z1 *= -kF0_899976223;
  z2 *= -kF2_562915447;
  z3 = z3 * -kF1_961570560 + z5;
  z4 = z4 * -kF0_390180644 + z5;
  d[7 * step] = static_cast<std::int32_t>(descale(t4 + z1 + z3, odd_shift));
  d[5 * step] = static_cast<std::int32_t>(descale(t5 + z2 + z4, odd_shift));
  d[3 * step] = static_cast<std::int32_t>(descale(t6 + z2 + z3, odd_shift));
  d[step] = static_cast<std::int32_t>(descale(t7 + z1 + z4, odd_shift));
}

// The islow IDCT's 8-point pass: the eight descaled outputs of in[0..7 step].
AUG_HD void idct_1d(const std::int32_t* in, int step, int shift, std::int64_t* out) {
  std::int64_t z2 = in[2 * step], z3 = in[6 * step];
  std::int64_t z1 = (z2 + z3) * kF0_541196100;
  const std::int64_t tmp2e = z1 - z3 * kF1_847759065;
  const std::int64_t tmp3e = z1 + z2 * kF0_765366865;
  z2 = in[0];
  z3 = in[4 * step];
  const std::int64_t tmp0e = (z2 + z3) * (std::int64_t{1} << kConstBits);
  const std::int64_t tmp1e = (z2 - z3) * (std::int64_t{1} << kConstBits);
  const std::int64_t tmp10 = tmp0e + tmp3e, tmp13 = tmp0e - tmp3e, tmp11 = tmp1e + tmp2e, tmp12 = tmp1e - tmp2e;
  std::int64_t tmp0 = in[7 * step], tmp1 = in[5 * step], tmp2 = in[3 * step], tmp3 = in[step];
  z1 = tmp0 + tmp3;
  z2 = tmp1 + tmp2;
  z3 = tmp0 + tmp2;
  std::int64_t z4 = tmp1 + tmp3;
  const std::int64_t z5 = (z3 + z4) * kF1_175875602;
  tmp0 *= kF0_298631336;
  tmp1 *= kF2_053119869;
  tmp2 *= kF3_072711026;
  tmp3 *= kF1_501321110;
  z1 *= -kF0_899976223;
  z2 *= -kF2_562915447;
  z3 = z3 * -kF1_961570560 + z5;
  z4 = z4 * -kF0_390180644 + z5;
  tmp0 += z1 + z3;
  tmp1 += z2 + z4;
  tmp2 += z2 + z3;
  tmp3 += z1 + z4;
  out[0] = descale(tmp10 + tmp3, shift);
  out[7] = descale(tmp10 - tmp3, shift);
  out[1] = descale(tmp11 + tmp2, shift);
  out[6] = descale(tmp11 - tmp2, shift);
  out[2] = descale(tmp12 + tmp1, shift);
  out[5] = descale(tmp12 - tmp1, shift);
  out[3] = descale(tmp13 + tmp0, shift);
  out[4] = descale(tmp13 - tmp0, shift);
}

// libjpeg's IDCT output range limit, indexed by the descaled value modulo 1024.
AUG_HD std::uint8_t range_limit(std::int64_t v) {
  const int k = static_cast<int>(v & 1023);
  if (k < 128) return static_cast<std::uint8_t>(k + 128);
  if (k < 512) return 255;
  if (k < 896) return 0;
  return static_cast<std::uint8_t>(k - 896);
}

// One 8x8 block through FDCT, quantisation (rounding division, ties away from zero, by 8 Q),
// dequantisation (times Q) and IDCT.
AUG_HD void roundtrip_block(const std::uint8_t* src, std::uint8_t* dst, int pitch, const std::uint16_t* q) {
  std::int32_t c[64];
  for (int r = 0; r < 8; ++r)
    for (int i = 0; i < 8; ++i) c[8 * r + i] = static_cast<std::int32_t>(src[r * pitch + i]) - 128;
  for (int r = 0; r < 8; ++r) fdct_1d(c + 8 * r, 1, true);
  for (int i = 0; i < 8; ++i) fdct_1d(c + i, 8, false);
  for (int k = 0; k < 64; ++k) {
    const std::int32_t d = 8 * q[k];
    const std::int32_t a = c[k] < 0 ? -c[k] : c[k];
    const std::int32_t level = (a + (d >> 1)) / d;
    c[k] = (c[k] < 0 ? -level : level) * q[k];
  }
  std::int32_t ws[64];
  std::int64_t col[8];
  for (int i = 0; i < 8; ++i) {
    idct_1d(c + i, 8, kConstBits - kPass1Bits, col);
    for (int r = 0; r < 8; ++r) ws[8 * r + i] = static_cast<std::int32_t>(col[r]);
  }
  std::int64_t row[8];
  for (int r = 0; r < 8; ++r) {
    idct_1d(ws + 8 * r, 1, kConstBits + kPass1Bits + 3, row);
    for (int i = 0; i < 8; ++i) dst[r * pitch + i] = range_limit(row[i]);
  }
}

// Plane geometry: luma padded to multiples of 8; chroma 4:2:0 planes of 8 ceil(W/16) x 8 ceil(H/16).
struct LibjpegPlanes {
  AUG_FIELDS(LibjpegPlanes, w8, h8, wc, hc, cw, ch, y, cb, cr, yd, cbd, crd)
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

// RGB -> YCbCr (jccolor.c), 8-bit.
AUG_HD int rgb_y(int r, int g, int b) { return (19595 * r + 38470 * g + 7471 * b + 32768) >> 16; }
AUG_HD int rgb_cb(int r, int g, int b) { return (-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32767) >> 16; }
AUG_HD int rgb_cr(int r, int g, int b) { return (32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32767) >> 16; }

template <class T>
struct LumaPlane {  // the luma plane, edges replicated to multiples of 8
  AUG_FIELDS(LumaPlane, in, p)
  View<const T> in;
  LibjpegPlanes p;
  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y < p.h ? y : p.h - 1) + (x < p.w ? x : p.w - 1) * in.channels;
    p.y[static_cast<std::size_t>(y) * p.w8 + x] =
        in.channels == 1 ? to_u8(s[0]) : static_cast<std::uint8_t>(rgb_y(to_u8(s[0]), to_u8(s[1]), to_u8(s[2])));
  }
};

template <class T>
struct ChromaPlanes {  // 2x2 sums with the alternating bias 1, 2; edges replicated (jcsample.c)
  AUG_FIELDS(ChromaPlanes, in, p)
  View<const T> in;
  LibjpegPlanes p;
  AUG_HD void operator()(int j, int r) const {
    const int rr = r < p.ch ? r : p.ch - 1;  // rows past the image repeat the last downsampled row
    int cb = 0, cr = 0;
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) {
        const int y = 2 * rr + a < p.h ? 2 * rr + a : p.h - 1;
        const int x = 2 * j + b < p.w ? 2 * j + b : p.w - 1;
        const T* s = in.row(y) + x * in.channels;
        const int R = to_u8(s[0]), G = to_u8(s[1]), B = to_u8(s[2]);
        cb += rgb_cb(R, G, B);
        cr += rgb_cr(R, G, B);
      }
    const int bias = (j & 1) ? 2 : 1;
    p.cb[static_cast<std::size_t>(r) * p.wc + j] = static_cast<std::uint8_t>((cb + bias) >> 2);
    p.cr[static_cast<std::size_t>(r) * p.wc + j] = static_cast<std::uint8_t>((cr + bias) >> 2);
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

// h2v2 fancy upsampling of a decoded chroma plane at output pixel (x, y) (jdsample.c), or
// replication when the chroma plane is at most 2 wide.
AUG_HD int upsampled(const std::uint8_t* c, const LibjpegPlanes& p, int x, int y) {
  const int r = y >> 1, j = x >> 1;
  if (p.cw <= 2) return c[static_cast<std::size_t>(r) * p.wc + j];
  int nb = (y & 1) ? r + 1 : r - 1;
  nb = nb < 0 ? 0 : (nb > p.ch - 1 ? p.ch - 1 : nb);
  auto colsum = [&](int jj) {
    jj = jj < 0 ? 0 : (jj > p.cw - 1 ? p.cw - 1 : jj);
    return 3 * c[static_cast<std::size_t>(r) * p.wc + jj] + c[static_cast<std::size_t>(nb) * p.wc + jj];
  };
  return (x & 1) ? (3 * colsum(j) + colsum(j + 1) + 7) >> 4 : (3 * colsum(j) + colsum(j - 1) + 8) >> 4;
}

AUG_HD int clamp255(int v) { return v < 0 ? 0 : (v > 255 ? 255 : v); }

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
    const int cb = upsampled(p.cbd, p, x, y) - 128, cr = upsampled(p.crd, p, x, y) - 128;
    d[0] = from_u8<T>(static_cast<std::uint8_t>(clamp255(Y + ((91881 * cr + 32768) >> 16))));
    d[1] = from_u8<T>(static_cast<std::uint8_t>(clamp255(Y + ((-22554 * cb + 32768 - 46802 * cr) >> 16))));
    d[2] = from_u8<T>(static_cast<std::uint8_t>(clamp255(Y + ((116130 * cb + 32768) >> 16))));
    if (out.channels == 4) d[3] = in.row(y)[x * 4 + 3];
  }
};

// ---------------------------------------------------------------------------------------------
// kornia mode (docs/arithmetic.md#jpeg)

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

std::size_t jpeg_libjpeg_scratch_bytes(int width, int height) {
  const std::size_t luma = static_cast<std::size_t>((width + 7) / 8 * 8) * ((height + 7) / 8 * 8);
  const std::size_t chroma = static_cast<std::size_t>((width + 15) / 16 * 8) * ((height + 15) / 16 * 8);
  return 2 * luma + 4 * chroma;
}

template <class T>
void jpeg_libjpeg(View<const T> in, View<T> out, const JpegQuant* quant, Scratch& scratch, const Exec& exec) {
  const LibjpegPlanes p =
      LibjpegPlanes::make(in.width, in.height, scratch.scratch(jpeg_libjpeg_scratch_bytes(in.width, in.height)));
  const bool color = in.channels >= 3;
  for_2d(LumaPlane<T>{in, p}, p.w8, p.h8, exec, "jpeg (colour conversion)");
  if (color) for_2d(ChromaPlanes<T>{in, p}, p.wc, p.hc, exec, "jpeg (chroma downsampling)");
  const std::size_t blocks = static_cast<std::size_t>(p.w8 / 8) * (p.h8 / 8) +
                             (color ? 2 * static_cast<std::size_t>(p.wc / 8) * (p.hc / 8) : 0);
  for_1d(Blocks{p, quant, color}, blocks, exec, "jpeg (DCT, quantisation, IDCT)");
  for_2d(Decode<T>{in, out, p}, out.width, out.height, exec, "jpeg (upsampling, colour conversion)");
}

template <class T>
void jpeg_kornia(View<const T> in, View<T> out, const KorniaJpegTables* tables, Scratch& scratch,
                 const Exec& exec) {
  void* planes = scratch.scratch(jpeg_kornia_scratch_bytes(in.width, in.height));
  if (exec.cpu) return cpu::jpeg_kornia(in, out, *tables, planes);
  const KorniaPlanes p = KorniaPlanes::make(in.width, in.height, planes);
  for_2d(KorniaYcc<T>{in, p}, p.wp, p.hp, exec, "jpeg kornia (colour conversion)");
  for_2d(ChromaBlurX{p, tables}, p.wp, p.hp, exec, "jpeg kornia (chroma blur)");
  for_2d(ChromaHalve{p, tables}, p.wp / 2, p.hp / 2, exec, "jpeg kornia (chroma subsampling)");
  const std::size_t blocks = static_cast<std::size_t>(p.wp / 8) * (p.hp / 8) * 3 / 2;
  for_1d(KorniaBlocks{p, tables}, blocks, exec, "jpeg kornia (DCT, quantisation, IDCT)");
  for_2d(KorniaDecode<T>{in, out, p}, out.width, out.height, exec, "jpeg kornia (upsampling, colour conversion)");
}

#define AUG_INSTANTIATE(T)                                                                                   \
  template void jpeg_libjpeg<T>(View<const T>, View<T>, const JpegQuant*, Scratch&, const Exec&);               \
  template void jpeg_kornia<T>(View<const T>, View<T>, const KorniaJpegTables*, Scratch&, const Exec&);
AUG_INSTANTIATE(std::uint8_t)
AUG_INSTANTIATE(std::uint16_t)
AUG_INSTANTIATE(float)
#undef AUG_INSTANTIATE

}  // namespace aug::k
