#include "kernels/color/channel_gain.hpp"

#include <cstdint>

namespace aug::k {

namespace channel_gain_impl {
namespace {

template <class T>
struct GainPixel {
  AUG_FIELDS(GainPixel, in, out, a)
  View<const T> in;
  View<T> out;
  GainArgs a;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = gain_value(s[c], c, a);
  }
};

// Tightly packed images as one flat array: each item is 16 bytes, moved with one aligned
// vector load and store; the value at flat index i belongs to channel i % channels.
template <class T>
struct GainFlat {
  AUG_FIELDS(GainFlat, in, out, count, channels, a)
  static constexpr int kPer = 16 / sizeof(T);
  struct alignas(16) Pack {
    T v[kPer];
  };
  const T* in;
  T* out;
  std::size_t count;  // values
  int channels;
  GainArgs a;

  AUG_HD void operator()(std::size_t item) const {
    const std::size_t first = item * kPer;
    int c = static_cast<int>(first % channels);  // one division per pack, then the channel wraps
    if (first + kPer <= count) {
      Pack p = reinterpret_cast<const Pack*>(in)[item];
      for (int j = 0; j < kPer; ++j, c = c + 1 == channels ? 0 : c + 1) p.v[j] = gain_value(p.v[j], c, a);
      reinterpret_cast<Pack*>(out)[item] = p;
    } else {
      for (std::size_t i = first; i < count; ++i, c = c + 1 == channels ? 0 : c + 1) out[i] = gain_value(in[i], c, a);
    }
  }
};

}  // namespace
}  // namespace channel_gain_impl

template <class T>
void channel_gain(View<const T> in, View<T> out, const GainArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::channel_gain(in, out, args);
  const std::size_t row = static_cast<std::size_t>(in.width) * in.channels * sizeof(T);
  const bool flat = in.pitch == row && out.pitch == row && reinterpret_cast<std::uintptr_t>(in.data) % 16 == 0 &&
                    reinterpret_cast<std::uintptr_t>(out.data) % 16 == 0;
  if (flat) {
    const std::size_t count = static_cast<std::size_t>(in.width) * in.height * in.channels;
    constexpr int per = channel_gain_impl::GainFlat<T>::kPer;
    for_1d(channel_gain_impl::GainFlat<T>{in.data, out.data, count, in.channels, args}, (count + per - 1) / per, exec, "channel_gain");
    return;
  }
  for_2d(channel_gain_impl::GainPixel<T>{in, out, args}, out.width, out.height, exec, "channel_gain");
}

template void channel_gain<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const GainArgs&, const Exec&);
template void channel_gain<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const GainArgs&,
                                          const Exec&);
template void channel_gain<float>(View<const float>, View<float>, const GainArgs&, const Exec&);

}  // namespace aug::k
