#include "kernels/color/planckian_jitter.hpp"

namespace aug::k {

namespace planckian_jitter_impl {
namespace {

template <class T>
struct PlanckianPixel {
  AUG_FIELDS(PlanckianPixel, in, out, r_w, b_w)
  View<const T> in;
  View<T> out;
  float r_w, b_w;

  AUG_HD static T scaled(T v, float w) { return from_unit<T>(planckian_value(to_unit(v), w)); }

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    d[0] = scaled(s[0], r_w);
    d[1] = scaled(s[1], 1.f);  // Kornia clamps every channel at 1; integer green comes back unchanged
    d[2] = scaled(s[2], b_w);
    if (in.channels == 4) d[3] = s[3];
  }
};

}  // namespace
}  // namespace planckian_jitter_impl

template <class T>
void planckian(View<const T> in, View<T> out, float r_w, float b_w, const Exec& exec) {
  if (exec.cpu) return cpu::planckian(in, out, r_w, b_w);
  for_2d(planckian_jitter_impl::PlanckianPixel<T>{in, out, r_w, b_w}, out.width, out.height, exec, "planckian_jitter");
}

template void planckian<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, float, float, const Exec&);
template void planckian<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, float, float, const Exec&);
template void planckian<float>(View<const float>, View<float>, float, float, const Exec&);

}  // namespace aug::k
