// rain's host driver: the kernels' rain_value, a row at a time (8-bit rows: two look-ups a value).
#include "kernels/weather/rain.hpp"

namespace aug::k::cpu {

template <class T>
void rain(View<const T> in, View<T> out, const RainArgs& a) {
  const int n = in.width * in.channels;
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    T* d = out.row(y);
    const std::uint8_t* l = a.layer + static_cast<std::size_t>(y) * static_cast<std::size_t>(n);
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      for (int i = 0; i < n; ++i) {
        const int v = s[i] + l[i];
        d[i] = a.scaled[v > 255 ? 255 : v];
      }
    } else {
      for (int i = 0; i < n; ++i) d[i] = rain_value(s[i], l[i], a);
    }
  }
}

template void rain<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const RainArgs&);
template void rain<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const RainArgs&);
template void rain<float>(View<const float>, View<float>, const RainArgs&);

}  // namespace aug::k::cpu
