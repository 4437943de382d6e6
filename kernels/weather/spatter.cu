#include "kernels/weather/spatter.hpp"

namespace aug::k {

namespace spatter_impl {
namespace {

template <class T>
struct SpatterPixel {
  AUG_FIELDS(SpatterPixel, in, out, a)
  View<const T> in;
  View<T> out;
  SpatterArgs a;

  AUG_HD void operator()(int x, int y) const {
    const float l = a.layer[static_cast<std::size_t>(y) * static_cast<std::size_t>(out.width) + x];
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = spatter_value(s[c], l, spatter_color(a, c), a);
  }
};

}  // namespace
}  // namespace spatter_impl

template <class T>
void spatter(View<const T> in, View<T> out, const SpatterArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::spatter(in, out, args);
  for_2d(spatter_impl::SpatterPixel<T>{in, out, args}, out.width, out.height, exec, "spatter");
}

template void spatter<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SpatterArgs&, const Exec&);
template void spatter<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const SpatterArgs&, const Exec&);
template void spatter<float>(View<const float>, View<float>, const SpatterArgs&, const Exec&);

}  // namespace aug::k
