#include "kernels/filter/box_blur.hpp"

#include <type_traits>

#include "kernels/core/border.hpp"

namespace aug::k {

namespace box_blur_impl {
namespace {

// The sum of one window row: exact uint32 for 8- and 16-bit images, double for float.
template <class T>
using BoxSum = std::conditional_t<std::is_same_v<T, float>, double, std::uint32_t>;

// H(x, y) = sum of in(x + i, y) for i in [-r, r], left to right, every channel.
template <class T>
struct BoxRows {
  AUG_FIELDS(BoxRows, in, sums, radius)
  View<const T> in;
  View<BoxSum<T>> sums;  // in.width x in.height
  int radius;

  AUG_HD void operator()(int x, int y) const { at_channel_count(*this, in.channels, x, y); }

  template <int C>
  AUG_HD void at(int x, int y) const {
    const T* src = in.row(y);
    BoxSum<T> acc[4] = {0, 0, 0, 0};
    for (int i = -radius; i <= radius; ++i) {
      const T* p = src + border_index(x + i, in.width, kBorderReflect101) * C;
      for (int c = 0; c < C; ++c) acc[c] = acc[c] + static_cast<BoxSum<T>>(p[c]);
    }
    BoxSum<T>* dst = sums.row(y) + x * C;
    for (int c = 0; c < C; ++c) dst[c] = acc[c];
  }
};

// S(x, y) = sum of H(x, y + j) for j in [-r, r], top to bottom; then the rounded mean.
template <class T>
struct BoxColumns {
  AUG_FIELDS(BoxColumns, sums, out, radius, divisor)
  View<const BoxSum<T>> sums;
  View<T> out;
  int radius;
  BoxDivisor divisor;

  AUG_HD void operator()(int x, int y) const { at_channel_count(*this, out.channels, x, y); }

  template <int C>
  AUG_HD void at(int x, int y) const {
    BoxSum<T> acc[4] = {0, 0, 0, 0};
    for (int j = -radius; j <= radius; ++j) {
      const BoxSum<T>* h = sums.row(border_index(y + j, out.height, kBorderReflect101)) + x * C;
      for (int c = 0; c < C; ++c) acc[c] = acc[c] + h[c];
    }
    T* dst = out.row(y) + x * C;
    if constexpr (std::is_same_v<T, float>) {
      const int k = 2 * radius + 1;
      const double inv = 1.0 / (static_cast<double>(k) * k);
      for (int c = 0; c < C; ++c) dst[c] = static_cast<float>(acc[c] * inv);
    } else {
      for (int c = 0; c < C; ++c) dst[c] = static_cast<T>(box_mean(acc[c], divisor));
    }
  }
};

}  // namespace
}  // namespace box_blur_impl

template <class T>
void box_blur(View<const T> in, View<T> out, int ksize, Scratch& scratch, const Exec& exec) {
  if (ksize < 1 || ksize % 2 == 0 || ksize > 181) throw KernelError("box_blur: the kernel size must be odd, 1 to 181");
  if (in.channels > 4) throw KernelError("box_blur: at most 4 channels");
  if (exec.cpu) return cpu::box_blur(in, out, ksize);
  using S = box_blur_impl::BoxSum<T>;
  const std::size_t pitch = static_cast<std::size_t>(in.width) * in.channels * sizeof(S);
  const View<S> sums{static_cast<S*>(scratch.scratch(pitch * static_cast<std::size_t>(in.height))), in.width,
                     in.height, in.channels, pitch};
  for_2d(box_blur_impl::BoxRows<T>{in, sums, ksize / 2}, in.width, in.height, exec, "box_blur (rows)");
  for_2d(box_blur_impl::BoxColumns<T>{as_const(sums), out, ksize / 2, box_divisor(ksize)}, out.width, out.height, exec,
         "box_blur (columns)");
}

template void box_blur<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, int, Scratch&, const Exec&);
template void box_blur<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, int, Scratch&, const Exec&);
template void box_blur<float>(View<const float>, View<float>, int, Scratch&, const Exec&);

}  // namespace aug::k
