// sun_flare's host driver: the kernels' table look-ups, a row at a time.
#include "kernels/weather/sun_flare.hpp"

namespace aug::k::cpu {

template <class T>
void sun_flare(View<const T> in, View<T> out, const SunFlareArgs& a) {
  const int C = in.channels, W = in.width;
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    T* d = out.row(y);
    const std::uint16_t* cover = a.cover + static_cast<std::size_t>(y) * W;
    for (int x = 0; x < W; ++x) {
      const std::uint8_t* t = a.table + static_cast<std::size_t>(cover[x]) * static_cast<std::size_t>(C) * 256;
      for (int c = 0; c < C; ++c) d[x * C + c] = from_u8_io<T>(t[c * 256 + to_u8_io(s[x * C + c])]);
    }
  }
}

// physics_based: the kernels' screen blend, a row at a time.
template <class T>
void sun_flare_screen(View<const T> in, View<T> out, const SunFlareScreenArgs& a) {
  const int C = in.channels, W = in.width;
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    T* d = out.row(y);
    const float* f = a.layer + static_cast<std::size_t>(y) * static_cast<std::size_t>(W) * C;
    for (int x = 0; x < W * C; ++x) d[x] = from_u8_io<T>(sun_flare_screen_value(to_u8_io(s[x]), f[x]));
  }
}

template void sun_flare_screen<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SunFlareScreenArgs&);
template void sun_flare_screen<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>,
                                              const SunFlareScreenArgs&);
template void sun_flare_screen<float>(View<const float>, View<float>, const SunFlareScreenArgs&);

template void sun_flare<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SunFlareArgs&);
template void sun_flare<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const SunFlareArgs&);
template void sun_flare<float>(View<const float>, View<float>, const SunFlareArgs&);

}  // namespace aug::k::cpu
