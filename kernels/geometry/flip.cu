#include "kernels/geometry/flip.hpp"

#include <cstdint>

#include "kernels/geometry/move.hpp"

namespace aug::k {

template <class T>
void flip(View<const T> in, View<T> out, bool horizontal, bool vertical, const Exec& exec) {
  const MovePixels<T> move{in, out, horizontal ? in.width - 1 : 0, horizontal ? -1 : 1, vertical ? in.height - 1 : 0,
                           vertical ? -1 : 1};
  for_2d(move, out.width, out.height, exec, "flip");
}

#define AUG_INSTANTIATE(T) template void flip<T>(View<const T>, View<T>, bool, bool, const Exec&);
AUG_INSTANTIATE(std::uint8_t)
AUG_INSTANTIATE(std::uint16_t)
AUG_INSTANTIATE(float)
#undef AUG_INSTANTIATE

}  // namespace aug::k
