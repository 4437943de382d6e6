#include "channel_gain.hpp"

namespace aug::k {

namespace {

template <class T>
struct GainPixel {
  View<const T> in;
  View<T> out;
  GainArgs a;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) {
      if (c >= a.color_channels) {
        d[c] = s[c];
      } else if constexpr (std::is_same_v<T, float>) {
        d[c] = clamp01(s[c] * a.gain[c]);
      } else {
        d[c] = saturate<T>(gain_fixed(s[c], a.fixed[c]));
      }
    }
  }
};

}  // namespace

template <class T>
void channel_gain(View<const T> in, View<T> out, const GainArgs& args, const Exec& exec) {
  for_2d(GainPixel<T>{in, out, args}, out.width, out.height, exec, "channel_gain");
}

template void channel_gain<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const GainArgs&, const Exec&);
template void channel_gain<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const GainArgs&,
                                          const Exec&);
template void channel_gain<float>(View<const float>, View<float>, const GainArgs&, const Exec&);

}  // namespace aug::k
