// fill_rects's host driver: the rows copied, then the rectangles filled (a pixel in several takes
// the same value from each). Random fills take the Philox blocks of a rectangle's row segment at
// once (computed across pixels, so that they vectorise), then kernels' random_fill per value (8/16-bit
// with AVX2: eight normals at a time, normal_cpu.hpp).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <type_traits>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/fill_rects.hpp"
#include "kernels/noise/normal_cpu.hpp"

namespace aug::k::cpu {

namespace fill_rects_cpu_impl {
namespace {

// random_fill<T> of n values d[x C] from bits[x]; for integers sat(RNE(z max)), |z max| < 2^31.
template <class T>
AUG_CLONES void random_values(T* d, int C, const std::uint32_t* __restrict bits, int n, const float* normal) {
  if constexpr (std::is_same_v<T, float>) {
    for (int x = 0; x < n; ++x) d[x * C] = random_fill<T>(bits[x], normal);
  } else {
    // Half the values saturate at 0: integer selects, which compile without branches.
    constexpr std::int32_t top = static_cast<std::int32_t>(SampleTraits<T>::max);
    for (int x = 0; x < n; ++x) {
      std::int32_t v = static_cast<std::int32_t>(__builtin_rintf(standard_normal(bits[x], normal) * static_cast<float>(top)));
      v = v < 0 ? 0 : v;
      v = v > top ? top : v;
      d[x * C] = static_cast<T>(v);
    }
  }
}

#if defined(AUG_AVX2_PHILOX)
// The same for 8/16-bit samples with AVX2, eight values at a time: RNE(z max) clamped in binary32
// (the same integers for these finite products), then stored C apart.
template <class T>
[[gnu::target("avx2")]] void random_values_avx2(T* d, int C, const std::uint32_t* bits, int n, const float* pairs,
                                                const float* normal) {
  const __m256 top = _mm256_set1_ps(static_cast<float>(SampleTraits<T>::max)), zero = _mm256_setzero_ps();
  int x = 0;
  alignas(32) std::int32_t v[8];
  for (; x + 8 <= n; x += 8) {
    __m256 y = _mm256_mul_ps(standard_normal8(bits + x, pairs, normal), top);
    y = _mm256_round_ps(y, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    y = _mm256_min_ps(top, _mm256_max_ps(zero, y));
    _mm256_store_si256(reinterpret_cast<__m256i*>(v), _mm256_cvttps_epi32(y));
    T* o = d + static_cast<std::size_t>(x) * C;
    for (int l = 0; l < 8; ++l) o[l * C] = static_cast<T>(v[l]);
  }
  if (x < n) random_values(d + static_cast<std::size_t>(x) * C, C, bits + x, n - x, normal);
}
#endif

// random_values, with AVX2 where the machine has it (`pairs` from normal_cell_pairs, else empty).
template <class T>
void random_values_any(T* d, int C, const std::uint32_t* bits, int n, const std::vector<float>& pairs,
                       const float* normal) {
#if defined(AUG_AVX2_PHILOX)
  if constexpr (!std::is_same_v<T, float>)
    if (!pairs.empty()) return random_values_avx2(d, C, bits, n, pairs.data(), normal);
#endif
  random_values(d, C, bits, n, normal);
}

}  // namespace
}  // namespace fill_rects_cpu_impl

template <class T>
void fill_rects(View<const T> in, View<T> out, const FillArgs& a) {
  const int C = out.channels, cc = a.color_channels;
  const std::size_t row = static_cast<std::size_t>(out.width) * C * sizeof(T);
  for (int y = 0; y < out.height; ++y) std::memcpy(out.row(y), in.row(y), row);
  std::vector<std::uint32_t> words(a.random ? 3 * static_cast<std::size_t>(out.width) : 0);
#if defined(AUG_AVX2_PHILOX)
  const std::vector<float> pairs = a.random && host_has_avx2() ? normal_cell_pairs(a.normal) : std::vector<float>{};
#else
  const std::vector<float> pairs;
#endif
  // A constant fill: its samples once; with every channel filled, one row segment copied per row.
  T fill[4] = {};
  for (int c = 0; c < cc && c < 4; ++c) fill[c] = static_cast<T>(a.fill[c]);
  std::vector<T> segment;
  for (int r = 0; r < a.count; ++r) {
    const int* q = a.rects + 4 * r;
    const int x0 = q[0] < 0 ? 0 : q[0], y0 = q[1] < 0 ? 0 : q[1];
    const int x1 = q[2] > out.width ? out.width : q[2], y1 = q[3] > out.height ? out.height : q[3];
    if (x1 <= x0) continue;
    const int n = x1 - x0;
    if (!a.random && cc == C) {
      segment.resize(static_cast<std::size_t>(n) * C);
      for (int x = 0; x < n; ++x)
        for (int c = 0; c < C; ++c) segment[static_cast<std::size_t>(x) * C + c] = fill[c];
      for (int y = y0; y < y1; ++y)
        std::memcpy(out.row(y) + static_cast<std::size_t>(x0) * C, segment.data(), segment.size() * sizeof(T));
      continue;
    }
    for (int y = y0; y < y1; ++y) {
      T* d = out.row(y) + static_cast<std::size_t>(x0) * C;
      if (!a.random) {
        for (int x = 0; x < n; ++x)
          for (int c = 0; c < cc; ++c) d[x * C + c] = fill[c];
        continue;
      }
      std::uint32_t* w[3] = {words.data(), words.data() + n, words.data() + 2 * n};
      philox_blocks(a.stream, static_cast<std::uint32_t>(static_cast<std::size_t>(y) * out.width + x0), 1, n, w[0],
                    w[1], w[2]);
      for (int c = 0; c < cc; ++c) fill_rects_cpu_impl::random_values_any(d + c, C, w[c], n, pairs, a.normal);
    }
  }
}

template void fill_rects<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const FillArgs&);
template void fill_rects<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const FillArgs&);
template void fill_rects<float>(View<const float>, View<float>, const FillArgs&);

}  // namespace aug::k::cpu

namespace aug::k {

void fill_row_spans(const int* rects, int count, int width, int height, std::vector<int>& row_start,
                    std::vector<int>& spans) {
  std::vector<std::vector<std::pair<int, int>>> rows(static_cast<std::size_t>(std::max(height, 0)));
  for (int r = 0; r < count; ++r) {
    const int* q = rects + 4 * r;
    const int x0 = std::max(q[0], 0), y0 = std::max(q[1], 0), x1 = std::min(q[2], width), y1 = std::min(q[3], height);
    if (x1 <= x0) continue;
    for (int y = y0; y < y1; ++y) rows[static_cast<std::size_t>(y)].emplace_back(x0, x1);
  }
  row_start.assign(1, 0);
  spans.clear();
  for (auto& row : rows) {
    std::sort(row.begin(), row.end());
    const std::size_t begin = spans.size();
    for (const auto& [x0, x1] : row) {
      if (spans.size() > begin && x0 <= spans.back()) spans.back() = std::max(spans.back(), x1);  // overlaps or touches
      else spans.insert(spans.end(), {x0, x1});
    }
    row_start.push_back(static_cast<int>(spans.size() / 2));
  }
}

}  // namespace aug::k
