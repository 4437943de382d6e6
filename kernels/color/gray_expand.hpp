// gray_expand: a one-channel image written into every channel of an N-channel one (to_rgb).
// Values are copied, never computed.
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

template <class T>
void gray_expand(View<const T> in, View<T> out, const Exec& exec);

}  // namespace aug::k
