// fog's host driver: the kernels' table look-ups, a row at a time.
#include "kernels/weather/fog.hpp"

namespace aug::k::cpu {

template <class T>
void fog_particles(View<const T> in, View<std::uint8_t> out, const FogArgs& a) {
  const int C = in.channels, W = in.width;
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    std::uint8_t* d = out.row(y);
    const std::uint16_t* count = a.count + static_cast<std::size_t>(y) * W;
    for (int x = 0; x < W; ++x) {
      const std::uint8_t* t = a.table + count[x] * 256;
      for (int c = 0; c < C; ++c) d[x * C + c] = t[to_u8_io(s[x * C + c])];
    }
  }
}

template void fog_particles<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const FogArgs&);
template void fog_particles<std::uint16_t>(View<const std::uint16_t>, View<std::uint8_t>, const FogArgs&);
template void fog_particles<float>(View<const float>, View<std::uint8_t>, const FogArgs&);

}  // namespace aug::k::cpu
