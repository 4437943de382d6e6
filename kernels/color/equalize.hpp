// equalize: torchvision's equalize (PIL's ImageOps.equalize scheme), or cv::equalizeHist's table
// (cv), per colour channel.
//   1. counts[c][b]: the histogram of channel c (an integer count per bin, order-free: atomics on a
//      GPU, spread over 64 copies of the 8-bit histograms and summed; a loop on the host). Bins:
//      the value for 8- and 16-bit images (256 / 65536 bins); for float images
//      q = (uint8)(clamp01(v) * 255.999f), torchvision's float -> uint8 conversion.
//   2. the table from the counts (integers only; the host one channel at a time, a device one
//      thread per bin over sums of chunks of 256 bins: the same integers):
//        last = the last nonempty bin, step = (N - counts[last]) / max   (max = bins - 1)
//        step == 0: lut[b] = b;  otherwise lut[0] = 0, lut[b] = min(max, (cum[b-1] + step / 2) / step)
//   3. out = lut[c][v] (integer images), out = (float)lut[c][q] * (float)(1.0 / 255) (float images).
// Alpha is copied.
#pragma once

#include <cstddef>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// Counts and table of an image of this type with `color_channels` colour channels.
template <class T>
std::size_t equalize_scratch_bytes(int color_channels);

// cv: step 2 as cv::equalizeHist computes its table (equalize_table_cv) instead of PIL's.
template <class T>
void equalize(View<const T> in, View<T> out, int color_channels, Scratch& scratch, const Exec& exec, bool cv = false);

namespace cpu {  // the host driver's histogram of 8-bit images (the CPU backend): counts[c * 256 + v]
void equalize_counts(View<const std::uint8_t> in, unsigned* counts, int color_channels);
}  // namespace cpu

// torchvision's float -> uint8 conversion of a [0, 1] value (NaN and values below 0 give 0).
AUG_HD int equalize_float_bin(float v) {
  v = v >= 0.f ? v : 0.f;
  v = v > 1.f ? 1.f : v;
  return static_cast<int>(v * 255.999f);
}

// Step 2 for one channel: `counts` and `lut` hold `bins` entries; `total` is the pixel count.
template <class L>
AUG_HD void equalize_table(const unsigned* counts, L* lut, int bins, long long total) {
  int last = 0;
  for (int b = 0; b < bins; ++b)
    if (counts[b] != 0) last = b;
  const long long max = bins - 1;
  const long long step = (total - static_cast<long long>(counts[last])) / max;
  if (step == 0) {
    for (int b = 0; b < bins; ++b) lut[b] = static_cast<L>(b);
    return;
  }
  long long cum = 0;
  lut[0] = 0;
  for (int b = 1; b < bins; ++b) {
    cum += counts[b - 1];
    const long long v = (cum + step / 2) / step;
    lut[b] = static_cast<L>(v > max ? max : v);
  }
}

// cv::equalizeHist's value of bin b: sum the count of the bins after the first nonempty one up to
// b, rest = total - counts[first] (> 0): clamp(rne((float)sum * ((float)max / (float)rest)), 0, max)
// in binary32, as OpenCV's saturate_cast<uchar>(sum * scale).
AUG_HD int equalize_cv_value(long long sum, long long rest, int max) {
  const float scale = static_cast<float>(max) / static_cast<float>(rest);
  const std::int64_t v = rne(static_cast<float>(sum) * scale);
  return static_cast<int>(v < 0 ? 0 : (v > max ? max : v));
}

// Step 2 as cv::equalizeHist (Albumentations' Equalize, mode "cv"): first = the first nonempty bin;
// when it holds every pixel the table maps to it; otherwise lut[b] = 0 up to first and
// equalize_cv_value of the running count after first.
template <class L>
AUG_HD void equalize_table_cv(const unsigned* counts, L* lut, int bins, long long total) {
  int first = 0;
  while (first < bins - 1 && counts[first] == 0) ++first;
  const long long rest = total - static_cast<long long>(counts[first]);
  if (rest == 0) {
    for (int b = 0; b < bins; ++b) lut[b] = static_cast<L>(first);
    return;
  }
  long long sum = 0;
  for (int b = 0; b < bins; ++b) {
    if (b > first) sum += counts[b];
    lut[b] = static_cast<L>(b <= first ? 0 : equalize_cv_value(sum, rest, bins - 1));
  }
}

}  // namespace aug::k
