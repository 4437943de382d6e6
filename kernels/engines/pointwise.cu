#include "kernels/engines/pointwise.hpp"

#include <cstdint>

namespace aug::k {

namespace pointwise_impl {
namespace {

template <class T>
struct TablePixel {
  AUG_FIELDS(TablePixel, in, out, table, color_channels)
  View<const T> in;
  View<T> out;
  const T* table;
  int color_channels;

  AUG_HD void operator()(int x, int y) const {
    constexpr int entries = static_cast<int>(SampleTraits<T>::max) + 1;
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = c < color_channels ? table[c * entries + s[c]] : s[c];
  }
};

}  // namespace
}  // namespace pointwise_impl

template <class T>
void apply_table(View<const T> in, View<T> out, const T* table, int color_channels, const Exec& exec) {
  if (exec.cpu) return cpu::apply_table(in, out, table, color_channels);
  for_2d(pointwise_impl::TablePixel<T>{in, out, table, color_channels}, out.width, out.height, exec, "pointwise table");
}

template void apply_table<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const std::uint8_t*, int,
                                        const Exec&);
template void apply_table<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const std::uint16_t*, int,
                                         const Exec&);

}  // namespace aug::k
