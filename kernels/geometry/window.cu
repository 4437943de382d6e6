#include "kernels/geometry/window.hpp"

#include <cstdint>

namespace aug::k {

namespace window_impl {
namespace {

template <class T>
struct WindowPixels {
  AUG_FIELDS(WindowPixels, in, out, ax, ay, border, fill)
  View<const T> in;
  View<T> out;
  WindowAxis ax, ay;
  int border;
  WindowFill<T> fill;

  AUG_HD void operator()(int x, int y) const {
    const int sx = ax.index(x, border), sy = ay.index(y, border);
    T* d = out.row(y) + x * out.channels;
    if (sx < 0 || sy < 0) {
      for (int c = 0; c < out.channels; ++c) d[c] = fill.value[c];
      return;
    }
    const T* s = in.row(sy) + sx * in.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = s[c];
  }
};

}  // namespace
}  // namespace window_impl

template <class T>
void window(View<const T> in, View<T> out, WindowAxis x, WindowAxis y, int border, WindowFill<T> fill,
            const Exec& exec) {
  if (exec.cpu) return cpu::window(in, out, x, y, border, fill);
  for_2d(window_impl::WindowPixels<T>{in, out, x, y, border, fill}, out.width, out.height, exec, "window");
}

#define AUG_INSTANTIATE(T) \
  template void window<T>(View<const T>, View<T>, WindowAxis, WindowAxis, int, WindowFill<T>, const Exec&);
AUG_INSTANTIATE(std::uint8_t)
AUG_INSTANTIATE(std::uint16_t)
AUG_INSTANTIATE(float)
#undef AUG_INSTANTIATE

}  // namespace aug::k
