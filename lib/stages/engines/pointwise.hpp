// Host side of the pointwise engine (kernels/engines/pointwise.hpp): the per-channel tables of
// 8- and 16-bit per-value stages, built here once per image and applied identically on every
// backend.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/engines/pointwise.hpp"
#include "lib/core/image.hpp"
#include "lib/stages/kernel_context.hpp"

namespace aug {

// The channels a colour stage changes: all but alpha (gray 1, RGB 3, RGBA 3).
inline int color_channels(const Shape& s) { return s.channels == 4 ? 3 : s.channels; }

// For an 8- or 16-bit image: out = sat(value(v, max, c)) for each value v of colour channel c, by a
// table of every v in [0, max]; alpha copied. `value` runs on the host only.
template <class F>
void run_table(KernelContext& ctx, const ImageRef& in, const ImageRef& out, F value) {
  const int cc = color_channels(in.shape);
  auto apply = [&](auto tag) {
    using T = decltype(tag);
    constexpr std::int64_t max = k::SampleTraits<T>::max;
    std::vector<T> table(static_cast<std::size_t>(cc) * (max + 1));
    for (int c = 0; c < cc; ++c)
      for (std::int64_t v = 0; v <= max; ++v) table[c * (max + 1) + v] = k::saturate<T>(value(v, max, c));
    k::apply_table<T>(in.view<const T>(), out.view<T>(), ctx.table(table), cc, ctx.exec());
  };
  switch (in.shape.dtype) {
    case DType::U8: return apply(std::uint8_t{});
    case DType::U16: return apply(std::uint16_t{});
    case DType::F32: break;
  }
  throw std::logic_error("run_table: float images take the stage's formula, not a table");
}

}  // namespace aug
