#include "kernels/weather/sun_flare.hpp"

namespace aug::k {

namespace sun_flare_impl {
namespace {

template <class T>
struct FlarePixel {
  AUG_FIELDS(FlarePixel, in, out, a)
  View<const T> in;
  View<T> out;
  SunFlareArgs a;

  AUG_HD void operator()(int x, int y) const {
    const int id = a.cover[static_cast<std::size_t>(y) * static_cast<std::size_t>(out.width) + x];
    const std::uint8_t* t = a.table + static_cast<std::size_t>(id) * static_cast<std::size_t>(out.channels) * 256;
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = from_u8_io<T>(t[c * 256 + to_u8_io(s[c])]);
  }
};

template <class T>
struct FlareScreenPixel {
  AUG_FIELDS(FlareScreenPixel, in, out, a)
  View<const T> in;
  View<T> out;
  SunFlareScreenArgs a;

  AUG_HD void operator()(int x, int y) const {
    const int C = out.channels;
    const float* f = a.layer + (static_cast<std::size_t>(y) * static_cast<std::size_t>(out.width) + x) * C;
    const T* s = in.row(y) + x * C;
    T* d = out.row(y) + x * C;
    for (int c = 0; c < C; ++c) d[c] = from_u8_io<T>(sun_flare_screen_value(to_u8_io(s[c]), f[c]));
  }
};

}  // namespace
}  // namespace sun_flare_impl

template <class T>
void sun_flare(View<const T> in, View<T> out, const SunFlareArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::sun_flare(in, out, args);
  for_2d(sun_flare_impl::FlarePixel<T>{in, out, args}, out.width, out.height, exec, "sun_flare");
}

template <class T>
void sun_flare_screen(View<const T> in, View<T> out, const SunFlareScreenArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::sun_flare_screen(in, out, args);
  for_2d(sun_flare_impl::FlareScreenPixel<T>{in, out, args}, out.width, out.height, exec, "sun_flare_screen");
}

template void sun_flare<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SunFlareArgs&, const Exec&);
template void sun_flare<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const SunFlareArgs&,
                                       const Exec&);
template void sun_flare<float>(View<const float>, View<float>, const SunFlareArgs&, const Exec&);
template void sun_flare_screen<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SunFlareScreenArgs&,
                                             const Exec&);
template void sun_flare_screen<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>,
                                              const SunFlareScreenArgs&, const Exec&);
template void sun_flare_screen<float>(View<const float>, View<float>, const SunFlareScreenArgs&, const Exec&);

}  // namespace aug::k
