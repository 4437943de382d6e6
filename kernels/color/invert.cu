#include "kernels/color/invert.hpp"

#include "kernels/engines/pointwise.hpp"

namespace aug::k {

namespace invert_impl {
namespace {

template <class T>
struct Negative {
  AUG_HD T operator()(T v, int) const { return static_cast<T>(SampleTraits<T>::max - v); }
};

struct OneMinus {
  AUG_HD float operator()(float v, int) const { return 1.f - v; }
};

template <class T>
void invert_integer(View<const T> in, View<T> out, int color_channels, const Exec& exec) {
  if (exec.cpu) return cpu::invert_integer(in, out, color_channels);
  for_values(in, out, Negative<T>{}, color_channels, exec, "invert");
}

}  // namespace
}  // namespace invert_impl

void invert(View<const std::uint8_t> in, View<std::uint8_t> out, int color_channels, const Exec& exec) {
  invert_impl::invert_integer(in, out, color_channels, exec);
}

void invert(View<const std::uint16_t> in, View<std::uint16_t> out, int color_channels, const Exec& exec) {
  invert_impl::invert_integer(in, out, color_channels, exec);
}

void invert(View<const float> in, View<float> out, int color_channels, const Exec& exec) {
  for_values(in, out, invert_impl::OneMinus{}, color_channels, exec, "invert");
}

}  // namespace aug::k
