#include "kernels/weather/fog.hpp"

namespace aug::k {

namespace fog_impl {
namespace {

template <class T>
struct ParticlesPixel {
  AUG_FIELDS(ParticlesPixel, in, out, a)
  View<const T> in;
  View<std::uint8_t> out;
  FogArgs a;

  AUG_HD void operator()(int x, int y) const {
    const int n = a.count[static_cast<std::size_t>(y) * static_cast<std::size_t>(out.width) + x];
    const std::uint8_t* t = a.table + n * 256;
    const T* s = in.row(y) + x * in.channels;
    std::uint8_t* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = t[to_u8_io(s[c])];
  }
};

template <class T>
struct BackPixel {
  AUG_FIELDS(BackPixel, in, out)
  View<const std::uint8_t> in;
  View<T> out;

  AUG_HD void operator()(int x, int y) const {
    const std::uint8_t* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = from_u8_io<T>(s[c]);
  }
};

}  // namespace
}  // namespace fog_impl

template <class T>
void fog_particles(View<const T> in, View<std::uint8_t> out, const FogArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::fog_particles(in, out, args);
  for_2d(fog_impl::ParticlesPixel<T>{in, out, args}, out.width, out.height, exec, "fog_particles");
}

template <class T>
void fog_back(View<const std::uint8_t> in, View<T> out, const Exec& exec) {
  for_2d(fog_impl::BackPixel<T>{in, out}, out.width, out.height, exec, "fog_back");
}

template void fog_particles<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const FogArgs&, const Exec&);
template void fog_particles<std::uint16_t>(View<const std::uint16_t>, View<std::uint8_t>, const FogArgs&, const Exec&);
template void fog_particles<float>(View<const float>, View<std::uint8_t>, const FogArgs&, const Exec&);
template void fog_back<std::uint16_t>(View<const std::uint8_t>, View<std::uint16_t>, const Exec&);
template void fog_back<float>(View<const std::uint8_t>, View<float>, const Exec&);

}  // namespace aug::k
