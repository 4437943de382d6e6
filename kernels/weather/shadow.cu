#include "kernels/weather/shadow.hpp"

namespace aug::k {

namespace shadow_impl {
namespace {

template <class T>
struct ShadowPixel {
  AUG_FIELDS(ShadowPixel, in, out, a)
  View<const T> in;
  View<T> out;
  ShadowArgs a;

  AUG_HD void operator()(int x, int y) const {
    const unsigned bits = a.cover[static_cast<std::size_t>(y) * static_cast<std::size_t>(out.width) + x];
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) {
      T v = s[c];
      if (c < a.color_channels)
        for (int k = 0; k < a.count; ++k)
          if ((bits >> k) & 1u) v = shade_value(v, a.keep[k]);
      d[c] = v;
    }
  }
};

}  // namespace
}  // namespace shadow_impl

template <class T>
void shadow(View<const T> in, View<T> out, const ShadowArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::shadow(in, out, args);
  for_2d(shadow_impl::ShadowPixel<T>{in, out, args}, out.width, out.height, exec, "shadow");
}

template void shadow<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const ShadowArgs&, const Exec&);
template void shadow<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const ShadowArgs&, const Exec&);
template void shadow<float>(View<const float>, View<float>, const ShadowArgs&, const Exec&);

}  // namespace aug::k
