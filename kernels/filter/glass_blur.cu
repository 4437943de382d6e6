#include "kernels/filter/glass_blur.hpp"

#include <cstdint>

namespace aug::k {

namespace glass_blur_impl {
namespace {

AUG_HD void keep_max(int* p, int v) {
#if defined(__CUDA_ARCH__)
  atomicMax(p, v);
#else
  if (v > *p) *p = v;
#endif
}

struct FillOwners {
  AUG_FIELDS(FillOwners, owner)
  View<int> owner;
  AUG_HD void operator()(int x, int y) const { owner.row(y)[x] = -1; }
};

// Interior pixel (y, x) = (d + 1 + j, d + 1 + i) claims its target with its order k.
struct Claim {
  AUG_FIELDS(Claim, owner, stream, d, it, width, height)
  View<int> owner;
  KeyedStream stream;
  int d, it, width, height;
  AUG_HD void operator()(int i, int j) const {
    const int x = d + 1 + i, y = d + 1 + j;
    int dy, dx;
    glass_blur_offset(stream, width, y, x, it, d, dy, dx);
    const int k = (width - d - x) * (height - 2 * d) + (height - d - y);
    keep_max(&owner.row(y + dy)[x + dx], k);
  }
};

template <class T>
struct Gather {
  AUG_FIELDS(Gather, in, out, owner, stream, d, it)
  View<const T> in;
  View<T> out;
  View<const int> owner;
  KeyedStream stream;
  int d, it;
  AUG_HD void operator()(int x, int y) const {
    const int W = in.width, H = in.height, C = in.channels;
    const int nh = H - 2 * d;
    int sy = y, sx = x;
    const int k = owner.row(y)[x];
    if (k >= 0) {
      sx = W - d - k / nh;
      sy = H - d - k % nh;
    } else if (y >= d + 1 && y <= H - d && x >= d + 1 && x <= W - d) {
      int dy, dx;
      glass_blur_offset(stream, W, y, x, it, d, dy, dx);
      sy = y + dy;
      sx = x + dx;
    }
    const T* s = in.row(sy) + sx * C;
    T* o = out.row(y) + x * C;
    for (int c = 0; c < C; ++c) o[c] = s[c];
  }
};

// out(x, y) = in at the pixel index order[y * W + x].
template <class T>
struct OrderGather {
  AUG_FIELDS(OrderGather, in, out, order)
  View<const T> in;
  View<T> out;
  const std::int32_t* order;
  AUG_HD void operator()(int x, int y) const {
    const int W = in.width, C = in.channels;
    const std::int32_t from = order[static_cast<std::size_t>(y) * W + x];
    const T* s = in.row(from / W) + (from % W) * C;
    T* o = out.row(y) + x * C;
    for (int c = 0; c < C; ++c) o[c] = s[c];
  }
};

}  // namespace
}  // namespace glass_blur_impl

template <class T>
void glass_blur_fast(View<const T> in, View<T> out, const GlassArgs& args, Scratch& scratch, const Exec& exec) {
  if (exec.cpu) return cpu::glass_blur_fast(in, out, args);
  const int W = in.width, H = in.height, C = in.channels, d = args.max_delta;
  const std::size_t pitch = static_cast<std::size_t>(W) * C * sizeof(T);
  const View<int> owner{static_cast<int*>(scratch.scratch(static_cast<std::size_t>(W) * H * sizeof(int))), W, H, 1,
                        static_cast<std::size_t>(W) * sizeof(int)};
  const View<T> other{static_cast<T*>(scratch.scratch(pitch * H)), W, H, C, pitch};
  View<const T> src = in;
  for (int it = 0; it < args.iterations; ++it) {
    // The last iteration writes `out`; the ones before alternate so that none reads what it writes.
    const View<T> dst = (args.iterations - 1 - it) % 2 == 0 ? out : other;
    for_2d(glass_blur_impl::FillOwners{owner}, W, H, exec, "glass_blur_fill");
    if (H - 2 * d > 0 && W - 2 * d > 0)
      for_2d(glass_blur_impl::Claim{owner, args.stream, d, it, W, H}, W - 2 * d, H - 2 * d, exec, "glass_blur_claim");
    for_2d(glass_blur_impl::Gather<T>{src, dst, as_const(owner), args.stream, d, it}, W, H, exec, "glass_blur_gather");
    src = as_const(dst);
  }
}

template <class T>
void glass_blur_exact(View<const T> in, View<T> out, const std::int32_t* order, const Exec& exec) {
  for_2d(glass_blur_impl::OrderGather<T>{in, out, order}, out.width, out.height, exec, "glass_blur_exact");
}

template void glass_blur_fast<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const GlassArgs&, Scratch&,
                                            const Exec&);
template void glass_blur_fast<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const GlassArgs&, Scratch&,
                                             const Exec&);
template void glass_blur_fast<float>(View<const float>, View<float>, const GlassArgs&, Scratch&, const Exec&);
template void glass_blur_exact<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const std::int32_t*,
                                             const Exec&);
template void glass_blur_exact<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const std::int32_t*,
                                              const Exec&);
template void glass_blur_exact<float>(View<const float>, View<float>, const std::int32_t*, const Exec&);

}  // namespace aug::k
