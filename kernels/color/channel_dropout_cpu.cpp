// channel_dropout's host driver (the CPU backend): every row is its bytes, each kept or replaced by
// the fill's, through a mask and a fill pattern of one period of 384 bytes (a whole number of pixels
// for 3 and 4 channels of 1, 2 and 4 bytes: 384 = 2^7 * 3): out = (in & keep) | fill, a plain loop
// over contiguous bytes that vectorises. The same values as the kernels' per-pixel choice.
#include <cstdint>
#include <cstring>

#include "kernels/color/channel_dropout.hpp"
#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace channel_dropout_cpu_impl {
namespace {

constexpr int kPeriod = 384;

AUG_CLONES void mask_row(std::uint8_t* d, const std::uint8_t* s, int bytes, const std::uint8_t* keep,
                         const std::uint8_t* fill) {
  int i = 0;
  for (; i + kPeriod <= bytes; i += kPeriod)
    for (int j = 0; j < kPeriod; ++j) d[i + j] = static_cast<std::uint8_t>((s[i + j] & keep[j]) | fill[j]);
  for (int j = 0; i + j < bytes; ++j) d[i + j] = static_cast<std::uint8_t>((s[i + j] & keep[j]) | fill[j]);
}

}  // namespace
}  // namespace channel_dropout_cpu_impl

template <class T>
void channel_dropout(View<const T> in, View<T> out, const ChannelDropoutArgs<T>& a) {
  const int C = in.channels, pixel = C * static_cast<int>(sizeof(T));
  alignas(32) std::uint8_t keep[channel_dropout_cpu_impl::kPeriod], fill[channel_dropout_cpu_impl::kPeriod];
  std::uint8_t fill_bytes[sizeof(T)];
  std::memcpy(fill_bytes, &a.fill, sizeof(T));
  for (int j = 0; j < channel_dropout_cpu_impl::kPeriod; ++j) {
    const int c = j % pixel / static_cast<int>(sizeof(T)), byte = j % static_cast<int>(sizeof(T));
    const bool dropped = (a.dropped >> c) & 1;
    keep[j] = dropped ? 0x00 : 0xff;
    fill[j] = dropped ? fill_bytes[byte] : 0x00;
  }
  const int bytes = out.width * pixel;
  for (int y = 0; y < out.height; ++y)
    channel_dropout_cpu_impl::mask_row(reinterpret_cast<std::uint8_t*>(out.row(y)), reinterpret_cast<const std::uint8_t*>(in.row(y)), bytes,
             keep, fill);
}

template void channel_dropout<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>,
                                            const ChannelDropoutArgs<std::uint8_t>&);
template void channel_dropout<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>,
                                             const ChannelDropoutArgs<std::uint16_t>&);
template void channel_dropout<float>(View<const float>, View<float>, const ChannelDropoutArgs<float>&);

}  // namespace aug::k::cpu
