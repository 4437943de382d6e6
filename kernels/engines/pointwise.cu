#include "kernels/engines/pointwise.hpp"

#include <cstdint>

namespace aug::k {

namespace pointwise_impl {
namespace {

// One channel-major table per colour channel: v -> table[c * entries + v].
template <class T>
struct TableLookup {
  AUG_FIELDS(TableLookup, table)
  const T* table;

  AUG_HD T operator()(T v, int c) const {
    constexpr int entries = static_cast<int>(SampleTraits<T>::max) + 1;
    return table[c * entries + v];
  }
};

}  // namespace
}  // namespace pointwise_impl

template <class T>
void apply_table(View<const T> in, View<T> out, const T* table, int color_channels, const Exec& exec) {
  if (exec.cpu) return cpu::apply_table(in, out, table, color_channels);
  for_values(in, out, pointwise_impl::TableLookup<T>{table}, color_channels, exec, "pointwise table");
}

template void apply_table<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const std::uint8_t*, int,
                                        const Exec&);
template void apply_table<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const std::uint16_t*, int,
                                         const Exec&);

}  // namespace aug::k
