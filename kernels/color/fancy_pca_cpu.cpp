// fancy_pca's host driver (the CPU backend): the kernels' functions (kernels/color/fancy_pca.hpp),
// row by row; 8-bit row sums in 32-bit lanes over blocks short enough to stay exact, then int64.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/color/fancy_pca.hpp"
#include "kernels/core/host_simd.hpp"  // AUG_CLONES

namespace aug::k::cpu {

namespace fancy_pca_cpu_impl {
namespace {

// The 8-bit RGB row sums of pca_row_sums, exact: blocks of 16384 pixels keep every 32-bit sum below
// 16384 * 65025 < 2^31; the block's channels are first copied apart so that the sums vectorise
// (integer sums: their order cannot change them).
constexpr int kBlock = 16384;

AUG_CLONES PcaSums<long long> rgb8_row_sums(const std::uint8_t* row, int width, int channels, std::uint32_t* buf) {
  PcaSums<long long> r{};
  std::uint32_t* p0 = buf;
  std::uint32_t* p1 = buf + kBlock;
  std::uint32_t* p2 = buf + 2 * kBlock;
  for (int x0 = 0; x0 < width; x0 += kBlock) {
    const int n = width - x0 < kBlock ? width - x0 : kBlock;
    const std::uint8_t* s = row + static_cast<std::size_t>(x0) * channels;
    for (int i = 0; i < n; ++i) {
      p0[i] = s[i * channels];
      p1[i] = s[i * channels + 1];
      p2[i] = s[i * channels + 2];
    }
    std::uint32_t s0 = 0, s1 = 0, s2 = 0, s00 = 0, s01 = 0, s02 = 0, s11 = 0, s12 = 0, s22 = 0;
    for (int i = 0; i < n; ++i) {
      const std::uint32_t v0 = p0[i], v1 = p1[i], v2 = p2[i];
      s0 += v0;
      s1 += v1;
      s2 += v2;
      s00 += v0 * v0;
      s01 += v0 * v1;
      s02 += v0 * v2;
      s11 += v1 * v1;
      s12 += v1 * v2;
      s22 += v2 * v2;
    }
    const std::uint32_t t[9] = {s0, s1, s2, s00, s01, s02, s11, s12, s22};
    for (int i = 0; i < 9; ++i) r.s[i] += t[i];
  }
  return r;
}

// pca_pixel over a row, channel planes apart so that the binary32 loop vectorises: the same
// operations in the same order per value.
template <class T, int C, int CC>
AUG_CLONES void apply_row(const T* s, T* d, int width, PcaMap m, float* planes) {
  float* x0 = planes;
  float* x1 = planes + width;
  float* x2 = planes + 2 * width;
  for (int x = 0; x < width; ++x) {
    x0[x] = pca_unit(s[x * C]);
    if constexpr (CC == 3) {
      x1[x] = pca_unit(s[x * C + 1]);
      x2[x] = pca_unit(s[x * C + 2]);
    }
  }
  if constexpr (CC == 1) {
    for (int x = 0; x < width; ++x) d[x * C] = pca_out<T>(x0[x] + m.m[0] * (x0[x] - m.mu[0]));
    return;
  } else {
    for (int x = 0; x < width; ++x) {
      const float c0 = x0[x] - m.mu[0], c1 = x1[x] - m.mu[1], c2 = x2[x] - m.mu[2];
      float n0 = m.m[0] * c0, n1 = m.m[3] * c0, n2 = m.m[6] * c0;
      n0 = n0 + m.m[1] * c1;
      n1 = n1 + m.m[4] * c1;
      n2 = n2 + m.m[7] * c1;
      n0 = n0 + m.m[2] * c2;
      n1 = n1 + m.m[5] * c2;
      n2 = n2 + m.m[8] * c2;
      x0[x] = x0[x] + n0;
      x1[x] = x1[x] + n1;
      x2[x] = x2[x] + n2;
    }
    for (int x = 0; x < width; ++x) {
      d[x * C] = pca_out<T>(x0[x]);
      d[x * C + 1] = pca_out<T>(x1[x]);
      d[x * C + 2] = pca_out<T>(x2[x]);
      if constexpr (C == 4) d[x * C + 3] = s[x * C + 3];
    }
  }
}

}  // namespace
}  // namespace fancy_pca_cpu_impl

template <class T>
void fancy_pca(View<const T> in, View<T> out, const PcaAlpha& alpha, int color_channels) {
  using A = std::conditional_t<std::is_same_v<T, float>, double, long long>;
  PcaSums<A> t{}, chunk{};
  std::vector<std::uint32_t> buf(std::is_same_v<T, std::uint8_t> && color_channels == 3 ? 3 * fancy_pca_cpu_impl::kBlock : 0);
  for (int y = 0; y < in.height; ++y) {
    PcaSums<A> r;
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      if (color_channels == 3) r = fancy_pca_cpu_impl::rgb8_row_sums(in.row(y), in.width, in.channels, buf.data());
      else r = pca_row_sums<A>(in.row(y), in.width, in.channels, color_channels);
    } else {
      r = pca_row_sums<A>(in.row(y), in.width, in.channels, color_channels);
    }
    pca_add(chunk, r);
    if ((y + 1) % kPcaChunk == 0 || y + 1 == in.height) {  // the device's order of the totals
      pca_add(t, chunk);
      chunk = PcaSums<A>{};
    }
  }
  double max = 1.0;
  if constexpr (!std::is_same_v<T, float>) max = static_cast<double>(SampleTraits<T>::max);
  const PcaMap m = pca_map(t, static_cast<double>(in.width) * in.height, max, color_channels, alpha.a);
  std::vector<float> planes(3 * static_cast<std::size_t>(out.width));
  for (int y = 0; y < out.height; ++y) {
    const T* s = in.row(y);
    T* d = out.row(y);
    switch (in.channels) {
      case 1: fancy_pca_cpu_impl::apply_row<T, 1, 1>(s, d, out.width, m, planes.data()); break;
      case 3: fancy_pca_cpu_impl::apply_row<T, 3, 3>(s, d, out.width, m, planes.data()); break;
      default: fancy_pca_cpu_impl::apply_row<T, 4, 3>(s, d, out.width, m, planes.data()); break;
    }
  }
}

template void fancy_pca<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const PcaAlpha&, int);
template void fancy_pca<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const PcaAlpha&, int);
template void fancy_pca<float>(View<const float>, View<float>, const PcaAlpha&, int);

}  // namespace aug::k::cpu
