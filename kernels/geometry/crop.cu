#include "kernels/geometry/crop.hpp"

#include <cstdint>

namespace aug::k {

namespace {

template <class T>
struct CropPixel {
  View<const T> in;
  View<T> out;
  int x0, y0;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y + y0) + (x + x0) * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = s[c];
  }
};

}  // namespace

template <class T>
void crop(View<const T> in, View<T> out, int x0, int y0, const Exec& exec) {
  for_2d(CropPixel<T>{in, out, x0, y0}, out.width, out.height, exec, "crop");
}

#define AUG_INSTANTIATE(T) template void crop<T>(View<const T>, View<T>, int, int, const Exec&);
AUG_INSTANTIATE(std::uint8_t)
AUG_INSTANTIATE(std::uint16_t)
AUG_INSTANTIATE(float)
#undef AUG_INSTANTIATE

}  // namespace aug::k
