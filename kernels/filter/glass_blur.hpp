// glass_blur: Albumentations' GlassBlur between its two Gaussian blurs: every pixel of the interior
// rows [d + 1, H - d] and columns [d + 1, W - d] swapped with the pixel (dy, dx) away, dy and dx
// integers in [-d, d) (+d is never drawn), all channels together, `iterations` times.
//
// The offsets: pixel (y, x) in iteration i takes word x % 3 of the keyed stream's block
// (y * ceil(W / 3) + x / 3, kGlassBlurPurpose + i); dy = -d + ((low 16 bits * 2d) >> 16),
// dx = -d + ((high 16 bits * 2d) >> 16).
//
// 'fast' (NumPy's vectorised swap, x[h, w], x[h + dy, w + dx] = x[h + dy, w + dx], x[h, w], with
// Albumentations' order of pixels: k = (W - d - x) * (H - 2d) + (H - d - y)): both sides are read
// before anything is written; then every interior pixel takes the value at its target, and every
// target takes the value of its source; where several sources share a target the one of largest k
// wins (NumPy's last write), that is the smallest x, then the smallest y. Each pixel's new value
// depends only on the previous iteration's image: the kernels find the winners with atomicMax, the
// host driver with a plane of owners, both in parallel-safe, order-free form.
// 'exact': the swaps one after another, in place, iteration by iteration, rows from H - d down to
// d + 1, in each row columns from W - d down to d + 1 (Albumentations' loop); one serial kernel.
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"
#include "kernels/core/philox.hpp"

namespace aug::k {

inline constexpr std::uint32_t kGlassBlurPurpose = 1;

struct GlassArgs {
  AUG_FIELDS(GlassArgs, stream, max_delta, iterations)
  KeyedStream stream;
  int max_delta;
  int iterations;
};

// Index of the block of the keyed stream whose words 0, 1, 2 hold the offsets of pixels
// (y, 3 (x / 3)) to (y, 3 (x / 3) + 2) (three words: the host driver draws a row's blocks in AVX2
// lanes, which give words 0 to 2).
AUG_HD std::uint32_t glass_blur_block_index(int width, int y, int x) {
  const std::uint32_t stride = (static_cast<std::uint32_t>(width) + 2u) / 3u;
  return static_cast<std::uint32_t>(y) * stride + static_cast<std::uint32_t>(x) / 3u;
}
AUG_HD Philox4x32 glass_blur_block(const KeyedStream& s, int width, int y, int x, int it) {
  return s.block(glass_blur_block_index(width, y, x), kGlassBlurPurpose + static_cast<std::uint32_t>(it));
}

// A word of that block as (dy, dx), each in [-d, d).
AUG_HD void glass_blur_decode(std::uint32_t w, int d, int& dy, int& dx) {
  const std::uint32_t span = 2u * static_cast<std::uint32_t>(d);
  dy = -d + static_cast<int>(((w & 0xffffu) * span) >> 16);
  dx = -d + static_cast<int>(((w >> 16) * span) >> 16);
}

// The offset of interior pixel (y, x) of a W-wide image in iteration `it`.
AUG_HD void glass_blur_offset(const KeyedStream& s, int width, int y, int x, int it, int d, int& dy, int& dx) {
  glass_blur_decode(glass_blur_block(s, width, y, x, it).v[x % 3], d, dy, dx);
}

// 'fast': out = the swaps of every iteration applied to `in` (in and out distinct).
template <class T>
void glass_blur_fast(View<const T> in, View<T> out, const GlassArgs& args, Scratch& scratch, const Exec& exec);
// 'exact': the serial swaps move pixels and never mix them, and where they go depends only on the
// keyed stream, so the result is the input gathered through an order. glass_blur_exact_order
// writes that order on the host by running the swaps over pixel indices (order[y * width + x] = the
// index y' * width + x' of the input pixel that ends at (x, y)); glass_blur_exact gathers `in`
// through it into `out` (`order`: memory `exec` reads, e.g. a KernelContext table), so that a GPU
// runs no serial loop; the CPU backend swaps in place instead (cpu::glass_blur_exact, faster on one
// core than the order and the gather). Throws KernelError for images of 2^31 pixels or more.
void glass_blur_exact_order(int width, int height, const GlassArgs& args, std::int32_t* order);
template <class T>
void glass_blur_exact(View<const T> in, View<T> out, const std::int32_t* order, const Exec& exec);

namespace cpu {
template <class T>
void glass_blur_fast(View<const T> in, View<T> out, const GlassArgs& args);
template <class T>
void glass_blur_exact(View<T> x, const GlassArgs& args);  // the swaps in place, one after another
}  // namespace cpu

}  // namespace aug::k
