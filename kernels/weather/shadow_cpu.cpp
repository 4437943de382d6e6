// shadow's host driver: each row copied, then only the covered pixels darkened, with the kernels'
// shade_value.
#include <cstring>

#include "kernels/weather/shadow.hpp"

namespace aug::k::cpu {

template <class T>
void shadow(View<const T> in, View<T> out, const ShadowArgs& a) {
  const int C = in.channels, W = in.width;
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    T* d = out.row(y);
    if (static_cast<const void*>(s) != static_cast<const void*>(d))
      std::memcpy(d, s, static_cast<std::size_t>(W) * C * sizeof(T));
    const std::uint16_t* cover = a.cover + static_cast<std::size_t>(y) * W;
    for (int x = 0; x < W; ++x) {
      const unsigned bits = cover[x];
      if (bits == 0) continue;
      T* p = d + x * C;
      for (int k = 0; k < a.count; ++k)
        if ((bits >> k) & 1u)
          for (int c = 0; c < a.color_channels; ++c) p[c] = shade_value(p[c], a.keep[k]);
    }
  }
}

template void shadow<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const ShadowArgs&);
template void shadow<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const ShadowArgs&);
template void shadow<float>(View<const float>, View<float>, const ShadowArgs&);

}  // namespace aug::k::cpu
