// libjpeg-turbo's integer arithmetic for 8-bit baseline JPEG (docs/stages/codec.md#jpeg), written
// once for every user: the jpeg stage's round trip (kernels/codec/jpeg.cu) and the device codec
// (kernels/codec/jpeg_codec.cu) that decodes from and encodes to quantised DCT coefficients.
//
// Encoder: RGB -> YCbCr (jccolor), edge padding and 4:2:0 downsampling (jcprepct, jcsample),
// the islow forward DCT (jfdctint) and quantisation by 8 Q (jcdctmgr). Decoder: dequantisation and
// the islow inverse DCT with its range limit (jidctint, jddctmgr), fancy upsampling h2v1 / h1v2 /
// h2v2 (jdsample) and YCbCr -> RGB (jdcolor). Coefficients and tables are in natural order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/core/common.hpp"

namespace aug::k {

// Samples of any type as the 8 bits the codec sees, and back.
template <class T>
AUG_HD std::uint8_t to_u8(T v) {
  if constexpr (std::is_same_v<T, std::uint8_t>) return v;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return static_cast<std::uint8_t>((2u * v + 257u) / 514u);  // round(v / 257), half up (no tie exists)
  else return static_cast<std::uint8_t>(rne(clamp01(v) * 255.f));
}
template <class T>
AUG_HD T from_u8(std::uint8_t b) {
  if constexpr (std::is_same_v<T, std::uint8_t>) return b;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return static_cast<std::uint16_t>(b * 257u);
  else return static_cast<float>(b) / 255.f;
}

namespace jpeg {

// 13-bit constants of the islow DCTs (jfdctint.c / jidctint.c).
inline constexpr std::int64_t kF0_298631336 = 2446, kF0_390180644 = 3196, kF0_541196100 = 4433,
                              kF0_765366865 = 6270, kF0_899976223 = 7373, kF1_175875602 = 9633,
                              kF1_501321110 = 12299, kF1_847759065 = 15137, kF1_961570560 = 16069,
                              kF2_053119869 = 16819, kF2_562915447 = 20995, kF3_072711026 = 25172;
inline constexpr int kConstBits = 13, kPass1Bits = 2;

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

// Quantisation of a DCT output c (8x the orthonormal DCT) by 8 q: the rounding division, ties
// away from zero, which libjpeg-turbo's reciprocal multiply equals for every q 1..255.
AUG_HD std::int32_t quantise(std::int32_t c, std::int32_t q) {
  const std::int32_t d = 8 * q;
  const std::int32_t a = c < 0 ? -c : c;
  const std::int32_t level = (a + (d >> 1)) / d;
  return c < 0 ? -level : level;
}

// An 8x8 block of samples (rows `pitch` apart) to its quantised coefficients, natural order.
AUG_HD void forward_block(const std::uint8_t* src, int pitch, const std::uint16_t* q, std::int16_t* levels) {
  std::int32_t c[64];
  for (int r = 0; r < 8; ++r)
    for (int i = 0; i < 8; ++i) c[8 * r + i] = static_cast<std::int32_t>(src[r * pitch + i]) - 128;
  for (int r = 0; r < 8; ++r) fdct_1d(c + 8 * r, 1, true);
  for (int i = 0; i < 8; ++i) fdct_1d(c + i, 8, false);
  for (int k = 0; k < 64; ++k) levels[k] = static_cast<std::int16_t>(quantise(c[k], q[k]));
}

// Quantised coefficients (natural order) through dequantisation and the islow IDCT to an 8x8
// block of samples.
AUG_HD void inverse_block(const std::int16_t* levels, const std::uint16_t* q, std::uint8_t* dst, std::size_t pitch) {
  std::int32_t c[64];
  for (int k = 0; k < 64; ++k) c[k] = static_cast<std::int32_t>(levels[k]) * static_cast<std::int32_t>(q[k]);
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

// RGB -> YCbCr (jccolor.c), 8-bit.
AUG_HD int rgb_y(int r, int g, int b) { return (19595 * r + 38470 * g + 7471 * b + 32768) >> 16; }
AUG_HD int rgb_cb(int r, int g, int b) { return (-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32767) >> 16; }
AUG_HD int rgb_cr(int r, int g, int b) { return (32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32767) >> 16; }

AUG_HD int clamp255(int v) { return v < 0 ? 0 : (v > 255 ? 255 : v); }

// YCbCr -> RGB (jdcolor.c): cb, cr are the samples minus 128; arithmetic shifts.
AUG_HD void ycc_rgb(int y, int cb, int cr, std::uint8_t& r, std::uint8_t& g, std::uint8_t& b) {
  r = static_cast<std::uint8_t>(clamp255(y + ((91881 * cr + 32768) >> 16)));
  g = static_cast<std::uint8_t>(clamp255(y + ((-22554 * cb + 32768 - 46802 * cr) >> 16)));
  b = static_cast<std::uint8_t>(clamp255(y + ((116130 * cb + 32768) >> 16)));
}

// The encoder's luma sample at (x, y) of the plane padded to whole blocks: the image's edges
// repeated (jcsample's expand_right_edge, jcprepct's expand_bottom_edge). Gray: the sample itself.
template <class T>
AUG_HD std::uint8_t padded_luma(View<const T> in, int x, int y) {
  const T* s = in.row(y < in.height ? y : in.height - 1) + (x < in.width ? x : in.width - 1) * in.channels;
  return in.channels == 1 ? to_u8(s[0]) : static_cast<std::uint8_t>(rgb_y(to_u8(s[0]), to_u8(s[1]), to_u8(s[2])));
}

// The encoder's 4:2:0 chroma sample (j, r): the 2x2 sum with the alternating bias 1, 2 over the
// image with its last column and row repeated; rows past the real chroma height repeat the last
// downsampled row (jcsample.c h2v2_downsample, jcprepct.c).
template <class T>
AUG_HD void downsampled_chroma(View<const T> in, int j, int r, int& cb, int& cr) {
  const int ch = (in.height + 1) / 2;
  const int rr = r < ch ? r : ch - 1;
  int sb = 0, sr = 0;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      const int y = 2 * rr + a < in.height ? 2 * rr + a : in.height - 1;
      const int x = 2 * j + b < in.width ? 2 * j + b : in.width - 1;
      const T* s = in.row(y) + x * in.channels;
      const int R = to_u8(s[0]), G = to_u8(s[1]), B = to_u8(s[2]);
      sb += rgb_cb(R, G, B);
      sr += rgb_cr(R, G, B);
    }
  const int bias = (j & 1) ? 2 : 1;
  cb = (sb + bias) >> 2;
  cr = (sr + bias) >> 2;
}

// A decoded component plane (rows `pitch` apart, real size w x h) brought to full resolution at
// output pixel (x, y), for an upsampling factor hx x vx in {1, 2} (jdsample.c, fancy upsampling):
// h2v1 and h2v2 are triangle filters, or replication when the plane is at most 2 samples wide;
// h1v2 is the vertical triangle filter. Neighbours past the plane's real edges repeat the edge.
AUG_HD int upsampled(const std::uint8_t* c, std::size_t pitch, int w, int h, int hx, int vx, int x, int y) {
  const int r = vx == 2 ? y >> 1 : y, j = hx == 2 ? x >> 1 : x;
  auto at = [&](int rr, int jj) {
    rr = rr < 0 ? 0 : (rr > h - 1 ? h - 1 : rr);
    jj = jj < 0 ? 0 : (jj > w - 1 ? w - 1 : jj);
    return static_cast<int>(c[static_cast<std::size_t>(rr) * pitch + jj]);
  };
  if ((hx == 1 && vx == 1) || (hx == 2 && w <= 2)) return at(r, j);
  if (vx == 1)  // h2v1
    return (x & 1) ? (3 * at(r, j) + at(r, j + 1) + 2) >> 2 : (3 * at(r, j) + at(r, j - 1) + 1) >> 2;
  const int nb = (y & 1) ? r + 1 : r - 1;
  if (hx == 1)  // h1v2
    return (3 * at(r, j) + at(nb, j) + ((y & 1) ? 2 : 1)) >> 2;
  auto colsum = [&](int jj) { return 3 * at(r, jj) + at(nb, jj); };  // h2v2
  return (x & 1) ? (3 * colsum(j) + colsum(j + 1) + 7) >> 4 : (3 * colsum(j) + colsum(j - 1) + 8) >> 4;
}

}  // namespace jpeg
}  // namespace aug::k
