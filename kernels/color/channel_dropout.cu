#include "kernels/color/channel_dropout.hpp"

namespace aug::k {

namespace channel_dropout_impl {
namespace {

template <class T>
struct DropoutPixel {
  AUG_FIELDS(DropoutPixel, in, out, a)
  View<const T> in;
  View<T> out;
  ChannelDropoutArgs<T> a;

  AUG_HD void operator()(int x, int y) const {
    channel_dropout_pixel(in.row(y) + x * in.channels, out.row(y) + x * out.channels, out.channels, a);
  }
};

}  // namespace
}  // namespace channel_dropout_impl

template <class T>
void channel_dropout(View<const T> in, View<T> out, const ChannelDropoutArgs<T>& args, const Exec& exec) {
  if (exec.cpu) return cpu::channel_dropout(in, out, args);
  for_2d(channel_dropout_impl::DropoutPixel<T>{in, out, args}, out.width, out.height, exec, "channel_dropout");
}

template void channel_dropout<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>,
                                            const ChannelDropoutArgs<std::uint8_t>&, const Exec&);
template void channel_dropout<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>,
                                             const ChannelDropoutArgs<std::uint16_t>&, const Exec&);
template void channel_dropout<float>(View<const float>, View<float>, const ChannelDropoutArgs<float>&, const Exec&);

}  // namespace aug::k
