#include "kernels/color/channel_gain.hpp"

#include "kernels/engines/pointwise.hpp"

#include <cstdint>

namespace aug::k {

namespace channel_gain_impl {
namespace {

// gain_value(v, c) for every value, alpha included (gain_value leaves channels past 3 alone).
template <class T>
struct Gain {
  AUG_FIELDS(Gain, a)
  GainArgs a;

  AUG_HD T operator()(T v, int c) const { return gain_value(v, c, a); }
};

}  // namespace
}  // namespace channel_gain_impl

template <class T>
void channel_gain(View<const T> in, View<T> out, const GainArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::channel_gain(in, out, args);
  for_values(in, out, channel_gain_impl::Gain<T>{args}, out.channels, exec, "channel_gain");
}

template void channel_gain<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const GainArgs&, const Exec&);
template void channel_gain<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const GainArgs&,
                                          const Exec&);
template void channel_gain<float>(View<const float>, View<float>, const GainArgs&, const Exec&);

}  // namespace aug::k
