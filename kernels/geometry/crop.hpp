// crop: out(x, y) = in(x + x0, y + y0), every channel; `out` gives the size (a crop at (0, 0) of the
// full size is a copy).
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

template <class T>
void crop(View<const T> in, View<T> out, int x0, int y0, const Exec& exec);

}  // namespace aug::k
