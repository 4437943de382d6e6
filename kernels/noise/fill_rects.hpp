// fill_rects: the pixels inside any of a list of rectangles get a fill (random_erasing,
// coarse_dropout, grid_dropout); the others, and alpha everywhere, are copied. The kernel finds a
// pixel's membership by a binary search in its row's spans (the rectangles' union cut into rows, so
// a grid of 1200 holes costs a pixel about 6 comparisons, not 1200); the host driver fills the
// rectangles themselves.
//   fill     fill[c], already in sample units (the host rounds 8/16-bit fills: sat(RNE(f max)))
//   random   z = standard_normal of word c of Philox block (pixel index, sub-stream 1)
//            (kernels/noise/normal.hpp), a fraction of the range: 8/16-bit sat(RNE(z max)) in
//            binary32, float clamp(z, 0, 1)
#pragma once

#include <cstddef>
#include <vector>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"
#include "kernels/core/philox.hpp"
#include "kernels/noise/normal.hpp"

namespace aug::k {

struct FillArgs {
  AUG_FIELDS(FillArgs, rects, count, row_start, spans, fill, random, stream, normal, color_channels)
  const int* rects = nullptr;  // count x (x0, y0, x1, y1), half-open, inside the image (ctx.table)
  int count = 0;
  // The same pixels by row (fill_row_spans): row y's spans are row_start[y] .. row_start[y + 1] - 1,
  // span i is [spans[2i], spans[2i + 1]), sorted and disjoint (ctx.table).
  const int* row_start = nullptr;  // height + 1 entries
  const int* spans = nullptr;
  float fill[4] = {0, 0, 0, 0};
  bool random = false;
  KeyedStream stream;
  const float* normal = nullptr;  // random: kNormalTableSize entries (ctx.table)
  int color_channels = 3;
};

template <class T>
void fill_rects(View<const T> in, View<T> out, const FillArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend)
template <class T>
void fill_rects(View<const T> in, View<T> out, const FillArgs& args);
}  // namespace cpu

// The row spans of `count` rectangles (x0, y0, x1, y1) on a width x height image: row_start (height
// + 1 entries) and spans (pairs), each row's spans sorted and merged; rectangles clipped to the image.
void fill_row_spans(const int* rects, int count, int width, int height, std::vector<int>& row_start,
                    std::vector<int>& spans);

template <class T>
AUG_HD T random_fill(std::uint32_t bits, const float* normal) {
  const float z = standard_normal(bits, normal);
  if constexpr (std::is_same_v<T, float>) return clamp01(z);
  else return saturate<T>(rne(z * static_cast<float>(SampleTraits<T>::max)));
}

}  // namespace aug::k
