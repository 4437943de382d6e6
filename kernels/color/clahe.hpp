// clahe: Albumentations' CLAHE, OpenCV 4.6's cv::CLAHE (createCLAHE(clip, grid)->apply) on the
// lightness of an RGB image (8-bit Lab through kernels/color/lab8.hpp) or on a gray image.
//   1. the plane: gray: the value (16-bit gray images keep their 16 bits: 65536 bins); RGB: L of
//      the 8-bit Lab conversion (a and b kept). 16-bit RGB and float images are first brought to
//      8 bits: u16 (v + 128) / 257, float rint(v * 255) clamped to [0, 255] (NaN 0).
//   2. the plane is padded on the right and at the bottom with REFLECT_101 when its size is not a
//      multiple of the grid (OpenCV pads by grid - size % grid on both axes then, a whole tile on an
//      axis that divides); tiles of tile_w x tile_h over the padded plane; a histogram per tile
//      (integer counts, atomics on a GPU).
//   3. per tile (integers, then one binary32 product): clip = max(int(clip_limit * area / bins), 1);
//      counts above clip are cut to it, the excess split evenly (excess / bins to every bin), its
//      remainder r one each to bins 0, s, 2s, ... (s = max(bins / r, 1)) until r runs out;
//      lut[i] = sat(rne((float)cum(i) * lut_scale)), lut_scale = (float)(bins - 1) / (float)area.
//   4. per pixel, in binary32 (no FMA): t = (float)x * inv_tw - 0.5f, t1 = floor(t), a = t - t1,
//      column tiles max(t1, 0) and min(t1 + 1, tiles_x - 1) (rows likewise);
//      out = sat(rne((l11 (1 - a) + l12 a) (1 - b) + (l21 (1 - a) + l22 a) b)).
//   5. RGB: the new L with the kept a, b back through Lab -> RGB; u16 q * 257, float q / 255.f; alpha
//      is copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/color/lab8.hpp"
#include "kernels/core/uint8_io.hpp"
#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// The grid over the padded plane and the table constants (computed on the host, clahe_geometry).
struct ClaheGeometry {
  AUG_FIELDS(ClaheGeometry, width, height, tiles_x, tiles_y, tile_w, tile_h, clip, bins, lut_scale, inv_tw, inv_th)
  int width = 0, height = 0;    // the image
  int tiles_x = 0, tiles_y = 0;
  int tile_w = 0, tile_h = 0;   // over the padded plane
  int clip = 0;                 // 0: no clipping
  int bins = 256;
  float lut_scale = 0;
  float inv_tw = 0, inv_th = 0;
};

inline ClaheGeometry clahe_geometry(int width, int height, int tiles_x, int tiles_y, double clip_limit, int bins) {
  ClaheGeometry g;
  g.width = width;
  g.height = height;
  g.tiles_x = tiles_x;
  g.tiles_y = tiles_y;
  g.bins = bins;
  const bool divides = width % tiles_x == 0 && height % tiles_y == 0;
  const int ext_w = divides ? width : width + tiles_x - width % tiles_x;
  const int ext_h = divides ? height : height + tiles_y - height % tiles_y;
  g.tile_w = ext_w / tiles_x;
  g.tile_h = ext_h / tiles_y;
  const int area = g.tile_w * g.tile_h;
  g.lut_scale = static_cast<float>(bins - 1) / static_cast<float>(area);
  if (clip_limit > 0.0) {
    const int c = static_cast<int>(clip_limit * area / bins);
    g.clip = c > 1 ? c : 1;
  }
  g.inv_tw = 1.0f / static_cast<float>(g.tile_w);
  g.inv_th = 1.0f / static_cast<float>(g.tile_h);
  return g;
}

// Step 3 for one tile: `hist` (bins counts, changed) to `lut`.
template <class L>
AUG_HD void clahe_tile_lut(unsigned* hist, L* lut, const ClaheGeometry& g) {
  const int bins = g.bins;
  if (g.clip > 0) {
    const unsigned clip = static_cast<unsigned>(g.clip);
    unsigned clipped = 0;
    for (int i = 0; i < bins; ++i)
      if (hist[i] > clip) {
        clipped += hist[i] - clip;
        hist[i] = clip;
      }
    const unsigned batch = clipped / static_cast<unsigned>(bins);
    int residual = static_cast<int>(clipped - batch * static_cast<unsigned>(bins));
    for (int i = 0; i < bins; ++i) hist[i] += batch;
    if (residual != 0) {
      const int step = bins / residual > 1 ? bins / residual : 1;
      for (int i = 0; i < bins && residual > 0; i += step, --residual) hist[i] += 1;
    }
  }
  const long long max = std::is_same_v<L, std::uint8_t> ? 255 : 65535;
  unsigned sum = 0;
  for (int i = 0; i < bins; ++i) {
    sum += hist[i];
    const long long v = rne(static_cast<float>(sum) * g.lut_scale);
    lut[i] = static_cast<L>(v < 0 ? 0 : (v > max ? max : v));
  }
}

// Step 4's coordinates along one axis: the two tiles and the weight of the second.
struct ClaheAxis {
  int t1, t2;
  float a, a1;  // weight of t2, of t1
};
AUG_HD ClaheAxis clahe_axis(int p, float inv, int tiles) {
  const float f = static_cast<float>(p) * inv - 0.5f;
  int t = static_cast<int>(f);
  t -= (static_cast<float>(t) > f) ? 1 : 0;  // floor
  ClaheAxis r;
  r.a = f - static_cast<float>(t);
  r.a1 = 1.0f - r.a;
  r.t1 = t > 0 ? t : 0;
  r.t2 = t + 1 < tiles - 1 ? t + 1 : tiles - 1;
  return r;
}

// Step 4 for one value: `row1`, `row2` the tables of the tile rows (tiles_x tables of bins each),
// `i1`, `i2` the offsets of the two column tiles' tables (t1 * bins, t2 * bins).
template <class L>
AUG_HD L clahe_blend(const L* row1, const L* row2, std::size_t i1, std::size_t i2, const ClaheAxis& cx,
                     const ClaheAxis& cy, int v) {
  const float top = static_cast<float>(row1[i1 + v]) * cx.a1 + static_cast<float>(row1[i2 + v]) * cx.a;
  const float bottom = static_cast<float>(row2[i1 + v]) * cx.a1 + static_cast<float>(row2[i2 + v]) * cx.a;
  const float res = top * cy.a1 + bottom * cy.a;
  const long long max = std::is_same_v<L, std::uint8_t> ? 255 : 65535;
  const long long r = rne(res);
  return static_cast<L>(r < 0 ? 0 : (r > max ? max : r));
}

struct ClaheArgs {
  int tiles_x = 8, tiles_y = 8;
  double clip_limit = 4.0;
  int color_channels = 3;  // 1 (gray) or 3 (RGB, alpha copied when there are 4 channels)
};

// Whether the image is equalised on 65536 bins (16-bit gray) or 256.
template <class T>
constexpr bool clahe_16bit_bins(int color_channels) {
  return std::is_same_v<T, std::uint16_t> && color_channels == 1;
}

// `lab` holds lab8_tables() where the kernels can read it (device memory on a GPU).
template <class T>
void clahe(View<const T> in, View<T> out, const ClaheArgs& args, const Lab8Tables* lab, Scratch& scratch,
           const Exec& exec);

namespace cpu {  // the host driver (the CPU backend): the same functions, row by row
template <class T>
void clahe(View<const T> in, View<T> out, const ClaheArgs& args, const Lab8Tables* lab);
}  // namespace cpu

}  // namespace aug::k
