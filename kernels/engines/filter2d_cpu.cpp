// The filter2d engine's host driver: the same fused sums as the kernels (taps in order, one
// rounding each), over whole rows of a float copy of the image padded by reflection.
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/core/border.hpp"
#include "kernels/core/host_simd.hpp"
#include "kernels/engines/filter2d.hpp"

namespace aug::k::cpu {

namespace filter2d_cpu_impl {
namespace {

// acc[j] = fma(src[j], w, acc[j]) for j < n.
void fma_row_portable(float* acc, const float* src, int n, float w) {
  for (int j = 0; j < n; ++j) acc[j] = __builtin_fmaf(src[j], w, acc[j]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define AUG_FILTER2D_FMA 1
// All the taps of a row at once, 64 outputs at a time in eight registers: acc = fma(src, w, acc) per
// tap in order, as the kernels; the remaining outputs one by one.
[[gnu::target("avx2,fma")]] void taps_row_fma3(float* out, const float* const* src, const float* w, int taps, int n) {
  int j = 0;
  for (; j + 64 <= n; j += 64) {
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    for (int t = 0; t < taps; ++t) {
      const float* p = src[t] + j;
      const __m256 wv = _mm256_set1_ps(w[t]);
      a0 = _mm256_fmadd_ps(_mm256_loadu_ps(p), wv, a0);
      a1 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 8), wv, a1);
      a2 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 16), wv, a2);
      a3 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 24), wv, a3);
      a4 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 32), wv, a4);
      a5 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 40), wv, a5);
      a6 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 48), wv, a6);
      a7 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 56), wv, a7);
    }
    _mm256_storeu_ps(out + j, a0);
    _mm256_storeu_ps(out + j + 8, a1);
    _mm256_storeu_ps(out + j + 16, a2);
    _mm256_storeu_ps(out + j + 24, a3);
    _mm256_storeu_ps(out + j + 32, a4);
    _mm256_storeu_ps(out + j + 40, a5);
    _mm256_storeu_ps(out + j + 48, a6);
    _mm256_storeu_ps(out + j + 56, a7);
  }
  for (; j < n; ++j) {
    float acc = 0.0f;
    for (int t = 0; t < taps; ++t) acc = __builtin_fmaf(src[t][j], w[t], acc);
    out[j] = acc;
  }
}

[[gnu::target("avx2,fma")]] void fma_row_fma3(float* acc, const float* src, int n, float w) {
  const __m256 wv = _mm256_set1_ps(w);
  int j = 0;
  for (; j + 8 <= n; j += 8)
    _mm256_storeu_ps(acc + j, _mm256_fmadd_ps(_mm256_loadu_ps(src + j), wv, _mm256_loadu_ps(acc + j)));
  for (; j < n; ++j) acc[j] = __builtin_fmaf(src[j], w, acc[j]);
}
#endif

using FmaRow = void (*)(float*, const float*, int, float);

FmaRow pick_fma_row() {
#if defined(AUG_FILTER2D_FMA)
  if (host_has_avx2() && __builtin_cpu_supports("fma")) return fma_row_fma3;
#endif
  return fma_row_portable;
}

}  // namespace
}  // namespace filter2d_cpu_impl

template <class T>
void filter2d(View<const T> in, View<T> out, const Filter2DArgs& a) {
  static const filter2d_cpu_impl::FmaRow fma_row = filter2d_cpu_impl::pick_fma_row();
  const int W = in.width, H = in.height, C = in.channels, n = W * C;
  int rx = 0;
  for (int t = 0; t < a.count; ++t) {
    const int dx = a.offsets[2 * t] < 0 ? -a.offsets[2 * t] : a.offsets[2 * t];
    rx = dx > rx ? dx : rx;
  }
  // The image as floats, each row padded by rx columns reflected without repeating the edge.
  const int pw = (W + 2 * rx) * C;
  std::vector<float> plane(static_cast<std::size_t>(pw) * H);
  for (int y = 0; y < H; ++y) {
    const T* s = in.row(y);
    float* d = plane.data() + static_cast<std::size_t>(y) * pw;
    for (int x = -rx; x < W + rx; ++x) {
      const int sx = border_index(x, W, kBorderReflect101);
      for (int c = 0; c < C; ++c) d[(x + rx) * C + c] = static_cast<float>(s[sx * C + c]);
    }
  }
  std::vector<float> acc(static_cast<std::size_t>(n));
  std::vector<const float*> src(static_cast<std::size_t>(a.count));
  for (int y = 0; y < H; ++y) {
    for (int t = 0; t < a.count; ++t) {
      const int sy = border_index(y + a.offsets[2 * t + 1], H, kBorderReflect101);
      src[static_cast<std::size_t>(t)] = plane.data() + static_cast<std::size_t>(sy) * pw + (a.offsets[2 * t] + rx) * C;
    }
#if defined(AUG_FILTER2D_FMA)
    if (fma_row == filter2d_cpu_impl::fma_row_fma3) {
      filter2d_cpu_impl::taps_row_fma3(acc.data(), src.data(), a.weights, a.count, n);
    } else
#endif
    {
      std::memset(acc.data(), 0, acc.size() * sizeof(float));
      for (int t = 0; t < a.count; ++t) fma_row(acc.data(), src[static_cast<std::size_t>(t)], n, a.weights[t]);
    }
    T* o = out.row(y);
    if constexpr (std::is_same_v<T, float>) {
      for (int j = 0; j < n; ++j) o[j] = a.clip ? clamp01(acc[static_cast<std::size_t>(j)]) : acc[static_cast<std::size_t>(j)];
    } else {
      for (int j = 0; j < n; ++j) o[j] = saturate<T>(rne(acc[static_cast<std::size_t>(j)]));
    }
  }
}

template void filter2d<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const Filter2DArgs&);
template void filter2d<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const Filter2DArgs&);
template void filter2d<float>(View<const float>, View<float>, const Filter2DArgs&);

}  // namespace aug::k::cpu
