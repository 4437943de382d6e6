// clahe's host driver (the CPU backend): the kernels' functions (kernels/color/clahe.hpp) row by row:
// the plane, the histograms tile by tile (border indices only for the padded columns and rows), the
// tables, then per row the blend with the column coordinates computed once.
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/color/clahe.hpp"
#include "kernels/core/border.hpp"
#include "kernels/core/host_simd.hpp"  // AUG_CLONES

namespace aug::k::cpu {

namespace clahe_cpu_impl {
namespace {

template <class T, class V>
AUG_CLONES void plane_rows(View<const T> in, V* plane, std::uint8_t* ab, const Lab8Tables* lab, int cc) {
  std::vector<std::uint16_t> xyz_row(cc == 3 ? 3 * static_cast<std::size_t>(in.width) : 0);
  std::uint16_t* const xyz = xyz_row.data();
  std::int32_t c[9] = {};
  if (lab)
    for (int k = 0; k < 9; ++k) c[k] = lab->to_xyz[k];
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    V* p = plane + static_cast<std::size_t>(y) * in.width;
    if (cc == 1) {
      for (int x = 0; x < in.width; ++x) {
        if constexpr (std::is_same_v<V, std::uint16_t>) p[x] = static_cast<V>(s[x * in.channels]);
        else p[x] = static_cast<V>(to_u8_io(s[x * in.channels]));
      }
      continue;
    }
    // rgb_to_lab8 in its two steps, each over the row (as apply_rows: the table reads of many pixels
    // overlap).
    std::uint8_t* q = ab + 2 * static_cast<std::size_t>(y) * in.width;
    for (int x = 0; x < in.width; ++x) {
      const T* px = s + x * in.channels;
      int ix, iy, iz;
      rgb_to_xyz8(to_u8_io(px[0]), to_u8_io(px[1]), to_u8_io(px[2]), *lab, c, ix, iy, iz);
      xyz[3 * x] = static_cast<std::uint16_t>(ix);
      xyz[3 * x + 1] = static_cast<std::uint16_t>(iy);
      xyz[3 * x + 2] = static_cast<std::uint16_t>(iz);
    }
    const std::uint16_t* root = lab->cbrt;
    for (int x = 0; x < in.width; ++x) {
      std::uint8_t L, A, B;
      lab8_of_roots(root[xyz[3 * x]], root[xyz[3 * x + 1]], root[xyz[3 * x + 2]], L, A, B);
      p[x] = L;
      q[2 * x] = A;
      q[2 * x + 1] = B;
    }
  }
}

template <class V>
void histograms(const V* plane, unsigned* hist, const ClaheGeometry& g) {
  const int ext_w = g.tile_w * g.tiles_x, ext_h = g.tile_h * g.tiles_y;
  std::vector<int> col(static_cast<std::size_t>(ext_w));
  for (int x = 0; x < ext_w; ++x) col[x] = border_index(x, g.width, kBorderReflect101);
  for (int y = 0; y < ext_h; ++y) {
    const V* row = plane + static_cast<std::size_t>(border_index(y, g.height, kBorderReflect101)) * g.width;
    unsigned* tile_row = hist + static_cast<std::size_t>(y / g.tile_h) * g.tiles_x * g.bins;
    for (int t = 0; t < g.tiles_x; ++t) {
      unsigned* h = tile_row + static_cast<std::size_t>(t) * g.bins;
      const int x0 = t * g.tile_w, x1 = x0 + g.tile_w;
      const int inside = x1 < g.width ? x1 : g.width;
      int x = x0;
      for (; x < inside; ++x) ++h[row[x]];
      for (; x < x1; ++x) ++h[row[col[x]]];
    }
  }
}

// Per row, first every value's blend of its four tables into `blended`, then the output pixels from
// it: two short loops instead of one long one, so that the processor overlaps the table reads of many
// pixels (one loop of both was 1.3x slower on an AMD EPYC).
template <class T, class V>
AUG_CLONES void apply_rows(View<const T> in, View<T> out, const V* plane, const std::uint8_t* ab, const V* lut,
                const Lab8Tables* lab, const ClaheGeometry& g, int cc) {
  struct Column {
    ClaheAxis axis;
    std::size_t i1, i2;
  };
  std::vector<Column> cols(static_cast<std::size_t>(g.width));
  for (int x = 0; x < g.width; ++x) {
    const ClaheAxis a = clahe_axis(x, g.inv_tw, g.tiles_x);
    cols[x] = {a, static_cast<std::size_t>(a.t1) * g.bins, static_cast<std::size_t>(a.t2) * g.bins};
  }
  std::vector<V> blended(static_cast<std::size_t>(g.width));
  V* const v = blended.data();
  const std::size_t plane_tables = static_cast<std::size_t>(g.tiles_x) * g.bins;
  std::int32_t c[9] = {};
  if (lab)
    for (int k = 0; k < 9; ++k) c[k] = lab->to_rgb[k];
  for (int y = 0; y < g.height; ++y) {
    const ClaheAxis cy = clahe_axis(y, g.inv_th, g.tiles_y);
    const V* row1 = lut + cy.t1 * plane_tables;
    const V* row2 = lut + cy.t2 * plane_tables;
    const V* p = plane + static_cast<std::size_t>(y) * g.width;
    for (int x = 0; x < g.width; ++x) {
      const Column& col = cols[x];
      v[x] = clahe_blend<V>(row1, row2, col.i1, col.i2, col.axis, cy, p[x]);
    }
    const std::uint8_t* q = ab ? ab + 2 * static_cast<std::size_t>(y) * g.width : nullptr;
    const T* s = in.row(y);
    T* d = out.row(y);
    for (int x = 0; x < g.width; ++x) {
      T* dp = d + x * out.channels;
      if (cc == 1) {
        if constexpr (std::is_same_v<V, std::uint16_t>) dp[0] = static_cast<T>(v[x]);
        else dp[0] = from_u8_io<T>(v[x]);
      } else {
        std::uint8_t r, gg, b;
        lab8_to_rgb(v[x], q[2 * x], q[2 * x + 1], *lab, c, r, gg, b);
        dp[0] = from_u8_io<T>(r);
        dp[1] = from_u8_io<T>(gg);
        dp[2] = from_u8_io<T>(b);
      }
      for (int k = cc; k < out.channels; ++k) dp[k] = s[x * in.channels + k];
    }
  }
}

template <class T, class V>
void run(View<const T> in, View<T> out, const ClaheArgs& args, const Lab8Tables* lab) {
  const int bins = std::is_same_v<V, std::uint16_t> ? 65536 : 256;
  const ClaheGeometry g = clahe_geometry(in.width, in.height, args.tiles_x, args.tiles_y, args.clip_limit, bins);
  const std::size_t tables = static_cast<std::size_t>(g.tiles_x) * g.tiles_y * bins;
  const std::size_t pixels = static_cast<std::size_t>(in.width) * in.height;
  const int cc = args.color_channels;
  // Every value of the planes is written before it is read: no need to clear them.
  const std::unique_ptr<V[]> plane(new V[pixels]);
  const std::unique_ptr<std::uint8_t[]> ab(cc == 3 ? new std::uint8_t[2 * pixels] : nullptr);
  plane_rows<T, V>(in, plane.get(), ab.get(), lab, cc);
  std::vector<unsigned> hist(tables, 0u);
  histograms<V>(plane.get(), hist.data(), g);
  std::vector<V> lut(tables);
  for (std::size_t t = 0; t < static_cast<std::size_t>(g.tiles_x) * g.tiles_y; ++t)
    clahe_tile_lut<V>(hist.data() + t * bins, lut.data() + t * bins, g);
  apply_rows<T, V>(in, out, plane.get(), ab.get(), lut.data(), lab, g, cc);
}

}  // namespace
}  // namespace clahe_cpu_impl

template <class T>
void clahe(View<const T> in, View<T> out, const ClaheArgs& args, const Lab8Tables* lab) {
  if (clahe_16bit_bins<T>(args.color_channels)) clahe_cpu_impl::run<T, std::uint16_t>(in, out, args, lab);
  else clahe_cpu_impl::run<T, std::uint8_t>(in, out, args, lab);
}

template void clahe<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const ClaheArgs&, const Lab8Tables*);
template void clahe<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const ClaheArgs&,
                                   const Lab8Tables*);
template void clahe<float>(View<const float>, View<float>, const ClaheArgs&, const Lab8Tables*);

}  // namespace aug::k::cpu
