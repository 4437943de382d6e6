#include "kernels/color/gaussian_illumination.hpp"

namespace aug::k {

namespace gaussian_illumination_impl {
namespace {

template <class T>
struct IlluminationPixel {
  AUG_FIELDS(IlluminationPixel, in, out, a)
  View<const T> in;
  View<T> out;
  IlluminationArgs a;

  AUG_HD void operator()(int x, int y) const {
    const float n = (a.gy[y] * a.gx[x] - a.gmin) / a.denom;
    const float gradient = a.signed_gain * n;
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c)
      d[c] = c < a.color_channels ? from_unit<T>(clamp01(to_unit(s[c]) + gradient)) : s[c];
  }
};

}  // namespace
}  // namespace gaussian_illumination_impl

template <class T>
void illumination(View<const T> in, View<T> out, const IlluminationArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::illumination(in, out, args);
  for_2d(gaussian_illumination_impl::IlluminationPixel<T>{in, out, args}, out.width, out.height, exec, "gaussian_illumination");
}

template void illumination<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const IlluminationArgs&,
                                         const Exec&);
template void illumination<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const IlluminationArgs&,
                                          const Exec&);
template void illumination<float>(View<const float>, View<float>, const IlluminationArgs&, const Exec&);

}  // namespace aug::k
