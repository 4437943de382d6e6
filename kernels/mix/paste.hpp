// paste: out = b where mask is set, a elsewhere, every channel (copy_paste's objects):
//   out(x, y) = mask[y * out.width + x] ? b(x, y) : a(x, y)
// a, b and out have one size, channel count and sample type; mask is out.width x out.height bytes.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

template <class T>
void paste(View<const T> a, View<const T> b, const std::uint8_t* mask, View<T> out, const Exec& exec);

}  // namespace aug::k
