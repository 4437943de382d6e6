// The jpeg stage's two arithmetics.
//
// libjpeg: the lossy part of encoding with libjpeg-turbo (YCbCr 4:2:0, integer "islow" DCT, the
// standard tables scaled to a quality, baseline) and decoding it (islow IDCT, fancy upsampling),
// in integer arithmetic: decode(encode(image)) without the lossless entropy coding
// (bitexact.md §D). 8-bit samples; other types go through to_u8 / from_u8.
//
// kornia: Kornia's differentiable JPEG approximation (kornia-stages.md §3) in binary32 on [0, 1]
// images, from host tables (DCT basis, scaled quantisation tables).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common.hpp"
#include "launch.hpp"

namespace aug::k {

// Samples of any type as the 8 bits the codec sees, and back.
template <class T>
AUG_HD std::uint8_t to_u8(T v) {
  if constexpr (std::is_same_v<T, std::uint8_t>) return v;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return static_cast<std::uint8_t>((2u * v + 257u) / 514u);  // RNE(v/257)
  else return static_cast<std::uint8_t>(rne(clamp01(v) * 255.f));
}
template <class T>
AUG_HD T from_u8(std::uint8_t b) {
  if constexpr (std::is_same_v<T, std::uint8_t>) return b;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return static_cast<std::uint16_t>(b * 257u);
  else return static_cast<float>(b) / 255.f;
}

// Quantisation tables in natural (row-major) order, as libjpeg builds them for a quality.
struct JpegQuant {
  std::uint16_t luma[64];
  std::uint16_t chroma[64];
};

// Scratch the libjpeg path needs for a width x height image.
std::size_t jpeg_libjpeg_scratch_bytes(int width, int height);

template <class T>
void jpeg_libjpeg(View<const T> in, View<T> out, const JpegQuant* quant, void* scratch, const Exec& exec);

// Kornia mode tables, all binary32, computed on the host.
struct KorniaJpegTables {
  float basis[8][8];     // cos((2x + 1) u pi / 16) with Kornia's binary32 pi: [x][u]
  float scale[8][8];     // 0.25 alpha(u) alpha(v): [u][v]
  float q_luma[64];      // Q' = dfloor(softclip((QT s + 50) / 100, 1, 255)), natural order
  float q_chroma[64];
  float blur[3];         // the chroma anti-aliasing taps, Gaussian sigma 0.5
};

std::size_t jpeg_kornia_scratch_bytes(int width, int height);

template <class T>
void jpeg_kornia(View<const T> in, View<T> out, const KorniaJpegTables* tables, void* scratch, const Exec& exec);

}  // namespace aug::k
