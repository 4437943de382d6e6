#include "kernels/noise/multiplicative_noise.hpp"

#include <cstdint>

namespace aug::k {

namespace multiplicative_noise_impl {
namespace {

template <class T>
struct MultiplyPixel {
  AUG_FIELDS(MultiplyPixel, in, out, a)
  View<const T> in;
  View<T> out;
  MultiplyArgs a;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    Philox4x32 r{};
    if (a.elementwise) r = a.stream.block(static_cast<std::uint32_t>(static_cast<std::size_t>(y) * in.width + x), 1);
    for (int c = 0; c < out.channels; ++c) {
      if (c >= a.color_channels) {
        d[c] = s[c];
        continue;
      }
      float m;
      if (a.elementwise) {
        const std::uint32_t w = !a.per_channel || c == 0 ? r.v[0] : (c == 1 ? r.v[1] : r.v[2]);
        m = drawn_multiplier(w, a.lo, a.hi);
      } else {
        m = c == 0 ? a.m[0] : (c == 1 ? a.m[1] : a.m[2]);  // selects: no local memory
      }
      d[c] = multiplied(s[c], m);
    }
  }
};

}  // namespace
}  // namespace multiplicative_noise_impl

template <class T>
void multiplicative_noise(View<const T> in, View<T> out, const MultiplyArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::multiplicative_noise(in, out, args);
  for_2d(multiplicative_noise_impl::MultiplyPixel<T>{in, out, args}, out.width, out.height, exec, "multiplicative_noise");
}

template void multiplicative_noise<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const MultiplyArgs&,
                                                 const Exec&);
template void multiplicative_noise<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const MultiplyArgs&,
                                                  const Exec&);
template void multiplicative_noise<float>(View<const float>, View<float>, const MultiplyArgs&, const Exec&);

}  // namespace aug::k
