// Helpers for the Kornia-derived stage tests (elastic, gaussian_illumination, jpeg, planckian_jitter),
// whose formulas work on values in [0, 1]: constant images and reading one float sample.
#pragma once

#include <cstddef>

#include "lib/core/image.hpp"

namespace aug::testing::unit_range {

// An image of shape `s` with every value `v` (converted to the sample type).
inline Image constant(const Shape& s, double v) {
  Image im(s);
  with_sample_type(s.dtype, [&](auto tag) {
    using T = decltype(tag);
    auto* p = reinterpret_cast<T*>(im.data());
    for (std::size_t i = 0; i < s.values(); ++i) p[i] = static_cast<T>(v);
  });
  return im;
}

// Channel c of pixel (x, y) of a float image.
inline float fval(const Image& im, int x, int y, int c) {
  return reinterpret_cast<const float*>(im.row(y))[x * im.channels() + c];
}

}  // namespace aug::testing::unit_range
