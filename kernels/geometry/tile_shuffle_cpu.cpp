// tile_shuffle's host driver (the CPU backend): each output row is its tiles' row pieces, each one
// memcpy from the input row the tile's offset names. The same bytes as the kernel bodies.
#include <cstdint>
#include <cstring>

#include "kernels/geometry/tile_shuffle.hpp"

namespace aug::k::cpu {

template <class T>
void tile_shuffle(View<const T> in, View<T> out, const TileShuffleArgs& a) {
  const int C = in.channels;
  for (int y = 0; y < out.height; ++y) {
    const int row = a.row_tile[y] * a.cols;
    for (int tx = 0; tx < a.cols; ++tx) {
      const int x0 = a.col_start[tx], x1 = a.col_start[tx + 1];
      if (x1 <= x0) continue;
      const int o = row + tx;
      std::memcpy(out.row(y) + x0 * C, in.row(y + a.off_y[o]) + (x0 + a.off_x[o]) * C,
                  static_cast<std::size_t>(x1 - x0) * C * sizeof(T));
    }
  }
}

template void tile_shuffle<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const TileShuffleArgs&);
template void tile_shuffle<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const TileShuffleArgs&);
template void tile_shuffle<float>(View<const float>, View<float>, const TileShuffleArgs&);

}  // namespace aug::k::cpu
