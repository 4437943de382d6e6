#include "kernels/noise/fill_rects.hpp"

#include <cstdint>

namespace aug::k {

namespace fill_rects_impl {
namespace {

template <class T>
struct FillPixel {
  AUG_FIELDS(FillPixel, in, out, a)
  View<const T> in;
  View<T> out;
  FillArgs a;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    // The last span of the row that starts at or before x holds x if x is before its end.
    const int first = a.row_start[y];
    int lo = first, hi = a.row_start[y + 1];
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (a.spans[2 * mid] <= x) lo = mid + 1;
      else hi = mid;
    }
    const bool inside = lo > first && x < a.spans[2 * (lo - 1) + 1];
    if (!inside) {
      for (int c = 0; c < out.channels; ++c) d[c] = s[c];
      return;
    }
    Philox4x32 bits{};
    if (a.random) bits = a.stream.block(static_cast<std::uint32_t>(static_cast<std::size_t>(y) * in.width + x), 1);
    for (int c = 0; c < out.channels; ++c) {
      if (c >= a.color_channels) d[c] = s[c];
      else if (a.random) d[c] = random_fill<T>(c == 0 ? bits.v[0] : (c == 1 ? bits.v[1] : bits.v[2]), a.normal);
      else d[c] = static_cast<T>(c == 0 ? a.fill[0] : (c == 1 ? a.fill[1] : a.fill[2]));  // selects: no local memory
    }
  }
};

}  // namespace
}  // namespace fill_rects_impl

template <class T>
void fill_rects(View<const T> in, View<T> out, const FillArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::fill_rects(in, out, args);
  const fill_rects_impl::FillPixel<T> body{in, out, args};
  for_2d(body, out.width, out.height, exec, "fill_rects");
}

template void fill_rects<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const FillArgs&, const Exec&);
template void fill_rects<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const FillArgs&, const Exec&);
template void fill_rects<float>(View<const float>, View<float>, const FillArgs&, const Exec&);

}  // namespace aug::k
