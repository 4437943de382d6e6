// invert: out = max - v on the colour channels (255 - v, 65535 - v; 1 - v for float), alpha copied.
// The worked example of a stage's kernels (docs/architecture.md): the entry point runs the host
// driver on the CPU backend (invert_cpu.cpp: max - v is the bitwise complement ~v, vectorised) and
// the kernel body, the same formula, on the emulated device and on a GPU.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

void invert(View<const std::uint8_t> in, View<std::uint8_t> out, int color_channels, const Exec& exec);
void invert(View<const std::uint16_t> in, View<std::uint16_t> out, int color_channels, const Exec& exec);
void invert(View<const float> in, View<float> out, int color_channels, const Exec& exec);

namespace cpu {  // the host driver of 8- and 16-bit images (the CPU backend)
template <class T>
void invert_integer(View<const T> in, View<T> out, int color_channels);
}  // namespace cpu

}  // namespace aug::k
