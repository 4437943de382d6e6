// flip: out(x, y) = in(horizontal ? W-1-x : x, vertical ? H-1-y : y), every channel. Pixels are moved,
// never computed.
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

template <class T>
void flip(View<const T> in, View<T> out, bool horizontal, bool vertical, const Exec& exec);

}  // namespace aug::k
