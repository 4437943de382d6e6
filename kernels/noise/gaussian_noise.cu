#include "kernels/noise/gaussian_noise.hpp"

#include <cstdint>

namespace aug::k {

namespace gaussian_noise_impl {
namespace {

template <class T>
struct NoisePixel {
  AUG_FIELDS(NoisePixel, in, out, a)
  View<const T> in;
  View<T> out;
  NoiseArgs a;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    const std::size_t pixel = static_cast<std::size_t>(y) * in.width + x;
    const Philox4x32 r = a.stream.block(static_cast<std::uint32_t>(pixel), 1);
    for (int c = 0; c < out.channels; ++c) {
      if (c >= a.color_channels) {
        d[c] = s[c];
        continue;
      }
      const float z = standard_normal(r.v[a.per_channel ? c : 0], a.normal);
      d[c] = noisy_value(s[c], a.mean + a.sigma * z, a.clip);
    }
  }
};

}  // namespace
}  // namespace gaussian_noise_impl

template <class T>
void gaussian_noise(View<const T> in, View<T> out, const NoiseArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::gaussian_noise(in, out, args);
  for_2d(gaussian_noise_impl::NoisePixel<T>{in, out, args}, out.width, out.height, exec, "gaussian_noise");
}

template void gaussian_noise<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const NoiseArgs&, const Exec&);
template void gaussian_noise<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const NoiseArgs&,
                                            const Exec&);
template void gaussian_noise<float>(View<const float>, View<float>, const NoiseArgs&, const Exec&);

}  // namespace aug::k
