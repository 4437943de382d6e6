#include "kernels/noise/fill_rects.hpp"

#include <cstdint>
#include <cstring>

namespace aug::k {

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
    bool inside = false;
    for (int r = 0; r < a.count && !inside; ++r) {
      const int* q = a.rects + 4 * r;
      inside = x >= q[0] && y >= q[1] && x < q[2] && y < q[3];
    }
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

template <class T>
void fill_rects(View<const T> in, View<T> out, const FillArgs& args, const Exec& exec) {
  const FillPixel<T> body{in, out, args};
  if (exec.cpu) {
    // The CPU backend: the rows copied, then the same body over the rectangles only (a pixel in
    // several takes the same value from each).
    const std::size_t row = static_cast<std::size_t>(out.width) * out.channels * sizeof(T);
    for (int y = 0; y < out.height; ++y) std::memcpy(out.row(y), in.row(y), row);
    for (int r = 0; r < args.count; ++r) {
      const int* q = args.rects + 4 * r;
      const int x0 = q[0] < 0 ? 0 : q[0], y0 = q[1] < 0 ? 0 : q[1];
      const int x1 = q[2] > out.width ? out.width : q[2], y1 = q[3] > out.height ? out.height : q[3];
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) body(x, y);
    }
    return;
  }
  for_2d(body, out.width, out.height, exec, "fill_rects");
}

template void fill_rects<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const FillArgs&, const Exec&);
template void fill_rects<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const FillArgs&, const Exec&);
template void fill_rects<float>(View<const float>, View<float>, const FillArgs&, const Exec&);

}  // namespace aug::k
