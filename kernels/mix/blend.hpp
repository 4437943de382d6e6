// blend: out = a wa + b wb per value, every channel (mixup: wa = r, wb = 1 - r), in binary64:
//   8/16-bit  trunc(a wa + b wb), saturated (Ultralytics' `(im * r + im2 * (1 - r)).astype(uint8)`)
//   float     the binary64 sum rounded to binary32
// a, b and out have one size, channel count and sample type.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

template <class T>
void blend(View<const T> a, View<const T> b, View<T> out, double wa, double wb, const Exec& exec);

}  // namespace aug::k
