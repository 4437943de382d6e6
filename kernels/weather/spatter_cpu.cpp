// spatter's host driver: the kernels' spatter_value, a row at a time.
#include <type_traits>

#include "kernels/weather/spatter.hpp"

namespace aug::k::cpu {

template <class T>
void spatter(View<const T> in, View<T> out, const SpatterArgs& a) {
  const int C = in.channels, W = in.width;
  const double color[3] = {a.c0, a.c1, a.c2};
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    T* d = out.row(y);
    const float* layer = a.layer + static_cast<std::size_t>(y) * W;
    for (int x = 0; x < W; ++x) {
      if (layer[x] == 0.f) {
        // No liquid: spatter_value adds +0 (rain) or keeps x * 1 and adds +0 (mud). An 8/16-bit value
        // survives the round trip v / max * max exactly; a float is clamped (and -0 becomes +0).
        for (int c = 0; c < C; ++c) {
          if constexpr (std::is_same_v<T, float>) d[x * C + c] = clamp01(s[x * C + c] + 0.f);
          else d[x * C + c] = s[x * C + c];
        }
        continue;
      }
      for (int c = 0; c < C; ++c) d[x * C + c] = spatter_value(s[x * C + c], layer[x], color[c], a);
    }
  }
}

template void spatter<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SpatterArgs&);
template void spatter<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const SpatterArgs&);
template void spatter<float>(View<const float>, View<float>, const SpatterArgs&);

}  // namespace aug::k::cpu
