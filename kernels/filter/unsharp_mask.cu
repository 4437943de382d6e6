#include "kernels/filter/unsharp_mask.hpp"

namespace aug::k {

namespace unsharp_mask_impl {
namespace {

template <class T>
struct UnitPixel {
  AUG_FIELDS(UnitPixel, in, x)
  View<const T> in;
  View<float> x;
  AUG_HD void operator()(int px, int py) const {
    const int C = in.channels;
    for (int c = 0; c < C; ++c) x.row(py)[px * C + c] = to_unit(in.row(py)[px * C + c]);
  }
};

struct MaskPixel {
  AUG_FIELDS(MaskPixel, x, b, m, threshold)
  View<const float> x, b;
  View<float> m;
  float threshold;
  AUG_HD void operator()(int px, int py) const {
    const int C = x.channels;
    for (int c = 0; c < C; ++c) {
      const int i = px * C + c;
      m.row(py)[i] = unsharp_mask_value(x.row(py)[i], b.row(py)[i], threshold);
    }
  }
};

template <class T>
struct CombinePixel {
  AUG_FIELDS(CombinePixel, x, b, s, out, alpha)
  View<const float> x, b, s;
  View<T> out;
  float alpha;
  AUG_HD void operator()(int px, int py) const {
    const int C = x.channels;
    for (int c = 0; c < C; ++c) {
      const int i = px * C + c;
      out.row(py)[i] = from_unit<T>(unsharp_blend(x.row(py)[i], b.row(py)[i], s.row(py)[i], alpha));
    }
  }
};

}  // namespace
}  // namespace unsharp_mask_impl

template <class T>
void unsharp_mask(View<const T> in, View<T> out, const UnsharpArgs& a, Scratch& scratch, const Exec& exec) {
  if (exec.cpu) return cpu::unsharp_mask(in, out, a);
  const int W = in.width, H = in.height, C = in.channels;
  const std::size_t pitch = static_cast<std::size_t>(W) * C * sizeof(float);
  auto plane = [&] { return View<float>{static_cast<float*>(scratch.scratch(pitch * H)), W, H, C, pitch}; };
  View<const float> x;
  if constexpr (std::is_same_v<T, float>) {
    x = in;
  } else {
    const View<float> xs = plane();
    for_2d(unsharp_mask_impl::UnitPixel<T>{in, xs}, W, H, exec, "unsharp_to_unit");
    x = as_const(xs);
  }
  const View<float> b = plane(), m = plane(), s = plane();
  separable(x, b, a.h, a.v, 0, 0, H, scratch, exec);
  for_2d(unsharp_mask_impl::MaskPixel{x, as_const(b), m, a.threshold}, W, H, exec, "unsharp_mask_plane");
  separable(as_const(m), s, a.h, a.v, 0, 0, H, scratch, exec);
  for_2d(unsharp_mask_impl::CombinePixel<T>{x, as_const(b), as_const(s), out, a.alpha}, W, H, exec, "unsharp_combine");
}

template void unsharp_mask<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const UnsharpArgs&, Scratch&,
                                         const Exec&);
template void unsharp_mask<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const UnsharpArgs&,
                                          Scratch&, const Exec&);
template void unsharp_mask<float>(View<const float>, View<float>, const UnsharpArgs&, Scratch&, const Exec&);

}  // namespace aug::k
