// planckian_jitter's vectorised host driver: the same binary32 multiply and clamp as the kernels.
#include "kernels/color/planckian_jitter.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/color/unit_rows.hpp"

namespace aug::k::cpu {

template <class T>
void planckian(View<const T> in, View<T> out, float r_w, float b_w) {
  const int C = in.channels, n = in.width * C;
  std::vector<float> mul(static_cast<std::size_t>(n));
  for (int x = 0; x < in.width; ++x) {
    mul[x * C] = r_w;
    mul[x * C + 1] = 1.f;
    mul[x * C + 2] = b_w;
    if (C == 4) mul[x * C + 3] = 1.f;
  }
  for (int y = 0; y < in.height; ++y) {
    mul_min_row(out.row(y), in.row(y), mul.data(), n);
    keep_alpha(out.row(y), in.row(y), in.width, C);
  }
}


template void planckian<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, float, float);
template void planckian<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, float, float);
template void planckian<float>(View<const float>, View<float>, float, float);

}  // namespace aug::k::cpu
