// fancy_pca: Albumentations 2.x's FancyPCA. On the [0, 1] scale (x = v / max, float images as they
// are), with the image's colour-channel mean mu, covariance C (ddof 1) and its eigenvalues
// l1 >= l2 >= l3 with unit eigenvectors e1, e2, e3 (columns of E):
//   RGB:  out = clip(x + M (x - mu), 0, 1), M = E diag(a * l), a the drawn vector (one per channel);
//   gray: out = clip(x + a0 s (x - mu), 0, 1), s the standard deviation (ddof 0);
// then 8/16-bit rne(out * max). Statistics: exact integer sums per row (double for float images, each
// row left to right), totalled in chunks of kPcaChunk rows in order and then the chunks in order (one
// GPU thread per chunk), then mean, covariance and a cyclic Jacobi eigen-decomposition in double by
// one thread (the same operations on the host and on a GPU); the map per pixel in binary32. Alpha is
// copied.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// Sums over pixels: s[0..2] the values of channels 0-2, s[3..8] the products 00 01 02 11 12 22 (gray:
// s[0] and s[3]). A: exact int64 for 8- and 16-bit images, double for float images.
template <class A>
struct PcaSums {
  A s[9];
};

// Rows per chunk of the totals (see above): the order of the float sums on every backend.
constexpr int kPcaChunk = 32;

template <class A>
AUG_HD void pca_add(PcaSums<A>& total, const PcaSums<A>& more) {
  AUG_UNROLL
  for (int i = 0; i < 9; ++i) total.s[i] = total.s[i] + more.s[i];
}

// One row's sums, left to right.
template <class A, class T>
AUG_HD PcaSums<A> pca_row_sums(const T* row, int width, int channels, int color_channels) {
  PcaSums<A> r{};
  for (int x = 0; x < width; ++x) {
    const T* p = row + x * channels;
    const A v0 = static_cast<A>(p[0]);
    if (color_channels == 1) {
      r.s[0] = r.s[0] + v0;
      r.s[3] = r.s[3] + v0 * v0;
      continue;
    }
    const A v1 = static_cast<A>(p[1]), v2 = static_cast<A>(p[2]);
    r.s[0] = r.s[0] + v0;
    r.s[1] = r.s[1] + v1;
    r.s[2] = r.s[2] + v2;
    r.s[3] = r.s[3] + v0 * v0;
    r.s[4] = r.s[4] + v0 * v1;
    r.s[5] = r.s[5] + v0 * v2;
    r.s[6] = r.s[6] + v1 * v1;
    r.s[7] = r.s[7] + v1 * v2;
    r.s[8] = r.s[8] + v2 * v2;
  }
  return r;
}

// The map from the statistics: m (3x3 row-major, binary32) and mu (binary32), or for gray m[0] = a0 s.
struct PcaMap {
  float m[9];
  float mu[3];
};

// 3x3 symmetric eigen-decomposition by cyclic Jacobi rotations, in double: `a` (row-major, changed),
// eigenvalues in w, eigenvectors as the columns of v, sorted by decreasing eigenvalue; each vector's
// largest-magnitude component made positive (the first of equal magnitude). Every loop over the
// arrays is unrolled, so that on a GPU they stay in registers.
AUG_HD void jacobi3(double* a, double* w, double* v) {
  AUG_UNROLL
  for (int i = 0; i < 9; ++i) v[i] = (i % 4 == 0) ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 50; ++sweep) {
    const double off = (a[1] < 0 ? -a[1] : a[1]) + (a[2] < 0 ? -a[2] : a[2]) + (a[5] < 0 ? -a[5] : a[5]);
    if (off == 0.0) break;
    AUG_UNROLL
    for (int p = 0; p < 2; ++p)
      AUG_UNROLL
      for (int q = p + 1; q < 3; ++q) {
        const double apq = a[p * 3 + q];
        if (apq == 0.0) continue;
        const double theta = (a[q * 3 + q] - a[p * 3 + p]) / (2.0 * apq);
        const double at = theta < 0 ? -theta : theta;
        double t = 1.0 / (at + sqrt(theta * theta + 1.0));
        if (theta < 0) t = -t;
        const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
        AUG_UNROLL
        for (int k = 0; k < 3; ++k) {  // columns p, q of A
          const double akp = a[k * 3 + p], akq = a[k * 3 + q];
          a[k * 3 + p] = c * akp - s * akq;
          a[k * 3 + q] = s * akp + c * akq;
        }
        AUG_UNROLL
        for (int k = 0; k < 3; ++k) {  // rows p, q
          const double apk = a[p * 3 + k], aqk = a[q * 3 + k];
          a[p * 3 + k] = c * apk - s * aqk;
          a[q * 3 + k] = s * apk + c * aqk;
        }
        a[p * 3 + q] = 0.0;
        a[q * 3 + p] = 0.0;
        AUG_UNROLL
        for (int k = 0; k < 3; ++k) {
          const double vkp = v[k * 3 + p], vkq = v[k * 3 + q];
          v[k * 3 + p] = c * vkp - s * vkq;
          v[k * 3 + q] = s * vkp + c * vkq;
        }
      }
  }
  AUG_UNROLL
  for (int i = 0; i < 3; ++i) w[i] = a[i * 3 + i];
  // Sort decreasing (stable), columns with them.
  AUG_UNROLL
  for (int i = 0; i < 2; ++i)
    AUG_UNROLL
    for (int j = 0; j < 2 - i; ++j)
      if (w[j] < w[j + 1]) {
        const double tw = w[j];
        w[j] = w[j + 1];
        w[j + 1] = tw;
        AUG_UNROLL
        for (int k = 0; k < 3; ++k) {
          const double tv = v[k * 3 + j];
          v[k * 3 + j] = v[k * 3 + j + 1];
          v[k * 3 + j + 1] = tv;
        }
      }
  AUG_UNROLL
  for (int j = 0; j < 3; ++j) {
    double big = v[j];  // the component of largest magnitude, the first of equal ones
    AUG_UNROLL
    for (int k = 1; k < 3; ++k) {
      const double m = v[k * 3 + j] < 0 ? -v[k * 3 + j] : v[k * 3 + j];
      if (m > (big < 0 ? -big : big)) big = v[k * 3 + j];
    }
    if (big < 0) {
      AUG_UNROLL
      for (int k = 0; k < 3; ++k) v[k * 3 + j] = -v[k * 3 + j];
    }
  }
}

