// morphology: OpenCV's dilate (the maximum) or erode (the minimum) over a structuring element given
// by rows: row i of the element (i = 0 .. rows - 1) covers columns spans[2i] .. spans[2i + 1] - 1 (an
// empty row has both equal). The element's anchor is (ax, ay); output pixel (x, y) takes, for each
// channel alone, the maximum (dilate) or minimum (erode) of the input values at
// (x + j - ax, y + i - ay) over the element's cells that lie inside the image. Cells outside are left
// out, which is what OpenCV's default constant border (morphologyDefaultBorderValue) amounts to.
// Values are compared, never computed: the result is exact on every backend (float NaN inputs
// aside, which compare as OpenCV's vector max / min do not promise either).
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct MorphologyArgs {
  AUG_FIELDS(MorphologyArgs, spans, rows, ax, ay, dilate)
  const int* spans = nullptr;  // rows x (first column, past the last) (ctx.table)
  int rows = 1;
  int ax = 0, ay = 0;
  bool dilate = true;
};

template <class T>
void morphology(View<const T> in, View<T> out, const MorphologyArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend)
template <class T>
void morphology(View<const T> in, View<T> out, const MorphologyArgs& args);
}  // namespace cpu

}  // namespace aug::k
