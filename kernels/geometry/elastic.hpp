// elastic: Kornia's RandomElasticTransform with the identity-preserving grid (Kornia #4382).
//   noise     n_x, n_y = 2 U - 1 per pixel, U from Philox (sub-stream 1, counter = pixel index)
//   smoothing Gaussian along x (taps kx), then along y (taps ky), zero padded, taps in order
//   field     dx = alpha_x * smooth(n_x), dy = alpha_y * smooth(n_y)  (normalised units)
//   grid      g = clamp(((2j + 1) / W - 1) + dx, -1, 1), likewise y; p = ((g + 1) W - 1) / 2,
//             evaluated as clamp(j + dx W / 2, -0.5, W - 0.5): zero displacement is exactly j
//   sampling  PyTorch grid_sample semantics (zeros / border / reflection padding); integer
//             images with fixed-point bilinear weights (1/32 pixel, as OpenCV's remap), float
//             images with binary32 weights; nearest rounds half to even.
#pragma once

#include <cmath>
#include <cstddef>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"
#include "kernels/core/philox.hpp"

namespace aug::k {

enum ElasticPadding : int { kPadZeros = 0, kPadBorder = 1, kPadReflection = 2 };

struct ElasticArgs {
  AUG_FIELDS(ElasticArgs, stream, kx, ky, kx_size, ky_size, alpha_x, alpha_y, nearest, padding, fill)
  KeyedStream stream;
  const float* kx = nullptr;  // x smoothing taps
  const float* ky = nullptr;  // y smoothing taps
  int kx_size = 1, ky_size = 1;
  float alpha_x = 1, alpha_y = 1;
  bool nearest = false;
  int padding = kPadZeros;
  float fill = 0;  // nearest with zeros padding: the value outside the image (label maps; images: 0)
};

std::size_t elastic_scratch_bytes(int width, int height);

template <class T>
void elastic(View<const T> in, View<T> out, const ElasticArgs& args, Scratch& scratch, const Exec& exec);

// ---- shared by the kernels and the CPU driver ----

AUG_HD void elastic_noise(const KeyedStream& s, std::size_t pixel, float& nx, float& ny) {
  const Philox4x32 r = s.block(static_cast<std::uint32_t>(pixel), 1);
  nx = 2.f * uniform01f(r.v[0]) - 1.f;
  ny = 2.f * uniform01f(r.v[1]) - 1.f;
}

// PyTorch's reflect_coordinates for align_corners=False (reflection about -0.5 and size - 0.5).
AUG_HD float elastic_reflect(float v, int size) {
  const float lo = -0.5f, span = static_cast<float>(size);
  v = v - lo;
  v = v < 0.f ? -v : v;
  const float extra = v - span * floorf(v / span);
  const int flips = trunc_i32(floorf(v / span));  // v is NaN when the smoothing taps are
  return (flips % 2 == 0) ? extra + lo : span - extra + lo;
}

// The source coordinate of output index i displaced by d (normalised units). grid_sample's
// ((g + 1) size - 1) / 2 with g = clamp((2i + 1) / size - 1 + d, -1, 1), written as
// clamp(i + d size / 2, -0.5, size - 0.5) so that d = 0 gives exactly i.
AUG_HD float elastic_source(int i, float d, int size, int padding) {
  const float hi = static_cast<float>(size) - 0.5f;
  float p = static_cast<float>(i) + d * static_cast<float>(size) / 2.f;
  p = p < -0.5f ? -0.5f : (p > hi ? hi : p);
  if (padding == kPadReflection) p = elastic_reflect(p, size);
  if (padding != kPadZeros) p = p < 0.f ? 0.f : (p > size - 1.f ? size - 1.f : p);
  return p;
}

// `in` sampled at source coordinates (px, py) from elastic_source.
template <class T>
AUG_HD void elastic_sample_at(const View<const T>& in, T* out, float px, float py, const ElasticArgs& a) {
  const int W = in.width, H = in.height, C = in.channels;
  const bool zeros = a.padding == kPadZeros;
  auto inside = [&](int ix, int iy) { return ix >= 0 && ix < W && iy >= 0 && iy < H; };
  auto clamp_x = [&](int ix) { return ix < 0 ? 0 : (ix >= W ? W - 1 : ix); };
  auto clamp_y = [&](int iy) { return iy < 0 ? 0 : (iy >= H ? H - 1 : iy); };
  if (a.nearest) {
    const int ix = static_cast<int>(rne(px)), iy = static_cast<int>(rne(py));
    const bool in_image = inside(ix, iy);
    const T* s = in.row(clamp_y(iy)) + clamp_x(ix) * C;
    T fill;
    if constexpr (std::is_same_v<T, float>) fill = a.fill;
    else fill = saturate<T>(rne(a.fill));  // a mask's fill may be past an 8-bit mask's range
    for (int c = 0; c < C; ++c) out[c] = (in_image || !zeros) ? s[c] : fill;
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    const float fx0 = floorf(px), fy0 = floorf(py);
    const int x0 = trunc_i32(fx0), y0 = trunc_i32(fy0);  // NaN coordinates: 0, as on the device
    const float tx = px - fx0, ty = py - fy0;
    const float w[4] = {(1.f - tx) * (1.f - ty), tx * (1.f - ty), (1.f - tx) * ty, tx * ty};
    const int xs[4] = {x0, x0 + 1, x0, x0 + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
    for (int c = 0; c < C; ++c) {
      float acc = 0.f;
      for (int t = 0; t < 4; ++t)
        if (inside(xs[t], ys[t]) || !zeros) acc = acc + w[t] * in.row(clamp_y(ys[t]))[clamp_x(xs[t]) * C + c];
      out[c] = acc;
    }
  } else {
    const std::int64_t X = rne(px * 32.f), Y = rne(py * 32.f);  // 1/32 pixel
    const int x0 = static_cast<int>(X >> 5), y0 = static_cast<int>(Y >> 5);
    const int fx = static_cast<int>(X & 31), fy = static_cast<int>(Y & 31);
    const int w[4] = {(32 - fx) * (32 - fy) * 32, fx * (32 - fy) * 32, (32 - fx) * fy * 32, fx * fy * 32};
    if (x0 >= 0 && y0 >= 0 && x0 + 1 < W && y0 + 1 < H) {  // all four taps inside: no checks needed
      const T* r0 = in.row(y0) + x0 * C;
      const T* r1 = in.row(y0 + 1) + x0 * C;
      for (int c = 0; c < C; ++c) {
        const std::int64_t acc = static_cast<std::int64_t>(w[0]) * r0[c] + static_cast<std::int64_t>(w[1]) * r0[C + c] +
                                 static_cast<std::int64_t>(w[2]) * r1[c] + static_cast<std::int64_t>(w[3]) * r1[C + c];
        out[c] = saturate<T>(round_shift(acc, 15));
      }
      return;
    }
    const int xs[4] = {x0, x0 + 1, x0, x0 + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
    for (int c = 0; c < C; ++c) {
      std::int64_t acc = 0;
      for (int t = 0; t < 4; ++t)
        if (inside(xs[t], ys[t]) || !zeros) acc += static_cast<std::int64_t>(w[t]) * in.row(clamp_y(ys[t]))[clamp_x(xs[t]) * C + c];
      out[c] = saturate<T>(round_shift(acc, 15));
    }
  }
}

// Output pixel (x, y) of `in` displaced by (dx, dy).
template <class T>
AUG_HD void elastic_sample(const View<const T>& in, T* out, int x, int y, float dx, float dy, const ElasticArgs& a) {
  elastic_sample_at(in, out, elastic_source(x, dx, in.width, a.padding), elastic_source(y, dy, in.height, a.padding), a);
}

namespace cpu {  // the vectorised host driver (the CPU backend); needs no scratch
template <class T>
void elastic(View<const T> in, View<T> out, const ElasticArgs& args);
}  // namespace cpu

}  // namespace aug::k
