#include "kernels/filter/morphology.hpp"

namespace aug::k {

namespace morphology_impl {
namespace {

template <class T>
struct MorphPixel {
  AUG_FIELDS(MorphPixel, in, out, a)
  View<const T> in;
  View<T> out;
  MorphologyArgs a;

  AUG_HD void operator()(int x, int y) const {
    const int C = in.channels;
    for (int c = 0; c < C; ++c) {
      bool any = false;
      T v = in.row(y)[x * C + c];  // replaced by the first cell inside the image
      for (int i = 0; i < a.rows; ++i) {
        const int sy = y + i - a.ay;
        if (sy < 0 || sy >= in.height) continue;
        const T* r = in.row(sy);
        for (int j = a.spans[2 * i]; j < a.spans[2 * i + 1]; ++j) {
          const int sx = x + j - a.ax;
          if (sx < 0 || sx >= in.width) continue;
          const T s = r[sx * C + c];
          if (!any) v = s, any = true;
          else if (a.dilate ? s > v : s < v) v = s;
        }
      }
      out.row(y)[x * C + c] = v;
    }
  }
};

}  // namespace
}  // namespace morphology_impl

template <class T>
void morphology(View<const T> in, View<T> out, const MorphologyArgs& args, const Exec& exec) {
  if (args.rows < 1) throw KernelError("morphology: the structuring element has no rows");
  if (exec.cpu) return cpu::morphology(in, out, args);
  for_2d(morphology_impl::MorphPixel<T>{in, out, args}, out.width, out.height, exec, "morphology");
}

template void morphology<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const MorphologyArgs&, const Exec&);
template void morphology<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const MorphologyArgs&,
                                        const Exec&);
template void morphology<float>(View<const float>, View<float>, const MorphologyArgs&, const Exec&);

}  // namespace aug::k
