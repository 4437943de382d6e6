// sharpness's vectorised host driver for 8-bit images: the kernels' arithmetic (sharpness.hpp) row
// by row. The 3x3 sum is a vertical sum of three rows, then three of those side by side; the
// degenerate value and the blend are the same integer and binary32 operations as the kernels'.
// 16-bit and float images run the kernel bodies.
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/color/sharpness.hpp"
#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace sharpness_cpu_impl {
namespace {

AUG_CLONES void column_sums(const std::uint8_t* __restrict a, const std::uint8_t* __restrict b,
                            const std::uint8_t* __restrict c, std::uint16_t* __restrict sum, int n) {
  for (int i = 0; i < n; ++i) sum[i] = static_cast<std::uint16_t>(a[i] + b[i] + c[i]);
}

// Values [C, n - C) of an interior row: v the centre row, sum its column sums.
AUG_CLONES void sharpen_row(const std::uint8_t* __restrict v, const std::uint16_t* __restrict sum,
                            std::uint8_t* __restrict d, int n, int C, float rest) {
  for (int i = C; i < n - C; ++i) {
    const std::uint32_t box = static_cast<std::uint32_t>(sum[i - C]) + sum[i] + sum[i + C];
    const std::uint32_t centre = v[i];
    // sharpness_degenerate: (2 (neighbours + 5 centre) + 13) / 26, neighbours = box - centre.
    const std::uint32_t deg = (2 * (box + 4 * centre) + 13) / 26;
    const float x = static_cast<float>(centre);
    float o = x + rest * (static_cast<float>(deg) - x);
    o = o > 0.f ? o : 0.f;  // NaN to 0, as in the kernels
    o = o > 255.f ? 255.f : o;
    d[i] = static_cast<std::uint8_t>(static_cast<std::int32_t>(o));
  }
}

}  // namespace
}  // namespace sharpness_cpu_impl

void sharpness(View<const std::uint8_t> in, View<std::uint8_t> out, const SharpnessArgs& a) {
  const int C = in.channels, n = in.width * C;
  const std::size_t bytes = static_cast<std::size_t>(n);
  std::vector<std::uint16_t> sum(bytes);
  // Rows are read from `in` only and written to `out` one at a time; out may not alias in.
  std::memcpy(out.row(0), in.row(0), bytes);
  std::memcpy(out.row(in.height - 1), in.row(in.height - 1), bytes);
  for (int y = 1; y < in.height - 1; ++y) {
    const std::uint8_t* s = in.row(y);
    std::uint8_t* d = out.row(y);
    sharpness_cpu_impl::column_sums(in.row(y - 1), s, in.row(y + 1), sum.data(), n);
    sharpness_cpu_impl::sharpen_row(s, sum.data(), d, n, C, a.rest);
    for (int c = 0; c < C; ++c) {  // the border pixels
      d[c] = s[c];
      d[n - C + c] = s[n - C + c];
    }
    for (int c = a.color_channels; c < C; ++c)  // alpha
      for (int x = 1; x < in.width - 1; ++x) d[x * C + c] = s[x * C + c];
  }
}

}  // namespace aug::k::cpu
