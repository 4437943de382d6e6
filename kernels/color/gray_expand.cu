#include "kernels/color/gray_expand.hpp"

namespace aug::k {

namespace gray_expand_impl {
namespace {

template <class T>
struct ExpandPixel {
  AUG_FIELDS(ExpandPixel, in, out)
  View<const T> in;
  View<T> out;

  AUG_HD void operator()(int x, int y) const {
    const T v = in.row(y)[x];
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = v;
  }
};

}  // namespace
}  // namespace gray_expand_impl

template <class T>
void gray_expand(View<const T> in, View<T> out, const Exec& exec) {
  if (in.channels != 1) throw KernelError("gray_expand: the input must have one channel");
  for_2d(gray_expand_impl::ExpandPixel<T>{in, out}, out.width, out.height, exec, "gray_expand");
}

template void gray_expand<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const Exec&);
template void gray_expand<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const Exec&);
template void gray_expand<float>(View<const float>, View<float>, const Exec&);

}  // namespace aug::k
