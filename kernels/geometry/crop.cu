#include "kernels/geometry/crop.hpp"

#include <cstdint>

#include "kernels/geometry/move.hpp"

namespace aug::k {

template <class T>
void crop(View<const T> in, View<T> out, int x0, int y0, const Exec& exec) {
  for_2d(MovePixels<T>{in, out, x0, 1, y0, 1}, out.width, out.height, exec, "crop");
}

#define AUG_INSTANTIATE(T) template void crop<T>(View<const T>, View<T>, int, int, const Exec&);
AUG_INSTANTIATE(std::uint8_t)
AUG_INSTANTIATE(std::uint16_t)
AUG_INSTANTIATE(float)
#undef AUG_INSTANTIATE

}  // namespace aug::k
