// gaussian_illumination's vectorised host driver: the same binary32 operations as the kernels, a row at a time.
#include "kernels/color/gaussian_illumination.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/color/unit_rows.hpp"

namespace aug::k::cpu {

template <class T>
void illumination(View<const T> in, View<T> out, const IlluminationArgs& a) {
  const int C = in.channels, n = in.width * C;
  std::vector<float> add(static_cast<std::size_t>(n));
  for (int y = 0; y < in.height; ++y) {
    for (int x = 0; x < in.width; ++x) {
      const float g = a.signed_gain * ((a.gy[y] * a.gx[x] - a.gmin) / a.denom);
      for (int c = 0; c < C; ++c) add[x * C + c] = g;
    }
    add_clamp_row(out.row(y), in.row(y), add.data(), n);
    keep_alpha(out.row(y), in.row(y), in.width, C);
  }
}


template void illumination<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const IlluminationArgs&);
template void illumination<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const IlluminationArgs&);
template void illumination<float>(View<const float>, View<float>, const IlluminationArgs&);

}  // namespace aug::k::cpu
