#include "kernels/noise/pixel_dropout.hpp"

#include <cstdint>

namespace aug::k {

namespace pixel_dropout_impl {
namespace {

template <class T>
struct DropoutPixel {
  AUG_FIELDS(DropoutPixel, in, out, a)
  View<const T> in;
  View<T> out;
  DropoutArgs a;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    const std::size_t i = static_cast<std::size_t>(y) * in.width + x;
    const std::size_t first = a.per_channel ? i * a.color_channels : i;
    const bool whole = dropped(decision_word(a.stream, first), a.threshold);
    for (int c = 0; c < out.channels; ++c) {
      bool drop = false;
      if (c < a.color_channels) drop = a.per_channel ? dropped(decision_word(a.stream, first + c), a.threshold) : whole;
      const float v = c == 0 ? a.value[0] : (c == 1 ? a.value[1] : a.value[2]);  // selects: no local memory
      d[c] = drop ? static_cast<T>(v) : s[c];
    }
  }
};

}  // namespace
}  // namespace pixel_dropout_impl

template <class T>
void pixel_dropout(View<const T> in, View<T> out, const DropoutArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::pixel_dropout(in, out, args);
  for_2d(pixel_dropout_impl::DropoutPixel<T>{in, out, args}, out.width, out.height, exec, "pixel_dropout");
}

template void pixel_dropout<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const DropoutArgs&, const Exec&);
template void pixel_dropout<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const DropoutArgs&,
                                           const Exec&);
template void pixel_dropout<float>(View<const float>, View<float>, const DropoutArgs&, const Exec&);

}  // namespace aug::k
