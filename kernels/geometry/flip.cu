#include "kernels/geometry/flip.hpp"

#include <cstdint>

namespace aug::k {

namespace {

template <class T>
struct FlipPixel {
  View<const T> in;
  View<T> out;
  bool horizontal, vertical;

  AUG_HD void operator()(int x, int y) const {
    const int sx = horizontal ? in.width - 1 - x : x;
    const int sy = vertical ? in.height - 1 - y : y;
    const T* s = in.row(sy) + sx * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = s[c];
  }
};

}  // namespace

template <class T>
void flip(View<const T> in, View<T> out, bool horizontal, bool vertical, const Exec& exec) {
  for_2d(FlipPixel<T>{in, out, horizontal, vertical}, out.width, out.height, exec, "flip");
}

#define AUG_INSTANTIATE(T) template void flip<T>(View<const T>, View<T>, bool, bool, const Exec&);
AUG_INSTANTIATE(std::uint8_t)
AUG_INSTANTIATE(std::uint16_t)
AUG_INSTANTIATE(float)
#undef AUG_INSTANTIATE

}  // namespace aug::k
