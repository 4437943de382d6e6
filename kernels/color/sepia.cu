#include "kernels/color/sepia.hpp"

namespace aug::k {

namespace sepia_impl {
namespace {

template <class T>
struct SepiaPixel {
  AUG_FIELDS(SepiaPixel, in, out)
  View<const T> in;
  View<T> out;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    sepia_pixel(s, d);
    if (out.channels == 4) d[3] = s[3];
  }
};

}  // namespace
}  // namespace sepia_impl

template <class T>
void sepia(View<const T> in, View<T> out, const Exec& exec) {
  if (exec.cpu) return cpu::sepia(in, out);
  for_2d(sepia_impl::SepiaPixel<T>{in, out}, out.width, out.height, exec, "sepia");
}

template void sepia<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const Exec&);
template void sepia<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const Exec&);
template void sepia<float>(View<const float>, View<float>, const Exec&);

}  // namespace aug::k
