#include "kernels/mix/blend.hpp"

namespace aug::k {

namespace blend_impl {
namespace {

template <class T>
struct Blend {
  AUG_FIELDS(Blend, a, b, out, wa, wb)
  View<const T> a, b;
  View<T> out;
  double wa, wb;

  AUG_HD void operator()(int x, int y) const {
    const T* pa = a.row(y) + x * a.channels;
    const T* pb = b.row(y) + x * b.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) {
      const double v = static_cast<double>(pa[c]) * wa + static_cast<double>(pb[c]) * wb;
      if constexpr (sizeof(T) == 4) {
        d[c] = static_cast<T>(v);
      } else {
        const double max = static_cast<double>(SampleTraits<T>::max);
        d[c] = static_cast<T>(v <= 0 ? 0.0 : (v >= max ? max : v));  // truncated toward zero
      }
    }
  }
};

}  // namespace
}  // namespace blend_impl

template <class T>
void blend(View<const T> a, View<const T> b, View<T> out, double wa, double wb, const Exec& exec) {
  for_2d(blend_impl::Blend<T>{a, b, out, wa, wb}, out.width, out.height, exec, "blend");
}

#define AUG_INSTANTIATE(T) \
  template void blend<T>(View<const T>, View<const T>, View<T>, double, double, const Exec&);
AUG_INSTANTIATE(std::uint8_t)
AUG_INSTANTIATE(std::uint16_t)
AUG_INSTANTIATE(float)
#undef AUG_INSTANTIATE

}  // namespace aug::k
