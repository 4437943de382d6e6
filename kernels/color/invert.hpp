// invert: out = max - v for 8- and 16-bit images (through the pointwise engine's tables) and
// out = 1 - v for float images (here); alpha is copied. On the CPU backend 8- and 16-bit images take
// the host driver below, which computes max - v as the complement ~v (invert_cpu.cpp).
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

void invert_float(View<const float> in, View<float> out, int color_channels, const Exec& exec);

namespace cpu {  // the host driver of 8- and 16-bit images (the CPU backend): the table's values, by complement
template <class T>
void invert_integer(View<const T> in, View<T> out, int color_channels);
}  // namespace cpu

}  // namespace aug::k
