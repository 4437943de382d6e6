// The pointwise engine's host driver: table lookups row by row, the channel count known at compile
// time so the loop carries no division. The same function as the kernel (pointwise.cu).
#include <cstdint>

#include "kernels/engines/pointwise.hpp"

namespace aug::k::cpu {

namespace pointwise_cpu_impl {
namespace {

template <class T, int C>
void rows(View<const T> in, View<T> out, const T* table, int color_channels) {
  constexpr int entries = static_cast<int>(SampleTraits<T>::max) + 1;
  for (int y = 0; y < out.height; ++y) {
    const T* s = in.row(y);
    T* d = out.row(y);
    for (int x = 0; x < out.width; ++x, s += C, d += C)
      for (int c = 0; c < C; ++c) d[c] = c < color_channels ? table[c * entries + s[c]] : s[c];
  }
}

}  // namespace
}  // namespace pointwise_cpu_impl

template <class T>
void apply_table(View<const T> in, View<T> out, const T* table, int color_channels) {
  switch (in.channels) {
    case 1: return pointwise_cpu_impl::rows<T, 1>(in, out, table, color_channels);
    case 3: return pointwise_cpu_impl::rows<T, 3>(in, out, table, color_channels);
    case 4: return pointwise_cpu_impl::rows<T, 4>(in, out, table, color_channels);
    default: return pointwise_cpu_impl::rows<T, 2>(in, out, table, color_channels);
  }
}

template void apply_table<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const std::uint8_t*, int);
template void apply_table<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const std::uint16_t*, int);

}  // namespace aug::k::cpu
