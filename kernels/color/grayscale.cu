#include "kernels/color/grayscale.hpp"

#include <cstdint>

namespace aug::k {

namespace grayscale_impl {
namespace {

template <class T>
struct GrayPixel {
  AUG_FIELDS(GrayPixel, in, out, opencv)
  View<const T> in;
  View<T> out;
  bool opencv;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    const T l = opencv ? grayscale_cv_value<T>(s[0], s[1], s[2]) : grayscale_value<T>(s[0], s[1], s[2]);
    d[0] = l;
    d[1] = l;
    d[2] = l;
    if (out.channels == 4) d[3] = s[3];
  }
};

}  // namespace
}  // namespace grayscale_impl

template <class T>
void grayscale(View<const T> in, View<T> out, const Exec& exec, bool opencv) {
  if (exec.cpu && !opencv) return cpu::grayscale(in, out);
  for_2d(grayscale_impl::GrayPixel<T>{in, out, opencv}, out.width, out.height, exec, "grayscale");
}

template void grayscale<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const Exec&, bool);
template void grayscale<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const Exec&, bool);
template void grayscale<float>(View<const float>, View<float>, const Exec&, bool);

}  // namespace aug::k
