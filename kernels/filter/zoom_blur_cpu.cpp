// zoom_blur's host driver: the kernels' three passes as plain row loops the compiler vectorises
// (one operation per value, in the same order, no FMA).
#include <cstdint>

#include "kernels/filter/zoom_blur.hpp"

namespace aug::k::cpu {

template <class T>
void zoom_blur_to_unit(View<const T> in, View<float> x) {
  const int n = in.width * in.channels;
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    float* d = x.row(y);
    for (int i = 0; i < n; ++i) d[i] = to_unit(s[i]);
  }
}

void zoom_blur_add(View<const float> z, View<float> acc, bool first) {
  const int n = z.width * z.channels;
  for (int y = 0; y < z.height; ++y) {
    const float* s = z.row(y);
    float* a = acc.row(y);
    if (first)
      for (int i = 0; i < n; ++i) a[i] = 0.0f + s[i];
    else
      for (int i = 0; i < n; ++i) a[i] = a[i] + s[i];
  }
}

template <class T>
void zoom_blur_finish(View<const float> x, View<const float> acc, float count, View<T> out) {
  const int n = x.width * x.channels;
  for (int y = 0; y < x.height; ++y) {
    const float* xs = x.row(y);
    const float* as = acc.row(y);
    T* d = out.row(y);
    for (int i = 0; i < n; ++i) d[i] = from_unit<T>(zoom_blur_value(xs[i], as[i], count));
  }
}

template void zoom_blur_to_unit<std::uint8_t>(View<const std::uint8_t>, View<float>);
template void zoom_blur_to_unit<std::uint16_t>(View<const std::uint16_t>, View<float>);
template void zoom_blur_to_unit<float>(View<const float>, View<float>);
template void zoom_blur_finish<std::uint8_t>(View<const float>, View<const float>, float, View<std::uint8_t>);
template void zoom_blur_finish<std::uint16_t>(View<const float>, View<const float>, float, View<std::uint16_t>);
template void zoom_blur_finish<float>(View<const float>, View<const float>, float, View<float>);

}  // namespace aug::k::cpu
