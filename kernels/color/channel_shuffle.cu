#include "kernels/color/channel_shuffle.hpp"

#include <cstdint>

namespace aug::k {

namespace channel_shuffle_impl {
namespace {

template <class T>
struct ShufflePixel {
  AUG_FIELDS(ShufflePixel, in, out, a)
  View<const T> in;
  View<T> out;
  ShuffleArgs a;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = c < a.color_channels ? s[(a.order >> (2 * c)) & 3] : s[c];
  }
};

}  // namespace
}  // namespace channel_shuffle_impl

template <class T>
void channel_shuffle(View<const T> in, View<T> out, const ShuffleArgs& args, const Exec& exec) {
  for_2d(channel_shuffle_impl::ShufflePixel<T>{in, out, args}, out.width, out.height, exec, "channel_shuffle");
}

template void channel_shuffle<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const ShuffleArgs&,
                                            const Exec&);
template void channel_shuffle<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const ShuffleArgs&,
                                             const Exec&);
template void channel_shuffle<float>(View<const float>, View<float>, const ShuffleArgs&, const Exec&);

}  // namespace aug::k
