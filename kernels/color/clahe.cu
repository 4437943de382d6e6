#include "kernels/color/clahe.hpp"

#include <cstdint>
#include <type_traits>

#include "kernels/core/border.hpp"

namespace aug::k {

namespace clahe_impl {
namespace {

AUG_HD void clahe_count_one(unsigned* p) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, 1u);
#else
  *p += 1u;
#endif
}

struct ClaheZero {
  AUG_FIELDS(ClaheZero, hist)
  unsigned* hist;
  AUG_HD void operator()(std::size_t i) const { hist[i] = 0u; }
};

// Step 1: the plane (V: 8 bits, or 16 for 16-bit gray) and, for RGB, a and b.
template <class T, class V>
struct ClahePlane {
  AUG_FIELDS(ClahePlane, in, plane, ab, lab, color_channels)
  View<const T> in;
  V* plane;
  std::uint8_t* ab;  // 2 per pixel (RGB only)
  const Lab8Tables* lab;
  int color_channels;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    const std::size_t i = static_cast<std::size_t>(y) * in.width + x;
    if (color_channels == 1) {
      if constexpr (std::is_same_v<V, std::uint16_t>) plane[i] = static_cast<V>(s[0]);
      else plane[i] = static_cast<V>(to_u8_io(s[0]));
      return;
    }
    std::uint8_t L, A, B;
    rgb_to_lab8(to_u8_io(s[0]), to_u8_io(s[1]), to_u8_io(s[2]), *lab, L, A, B);
    plane[i] = static_cast<V>(L);
    ab[2 * i] = A;
    ab[2 * i + 1] = B;
  }
};

// Step 2: one count per pixel of the padded plane.
template <class V>
struct ClaheCount {
  AUG_FIELDS(ClaheCount, plane, hist, g)
  const V* plane;
  unsigned* hist;
  ClaheGeometry g;

  AUG_HD void operator()(int x, int y) const {
    const int sx = border_index(x, g.width, kBorderReflect101), sy = border_index(y, g.height, kBorderReflect101);
    const int v = plane[static_cast<std::size_t>(sy) * g.width + sx];
    const int tile = (y / g.tile_h) * g.tiles_x + x / g.tile_w;
    clahe_count_one(hist + static_cast<std::size_t>(tile) * g.bins + v);
  }
};

// Step 3: one thread per tile.
template <class V>
struct ClaheLuts {
  AUG_FIELDS(ClaheLuts, hist, lut, g)
  unsigned* hist;
  V* lut;
  ClaheGeometry g;
  AUG_HD void operator()(std::size_t t) const { clahe_tile_lut<V>(hist + t * g.bins, lut + t * g.bins, g); }
};

// Steps 4 and 5.
template <class T, class V>
struct ClaheApply {
  AUG_FIELDS(ClaheApply, in, out, plane, ab, lut, lab, g, color_channels)
  View<const T> in;
  View<T> out;
  const V* plane;
  const std::uint8_t* ab;
  const V* lut;
  const Lab8Tables* lab;
  ClaheGeometry g;
  int color_channels;

  AUG_HD void operator()(int x, int y) const {
    const std::size_t i = static_cast<std::size_t>(y) * g.width + x;
    const ClaheAxis cx = clahe_axis(x, g.inv_tw, g.tiles_x), cy = clahe_axis(y, g.inv_th, g.tiles_y);
    const std::size_t plane_tables = static_cast<std::size_t>(g.tiles_x) * g.bins;
    const V v = clahe_blend<V>(lut + cy.t1 * plane_tables, lut + cy.t2 * plane_tables,
                               static_cast<std::size_t>(cx.t1) * g.bins, static_cast<std::size_t>(cx.t2) * g.bins, cx,
                               cy, plane[i]);
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    if (color_channels == 1) {
      if constexpr (std::is_same_v<V, std::uint16_t>) d[0] = static_cast<T>(v);
      else d[0] = from_u8_io<T>(v);
    } else {
      std::uint8_t r, gg, b;
      lab8_to_rgb(v, ab[2 * i], ab[2 * i + 1], *lab, r, gg, b);
      d[0] = from_u8_io<T>(r);
      d[1] = from_u8_io<T>(gg);
      d[2] = from_u8_io<T>(b);
    }
    for (int c = color_channels; c < out.channels; ++c) d[c] = s[c];
  }
};

template <class T, class V>
void run(View<const T> in, View<T> out, const ClaheArgs& args, const Lab8Tables* lab, Scratch& scratch,
         const Exec& exec) {
  const int bins = std::is_same_v<V, std::uint16_t> ? 65536 : 256;
  const ClaheGeometry g = clahe_geometry(in.width, in.height, args.tiles_x, args.tiles_y, args.clip_limit, bins);
  const std::size_t tables = static_cast<std::size_t>(g.tiles_x) * g.tiles_y * bins;
  const std::size_t pixels = static_cast<std::size_t>(in.width) * in.height;
  const bool rgb = args.color_channels == 3;
  auto align = [](std::size_t n) { return (n + 255) / 256 * 256; };
  const std::size_t hist_bytes = align(tables * sizeof(unsigned)), lut_bytes = align(tables * sizeof(V)),
                    plane_bytes = align(pixels * sizeof(V)), ab_bytes = rgb ? align(pixels * 2) : 0;
  auto* base = static_cast<unsigned char*>(scratch.scratch(hist_bytes + lut_bytes + plane_bytes + ab_bytes));
  auto* hist = reinterpret_cast<unsigned*>(base);
  V* lut = reinterpret_cast<V*>(base + hist_bytes);
  V* plane = reinterpret_cast<V*>(base + hist_bytes + lut_bytes);
  std::uint8_t* ab = rgb ? base + hist_bytes + lut_bytes + plane_bytes : nullptr;
  for_2d(ClahePlane<T, V>{in, plane, ab, lab, args.color_channels}, in.width, in.height, exec, "clahe (plane)");
  for_1d(ClaheZero{hist}, tables, exec, "clahe (clear)");
  for_2d(ClaheCount<V>{plane, hist, g}, g.tile_w * g.tiles_x, g.tile_h * g.tiles_y, exec, "clahe (histograms)");
  for_1d(ClaheLuts<V>{hist, lut, g}, static_cast<std::size_t>(g.tiles_x) * g.tiles_y, exec, "clahe (tables)");
  for_2d(ClaheApply<T, V>{in, out, plane, ab, lut, lab, g, args.color_channels}, out.width, out.height, exec,
         "clahe (apply)");
}

}  // namespace
}  // namespace clahe_impl

template <class T>
void clahe(View<const T> in, View<T> out, const ClaheArgs& args, const Lab8Tables* lab, Scratch& scratch,
           const Exec& exec) {
  if (exec.cpu) return cpu::clahe(in, out, args, lab);
  if (clahe_16bit_bins<T>(args.color_channels)) clahe_impl::run<T, std::uint16_t>(in, out, args, lab, scratch, exec);
  else clahe_impl::run<T, std::uint8_t>(in, out, args, lab, scratch, exec);
}

template void clahe<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const ClaheArgs&, const Lab8Tables*,
                                  Scratch&, const Exec&);
template void clahe<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const ClaheArgs&,
                                   const Lab8Tables*, Scratch&, const Exec&);
template void clahe<float>(View<const float>, View<float>, const ClaheArgs&, const Lab8Tables*, Scratch&,
                           const Exec&);

}  // namespace aug::k
