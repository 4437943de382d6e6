// window's host driver (the CPU backend): the same map as the kernel (WindowAxis::index), found
// once per column and once per row; the columns that map to consecutive input columns are one
// memcpy per row, the others (the border bands) are copied pixel by pixel.
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/geometry/window.hpp"

namespace aug::k::cpu {

template <class T>
void window(View<const T> in, View<T> out, WindowAxis x, WindowAxis y, int border, WindowFill<T> fill) {
  const int C = out.channels;
  std::vector<int> sx(static_cast<std::size_t>(out.width));
  for (int p = 0; p < out.width; ++p) sx[p] = x.index(p, border);
  // The longest run of outputs [a, b) that read consecutive input columns.
  int a = 0, b = 0;
  for (int p = 0; p < out.width;) {
    int q = p + 1;
    if (sx[p] >= 0)
      while (q < out.width && sx[q] == sx[q - 1] + 1) ++q;
    if (sx[p] >= 0 && q - p > b - a) a = p, b = q;
    p = q;
  }
  std::vector<T> fill_row(static_cast<std::size_t>(out.width) * C);
  for (int p = 0; p < out.width; ++p)
    for (int c = 0; c < C; ++c) fill_row[static_cast<std::size_t>(p) * C + c] = fill.value[c];

  for (int r = 0; r < out.height; ++r) {
    T* d = out.row(r);
    const int sy = y.index(r, border);
    if (sy < 0) {
      std::memcpy(d, fill_row.data(), fill_row.size() * sizeof(T));
      continue;
    }
    const T* s = in.row(sy);
    auto pixels = [&](int p0, int p1) {
      for (int p = p0; p < p1; ++p) {
        const T* from = sx[p] < 0 ? fill.value : s + static_cast<std::size_t>(sx[p]) * C;
        for (int c = 0; c < C; ++c) d[p * C + c] = from[c];
      }
    };
    pixels(0, a);
    if (b > a) std::memcpy(d + static_cast<std::size_t>(a) * C, s + static_cast<std::size_t>(sx[a]) * C,
                           static_cast<std::size_t>(b - a) * C * sizeof(T));
    pixels(b, out.width);
  }
}

#define AUG_INSTANTIATE(T) template void window<T>(View<const T>, View<T>, WindowAxis, WindowAxis, int, WindowFill<T>);
AUG_INSTANTIATE(std::uint8_t)
AUG_INSTANTIATE(std::uint16_t)
AUG_INSTANTIATE(float)
#undef AUG_INSTANTIATE

}  // namespace aug::k::cpu