// The map of an image of n pixels from its sums (already totalled over rows), on the [0, 1] scale.
template <class A>
AUG_HD PcaMap pca_map(const PcaSums<A>& sums, double n, double max, int color_channels, const float* alpha) {
  PcaMap r{};
  PcaSums<double> t;
  AUG_UNROLL
  for (int i = 0; i < 9; ++i) t.s[i] = static_cast<double>(sums.s[i]);
  double mu[3] = {0, 0, 0};
  AUG_UNROLL
  for (int c = 0; c < 3; ++c)
    if (c < color_channels) mu[c] = t.s[c] / n;
  if (color_channels == 1) {
    // np.std of the centred values: sqrt(sum (x - mu)^2 / n) = sqrt((S2 - S mu) / n).
    const double var = (t.s[3] - t.s[0] * mu[0]) / n;
    const double sd = sqrt(var > 0 ? var : 0.0) / max;
    r.m[0] = static_cast<float>(static_cast<double>(alpha[0]) * sd);
    r.mu[0] = static_cast<float>(mu[0] / max);
    return r;
  }
  const int idx[3][3] = {{3, 4, 5}, {4, 6, 7}, {5, 7, 8}};
  double a[9];
  AUG_UNROLL
  for (int i = 0; i < 3; ++i)
    AUG_UNROLL
    for (int j = 0; j < 3; ++j)
      a[i * 3 + j] = (t.s[idx[i][j]] - t.s[i] * mu[j]) / (n > 1 ? n - 1 : 1) / (max * max);
  double w[3], v[9];
  jacobi3(a, w, v);
  AUG_UNROLL
  for (int i = 0; i < 3; ++i)
    AUG_UNROLL
    for (int j = 0; j < 3; ++j) r.m[i * 3 + j] = static_cast<float>(v[i * 3 + j] * (static_cast<double>(alpha[j]) * w[j]));
  AUG_UNROLL
  for (int c = 0; c < 3; ++c) r.mu[c] = static_cast<float>(mu[c] / max);
  return r;
}

template <class T>
AUG_HD float pca_unit(T v) {
  if constexpr (std::is_same_v<T, float>) return v;
  else return static_cast<float>(v) / static_cast<float>(SampleTraits<T>::max);
}
template <class T>
AUG_HD T pca_out(float y) {
  y = clamp01(y);
  if constexpr (std::is_same_v<T, float>) return y;
  else return static_cast<T>(static_cast<int>(rne_float(y * static_cast<float>(SampleTraits<T>::max))));
}

// One pixel: d[c] = out(x_c + sum_k m[c][k] (x_k - mu_k)) in binary32, k in order.
template <class T>
AUG_HD void pca_pixel(const T* s, T* d, const PcaMap& m, int color_channels) {
  if (color_channels == 1) {
    const float x = pca_unit(s[0]);
    d[0] = pca_out<T>(x + m.m[0] * (x - m.mu[0]));
    return;
  }
  const float x0 = pca_unit(s[0]), x1 = pca_unit(s[1]), x2 = pca_unit(s[2]);
  const float c0 = x0 - m.mu[0], c1 = x1 - m.mu[1], c2 = x2 - m.mu[2];
  const float x[3] = {x0, x1, x2};
  for (int c = 0; c < 3; ++c) {
    float n = m.m[c * 3] * c0;
    n = n + m.m[c * 3 + 1] * c1;
    n = n + m.m[c * 3 + 2] * c2;
    d[c] = pca_out<T>(x[c] + n);
  }
}

struct PcaAlpha {
  AUG_FIELDS(PcaAlpha, a)
  float a[3];
};

// `alpha`: the color_channels draws.
template <class T>
void fancy_pca(View<const T> in, View<T> out, const PcaAlpha& alpha, int color_channels, Scratch& scratch,
               const Exec& exec);

namespace cpu {  // the host driver (the CPU backend): the same functions, row by row
template <class T>
void fancy_pca(View<const T> in, View<T> out, const PcaAlpha& alpha, int color_channels);
}  // namespace cpu

}  // namespace aug::k
