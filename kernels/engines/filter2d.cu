#include "kernels/engines/filter2d.hpp"

#include <type_traits>

#include "kernels/core/border.hpp"

namespace aug::k {

namespace filter2d_impl {
namespace {

AUG_HD float fused(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return __builtin_fmaf(a, b, c);
#endif
}

template <class T>
struct Filter2DPixel {
  AUG_FIELDS(Filter2DPixel, in, out, a)
  View<const T> in;
  View<T> out;
  Filter2DArgs a;

  AUG_HD void operator()(int x, int y) const {
    const int C = in.channels;
    for (int c = 0; c < C; ++c) {
      float acc = 0.0f;
      for (int t = 0; t < a.count; ++t) {
        const int sx = border_index(x + a.offsets[2 * t], in.width, kBorderReflect101);
        const int sy = border_index(y + a.offsets[2 * t + 1], in.height, kBorderReflect101);
        acc = fused(static_cast<float>(in.row(sy)[sx * C + c]), a.weights[t], acc);
      }
      if constexpr (std::is_same_v<T, float>) out.row(y)[x * C + c] = a.clip ? clamp01(acc) : acc;
      else out.row(y)[x * C + c] = saturate<T>(rne(acc));
    }
  }
};

}  // namespace
}  // namespace filter2d_impl

template <class T>
void filter2d(View<const T> in, View<T> out, const Filter2DArgs& args, const Exec& exec) {
  if (args.count <= 0) throw KernelError("filter2d: a kernel without taps");
  if (exec.cpu) return cpu::filter2d(in, out, args);
  for_2d(filter2d_impl::Filter2DPixel<T>{in, out, args}, out.width, out.height, exec, "filter2d");
}

template void filter2d<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const Filter2DArgs&, const Exec&);
template void filter2d<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const Filter2DArgs&,
                                      const Exec&);
template void filter2d<float>(View<const float>, View<float>, const Filter2DArgs&, const Exec&);

}  // namespace aug::k
