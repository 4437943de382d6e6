#include "kernels/noise/shot_noise.hpp"

#include <cstdint>

namespace aug::k {

namespace shot_noise_impl {
namespace {

template <class T>
struct ShotPixel {
  AUG_FIELDS(ShotPixel, in, out, a)
  View<const T> in;
  View<T> out;
  ShotArgs a;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    const Philox4x32 r = a.stream.block(static_cast<std::uint32_t>(static_cast<std::size_t>(y) * in.width + x), 1);
    for (int c = 0; c < out.channels; ++c) {
      if (c >= a.color_channels) {
        d[c] = s[c];
        continue;
      }
      const std::uint32_t w = c == 0 ? r.v[0] : (c == 1 ? r.v[1] : r.v[2]);
      const std::uint32_t* t = a.thresholds + static_cast<std::size_t>(s[c]) * a.K;
      d[c] = static_cast<T>(a.levels[poisson_count(w, t, a.K)]);
    }
  }
};

}  // namespace
}  // namespace shot_noise_impl

template <class T>
void shot_noise(View<const T> in, View<T> out, const ShotArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::shot_noise(in, out, args);
  for_2d(shot_noise_impl::ShotPixel<T>{in, out, args}, out.width, out.height, exec, "shot_noise");
}

template void shot_noise<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const ShotArgs&, const Exec&);
template void shot_noise<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const ShotArgs&, const Exec&);

}  // namespace aug::k
