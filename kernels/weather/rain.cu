#include "kernels/weather/rain.hpp"

namespace aug::k {

namespace rain_impl {
namespace {

template <class T>
struct RainPixel {
  AUG_FIELDS(RainPixel, in, out, a)
  View<const T> in;
  View<T> out;
  RainArgs a;

  AUG_HD void operator()(int x, int y) const {
    const int C = out.channels;
    const std::uint8_t* l = a.layer + (static_cast<std::size_t>(y) * static_cast<std::size_t>(out.width) + x) * C;
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * C;
    for (int c = 0; c < C; ++c) d[c] = rain_value(s[c], l[c], a);
  }
};

}  // namespace
}  // namespace rain_impl

template <class T>
void rain(View<const T> in, View<T> out, const RainArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::rain(in, out, args);
  for_2d(rain_impl::RainPixel<T>{in, out, args}, out.width, out.height, exec, "rain");
}

template void rain<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const RainArgs&, const Exec&);
template void rain<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const RainArgs&, const Exec&);
template void rain<float>(View<const float>, View<float>, const RainArgs&, const Exec&);

}  // namespace aug::k
