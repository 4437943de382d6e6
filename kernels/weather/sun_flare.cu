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

}  // namespace
}  // namespace sun_flare_impl

template <class T>
void sun_flare(View<const T> in, View<T> out, const SunFlareArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::sun_flare(in, out, args);
  for_2d(sun_flare_impl::FlarePixel<T>{in, out, args}, out.width, out.height, exec, "sun_flare");
}

template void sun_flare<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SunFlareArgs&, const Exec&);
template void sun_flare<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const SunFlareArgs&,
                                       const Exec&);
template void sun_flare<float>(View<const float>, View<float>, const SunFlareArgs&, const Exec&);

}  // namespace aug::k
