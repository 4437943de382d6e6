// hue_saturation_value's host driver: the kernels' pixel function (hue_saturation_value.hpp) row by
// row, in a clone for processors with FMA next to the baseline one. The fused multiply-adds of
// OpenCV's arithmetic are single instructions there; the baseline clone gets the same correctly
// rounded results from the C library's fmaf.
#include <cstdint>

#include "kernels/color/hue_saturation_value.hpp"

namespace aug::k::cpu {

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define AUG_FMA_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define AUG_FMA_CLONES
#endif

AUG_FMA_CLONES void hsv_row(const std::uint8_t* s, std::uint8_t* d, int width, int C, const HsvArgs& a) {
  const int block_end = width / kHsvBlock * kHsvBlock;
  for (int x = 0; x < width; ++x) hsv_pixel(s + x * C, d + x * C, C, a, x < block_end);
}

}  // namespace

void hue_saturation_value(View<const std::uint8_t> in, View<std::uint8_t> out, const HsvArgs& a) {
  for (int y = 0; y < in.height; ++y) hsv_row(in.row(y), out.row(y), in.width, in.channels, a);
}

}  // namespace aug::k::cpu
