#include "kernels/mix/paste.hpp"

namespace aug::k {

namespace paste_impl {
namespace {

template <class T>
struct Paste {
  AUG_FIELDS(Paste, a, b, mask, out)
  View<const T> a, b;
  const std::uint8_t* mask;
  View<T> out;

  AUG_HD void operator()(int x, int y) const {
    const View<const T>& from = mask[static_cast<std::size_t>(y) * out.width + x] ? b : a;
    const T* s = from.row(y) + x * from.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = s[c];
  }
};

}  // namespace
}  // namespace paste_impl

template <class T>
void paste(View<const T> a, View<const T> b, const std::uint8_t* mask, View<T> out, const Exec& exec) {
  for_2d(paste_impl::Paste<T>{a, b, mask, out}, out.width, out.height, exec, "paste");
}

#define AUG_INSTANTIATE(T) \
  template void paste<T>(View<const T>, View<const T>, const std::uint8_t*, View<T>, const Exec&);
AUG_INSTANTIATE(std::uint8_t)
AUG_INSTANTIATE(std::uint16_t)
AUG_INSTANTIATE(float)
#undef AUG_INSTANTIATE

}  // namespace aug::k
