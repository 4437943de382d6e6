#include "kernels/geometry/rotate90.hpp"

#include <cstdint>
#include <utility>

namespace aug::k {

namespace rotate90_impl {
namespace {

template <class T>
struct MapPixels {
  AUG_FIELDS(MapPixels, in, out, m)
  View<const T> in;
  View<T> out;
  IntMap m;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(m.ay * x + m.by * y + m.cy) + (m.ax * x + m.bx * y + m.cx) * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = s[c];
  }
};

}  // namespace
}  // namespace rotate90_impl

IntMap rotate90_map(int width, int height, int k, bool transpose) {
  // Sizes before the first turn (after the optional transpose); each turn swaps them.
  const int w0 = transpose ? height : width, h0 = transpose ? width : height;
  IntMap m;  // output coordinates -> coordinates of the image before the last step undone so far
  // A quarter turn counter-clockwise of an image A of width w: B(x, y) = A(w - 1 - y, x). Undo the
  // turns from the last one applied back to the first.
  for (int i = k - 1; i >= 0; --i) {
    const int w = i % 2 == 0 ? w0 : h0;
    const IntMap prev = m;
    m.ax = -prev.ay;
    m.bx = -prev.by;
    m.cx = w - 1 - prev.cy;
    m.ay = prev.ax;
    m.by = prev.bx;
    m.cy = prev.cx;
  }
  if (transpose) {  // T(x, y) = in(y, x)
    std::swap(m.ax, m.ay);
    std::swap(m.bx, m.by);
    std::swap(m.cx, m.cy);
  }
  return m;
}

template <class T>
void rotate90(View<const T> in, View<T> out, IntMap map, const Exec& exec) {
  for_2d(rotate90_impl::MapPixels<T>{in, out, map}, out.width, out.height, exec, "rotate90");
}

#define AUG_INSTANTIATE(T) template void rotate90<T>(View<const T>, View<T>, IntMap, const Exec&);
AUG_INSTANTIATE(std::uint8_t)
AUG_INSTANTIATE(std::uint16_t)
AUG_INSTANTIATE(float)
#undef AUG_INSTANTIATE

}  // namespace aug::k
