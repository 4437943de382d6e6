#include "kernels/geometry/tile_shuffle.hpp"

namespace aug::k {

namespace tile_shuffle_impl {
namespace {

template <class T>
struct TilePixel {
  AUG_FIELDS(TilePixel, in, out, a)
  View<const T> in;
  View<T> out;
  TileShuffleArgs a;

  AUG_HD void operator()(int x, int y) const {
    const int o = a.row_tile[y] * a.cols + a.col_tile[x];
    const int C = in.channels;
    const T* s = in.row(y + a.off_y[o]) + (x + a.off_x[o]) * C;
    T* d = out.row(y) + x * C;
    for (int c = 0; c < C; ++c) d[c] = s[c];
  }
};

}  // namespace
}  // namespace tile_shuffle_impl

template <class T>
void tile_shuffle(View<const T> in, View<T> out, const TileShuffleArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::tile_shuffle(in, out, args);
  for_2d(tile_shuffle_impl::TilePixel<T>{in, out, args}, out.width, out.height, exec, "tile_shuffle");
}

template void tile_shuffle<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const TileShuffleArgs&,
                                         const Exec&);
template void tile_shuffle<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const TileShuffleArgs&,
                                          const Exec&);
template void tile_shuffle<float>(View<const float>, View<float>, const TileShuffleArgs&, const Exec&);

}  // namespace aug::k
