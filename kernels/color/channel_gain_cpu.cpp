// channel_gain's vectorised host driver: the same formula as the kernels, row by row.
#include "kernels/color/channel_gain.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace channel_gain_cpu_impl {
namespace {

AUG_CLONES void gain_row(std::uint8_t* d, const std::uint8_t* s, const std::int32_t* g, int n) {
  for (int i = 0; i < n; ++i) {
    const std::int32_t v = (s[i] * g[i] + 32768) >> 16;
    d[i] = static_cast<std::uint8_t>(v > 255 ? 255 : v);
  }
}

}  // namespace
}  // namespace channel_gain_cpu_impl

template <class T>
void channel_gain(View<const T> in, View<T> out, const GainArgs& a) {
  const int C = in.channels, n = in.width * C;
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    std::vector<std::int32_t> g(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) g[i] = static_cast<std::int32_t>(i % C < a.color_channels ? a.fixed[i % C] : 65536);
    for (int y = 0; y < in.height; ++y) channel_gain_cpu_impl::gain_row(out.row(y), in.row(y), g.data(), n);
  } else {
    for (int y = 0; y < in.height; ++y) {
      const T* s = in.row(y);
      T* d = out.row(y);
      for (int i = 0; i < n; ++i) d[i] = gain_value(s[i], i % C, a);
    }
  }
}


template void channel_gain<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const GainArgs&);
template void channel_gain<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const GainArgs&);
template void channel_gain<float>(View<const float>, View<float>, const GainArgs&);

}  // namespace aug::k::cpu
