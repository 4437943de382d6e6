#include "kernels/filter/zoom_blur.hpp"

#include <cstdint>

namespace aug::k {

namespace zoom_blur_impl {
namespace {

template <class T>
struct ToUnit {
  AUG_FIELDS(ToUnit, in, x)
  View<const T> in;
  View<float> x;
  AUG_HD void operator()(int px, int py) const {
    const int C = in.channels;
    for (int c = 0; c < C; ++c) x.row(py)[px * C + c] = to_unit(in.row(py)[px * C + c]);
  }
};

struct Accumulate {
  AUG_FIELDS(Accumulate, z, acc, first)
  View<const float> z;
  View<float> acc;
  int first;
  AUG_HD void operator()(int px, int py) const {
    const int C = z.channels;
    for (int c = 0; c < C; ++c) {
      float& a = acc.row(py)[px * C + c];
      a = (first ? 0.0f : a) + z.row(py)[px * C + c];
    }
  }
};

template <class T>
struct Finish {
  AUG_FIELDS(Finish, x, acc, out, count)
  View<const float> x, acc;
  View<T> out;
  float count;
  AUG_HD void operator()(int px, int py) const {
    const int C = x.channels;
    for (int c = 0; c < C; ++c) {
      const int i = px * C + c;
      out.row(py)[i] = from_unit<T>(zoom_blur_value(x.row(py)[i], acc.row(py)[i], count));
    }
  }
};

}  // namespace
}  // namespace zoom_blur_impl

template <class T>
void zoom_blur_to_unit(View<const T> in, View<float> x, const Exec& exec) {
  if (exec.cpu) return cpu::zoom_blur_to_unit(in, x);
  for_2d(zoom_blur_impl::ToUnit<T>{in, x}, in.width, in.height, exec, "zoom_blur_to_unit");
}

void zoom_blur_add(View<const float> z, View<float> acc, bool first, const Exec& exec) {
  if (exec.cpu) return cpu::zoom_blur_add(z, acc, first);
  for_2d(zoom_blur_impl::Accumulate{z, acc, first ? 1 : 0}, z.width, z.height, exec, "zoom_blur_add");
}

template <class T>
void zoom_blur_finish(View<const float> x, View<const float> acc, float count, View<T> out, const Exec& exec) {
  if (exec.cpu) return cpu::zoom_blur_finish(x, acc, count, out);
  for_2d(zoom_blur_impl::Finish<T>{x, acc, out, count}, x.width, x.height, exec, "zoom_blur_finish");
}

template void zoom_blur_to_unit<std::uint8_t>(View<const std::uint8_t>, View<float>, const Exec&);
template void zoom_blur_to_unit<std::uint16_t>(View<const std::uint16_t>, View<float>, const Exec&);
template void zoom_blur_to_unit<float>(View<const float>, View<float>, const Exec&);
template void zoom_blur_finish<std::uint8_t>(View<const float>, View<const float>, float, View<std::uint8_t>,
                                             const Exec&);
template void zoom_blur_finish<std::uint16_t>(View<const float>, View<const float>, float, View<std::uint16_t>,
                                              const Exec&);
template void zoom_blur_finish<float>(View<const float>, View<const float>, float, View<float>, const Exec&);

}  // namespace aug::k
