// elastic's vectorised host driver: the same noise and sampling functions as the kernels, the smoothing
// passes as row loops in the kernels' tap order, noise rows streamed through a ring.
#include "kernels/geometry/elastic.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace elastic_cpu_impl {
namespace {

// elastic_noise over n consecutive pixels (vectorised: Philox is integer lane arithmetic).
AUG_CLONES void noise_row(const KeyedStream& s, std::size_t first, int n, float* nx, float* ny) {
  for (int i = 0; i < n; ++i) elastic_noise(s, first + static_cast<std::size_t>(i), nx[i], ny[i]);
}

// Source coordinates of a row: px[x] = elastic_source(x, alpha_x dx[x]), py[x] = elastic_source(y, alpha_y dy[x]).
AUG_CLONES void source_row(float* px, float* py, const float* dx, const float* dy, int y, const ElasticArgs& a, int W,
                           int H) {
  for (int x = 0; x < W; ++x) {
    px[x] = elastic_source(x, a.alpha_x * dx[x], W, a.padding);
    py[x] = elastic_source(y, a.alpha_y * dy[x], H, a.padding);
  }
}

// Source coordinates in 1/32 pixel, RNE(p * 32) (|p| < 2^26, so 32 bits hold them).
AUG_CLONES void fixed_coords(int* __restrict X, int* __restrict Y, const float* px, const float* py, int n) {
  for (int x = 0; x < n; ++x) {
    X[x] = static_cast<int>(rne_float(px[x] * 32.f));
    Y[x] = static_cast<int>(rne_float(py[x] * 32.f));
  }
}

// 8- and 16-bit bilinear sampling of a row: elastic_sample_at's fixed-point taps, with the
// all-inside case in 32-bit arithmetic (the weights total 2^15, so the sums fit and the rounded
// result needs no clamp) and the border cases left to elastic_sample_at itself.
template <class T, int C>
void sample_row_fixed(const View<const T>& in, T* d, const float* px, const float* py, int n, const ElasticArgs& a,
                      int* fixed) {
  const int W = in.width, H = in.height;
  fixed_coords(fixed, fixed + n, px, py, n);
  for (int x = 0; x < n; ++x) {
    const int X = fixed[x], Y = fixed[n + x];
    const int x0 = X >> 5, y0 = Y >> 5;
    if (x0 < 0 || y0 < 0 || x0 + 1 >= W || y0 + 1 >= H) {
      elastic_sample_at(in, d + x * C, px[x], py[x], a);
      continue;
    }
    const auto fx = static_cast<std::uint32_t>(X & 31), fy = static_cast<std::uint32_t>(Y & 31);
    const std::uint32_t w0 = (32 - fx) * (32 - fy) * 32, w1 = fx * (32 - fy) * 32, w2 = (32 - fx) * fy * 32, w3 = fx * fy * 32;
    const T* r0 = in.row(y0) + x0 * C;
    const T* r1 = in.row(y0 + 1) + x0 * C;
    for (int c = 0; c < C; ++c)
      d[x * C + c] = static_cast<T>((w0 * r0[c] + w1 * r0[C + c] + w2 * r1[c] + w3 * r1[C + c] + 16384u) >> 15);
  }
}

// `fixed` holds 2n ints.
template <class T>
void sample_row(const View<const T>& in, T* d, const float* px, const float* py, int n, const ElasticArgs& a,
                int* fixed) {
  if constexpr (!std::is_same_v<T, float>) {
    if (!a.nearest) {
      switch (in.channels) {
        case 1: return sample_row_fixed<T, 1>(in, d, px, py, n, a, fixed);
        case 3: return sample_row_fixed<T, 3>(in, d, px, py, n, a, fixed);
        case 4: return sample_row_fixed<T, 4>(in, d, px, py, n, a, fixed);
        default: break;
      }
    }
  }
  for (int x = 0; x < n; ++x) elastic_sample_at(in, d + x * in.channels, px[x], py[x], a);
}

}  // namespace
}  // namespace elastic_cpu_impl


// Streams the rows: the x-smoothed noise rows live in a ring of ky_size rows, each made just
// before the first output row that needs it, so the scratch is O(width x kernel height).
template <class T>
void elastic(View<const T> in, View<T> out, const ElasticArgs& a) {
  const int W = in.width, H = in.height, K = a.ky_size, ry = K / 2;
  const auto w = static_cast<std::size_t>(W);
  // Noise rows with kx_size / 2 zeros on either side: the x smoothing becomes one convolution
  // whose out-of-image terms add +0, which leaves every sum as the kernels' skipping leaves it.
  const int rx = a.kx_size / 2;
  const std::size_t padded = w + 2 * static_cast<std::size_t>(rx);
  std::vector<float> ring(2 * static_cast<std::size_t>(K) * w), noise(2 * padded), acc(2 * w), src(2 * w);
  float* nx = noise.data() + rx;
  float* ny = nx + padded;
  float* ax = acc.data();
  float* ay = ax + w;
  float* px = src.data();
  float* py = px + w;
  std::vector<const float*> rows_x(static_cast<std::size_t>(K)), rows_y(rows_x.size());
  std::vector<int> fixed(2 * w);
  auto smoothed_x = [&](int row) { return ring.data() + static_cast<std::size_t>(row % K) * 2 * w; };
  auto smoothed_y = [&](int row) { return smoothed_x(row) + w; };
  int made = 0;  // rows [0, made) have been smoothed along x
  for (int y = 0; y < H; ++y) {
    for (; made < H && made <= y + K - 1 - ry; ++made) {
      elastic_cpu_impl::noise_row(a.stream, static_cast<std::size_t>(made) * w, W, nx, ny);
      conv_row(smoothed_x(made), nx - rx, W, a.kx, a.kx_size, 1);
      conv_row(smoothed_y(made), ny - rx, W, a.kx, a.kx_size, 1);
    }
    // The rows inside the image, taps in order (zero padding skips the others).
    const int k0 = std::max(0, ry - y), k1 = std::min(K, H + ry - y);
    for (int k = k0; k < k1; ++k) {
      rows_x[k - k0] = smoothed_x(y + k - ry);
      rows_y[k - k0] = smoothed_y(y + k - ry);
    }
    sum_rows(ax, rows_x.data(), W, a.ky + k0, k1 - k0);
    sum_rows(ay, rows_y.data(), W, a.ky + k0, k1 - k0);
    elastic_cpu_impl::source_row(px, py, ax, ay, y, a, W, H);
    elastic_cpu_impl::sample_row(in, out.row(y), px, py, W, a, fixed.data());
  }
}


template void elastic<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const ElasticArgs&);
template void elastic<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const ElasticArgs&);
template void elastic<float>(View<const float>, View<float>, const ElasticArgs&);

}  // namespace aug::k::cpu
