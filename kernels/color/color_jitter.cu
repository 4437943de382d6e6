#include "kernels/color/color_jitter.hpp"

#include "kernels/core/reduce.hpp"

namespace aug::k {

namespace color_jitter_impl {
namespace {

// The contrast mean's partial sums: exact integers for 8- and 16-bit images, doubles for float.
template <class T>
using JitterSum = std::conditional_t<std::is_same_v<T, float>, double, std::uint64_t>;

// Adjustments [from, to) on every pixel; `mean` (device memory) when contrast is among them.
template <class T>
struct JitterPixels {
  AUG_FIELDS(JitterPixels, in, out, a, from, to, mean)
  View<const T> in;
  View<T> out;
  JitterArgs a;
  int from, to;
  const float* mean;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    const int cc = a.color_channels;
    float px[3] = {0.f, 0.f, 0.f};
    for (int c = 0; c < 3; ++c)
      if (c < cc) px[c] = static_cast<float>(s[c]);
    jitter_steps<T>(px, cc, a, from, to, mean ? *mean : 0.f);
    for (int c = 0; c < 3; ++c)
      if (c < cc) d[c] = static_cast<T>(px[c]);
    for (int c = cc; c < out.channels; ++c) d[c] = s[c];
  }
};

// One item per row: the sum of the row's (floored) grayscale values, left to right.
template <class T>
struct JitterRowSums {
  AUG_FIELDS(JitterRowSums, img, cc, sums)
  View<const T> img;
  int cc;
  JitterSum<T>* sums;

  AUG_HD void operator()(std::size_t row) const {
    const T* s = img.row(static_cast<int>(row));
    JitterSum<T> acc = 0;
    for (int x = 0; x < img.width; ++x) {
      float px[3] = {0.f, 0.f, 0.f};
      for (int c = 0; c < 3; ++c)
        if (c < cc) px[c] = static_cast<float>(s[x * img.channels + c]);
      acc = acc + static_cast<double>(jitter_luma<T>(px, cc));
    }
    sums[row] = acc;
  }
};

// A pixel's floored grayscale value (integer images: row_sums adds runs of a row in parallel).
template <class T>
struct JitterPixelLuma {
  AUG_FIELDS(JitterPixelLuma, img, cc)
  View<const T> img;
  int cc;
  AUG_HD std::uint64_t operator()(int x, int y) const {
    const T* s = img.row(y) + x * img.channels;
    float px[3] = {0.f, 0.f, 0.f};
    for (int c = 0; c < 3; ++c)
      if (c < cc) px[c] = static_cast<float>(s[c]);
    return static_cast<std::uint64_t>(jitter_luma<T>(px, cc));
  }
};

// One item: the rows' sums in order, then the mean as torch.mean gives it: (float)sum / (float)n for
// integer images (the sum is exact), (float)(sum / n) in double for float images.
template <class T>
struct JitterMean {
  AUG_FIELDS(JitterMean, sums, rows, count, mean)
  const JitterSum<T>* sums;
  int rows;
  std::uint64_t count;
  float* mean;

  AUG_HD void operator()(std::size_t) const {
    JitterSum<T> total = 0;
    for (int r = 0; r < rows; ++r) total = total + sums[r];
    if constexpr (std::is_same_v<T, float>) *mean = static_cast<float>(total / static_cast<double>(count));
    else *mean = static_cast<float>(total) / static_cast<float>(count);
  }
};

}  // namespace
}  // namespace color_jitter_impl

template <class T>
void color_jitter(View<const T> in, View<T> out, const JitterArgs& a, Scratch& scratch, const Exec& exec) {
  if constexpr (std::is_same_v<T, std::uint8_t>)
    if (exec.cpu) return cpu::color_jitter(in, out, a);
  int at = -1;  // where contrast runs
  for (int k = 0; k < a.count; ++k)
    if (a.op[k] == kJitterContrast) at = k;
  if (at < 0) {
    for_2d(color_jitter_impl::JitterPixels<T>{in, out, a, 0, a.count, nullptr}, out.width, out.height, exec, "color_jitter");
    return;
  }
  // The adjustments before contrast, then the mean of that image, then contrast and the rest (in place).
  for_2d(color_jitter_impl::JitterPixels<T>{in, out, a, 0, at, nullptr}, out.width, out.height, exec, "color_jitter");
  const int rows = out.height;
  auto* sums = static_cast<color_jitter_impl::JitterSum<T>*>(scratch.scratch(sizeof(color_jitter_impl::JitterSum<T>) * (static_cast<std::size_t>(rows) + 1)));
  auto* mean = reinterpret_cast<float*>(sums + rows);
  const View<const T> mid = as_const(out);
  if constexpr (std::is_same_v<T, float>)  // doubles: each row left to right, as the CPU adds them
    for_1d(color_jitter_impl::JitterRowSums<T>{mid, a.color_channels, sums}, static_cast<std::size_t>(rows), exec,
           "color_jitter_rows");
  else
    row_sums(color_jitter_impl::JitterPixelLuma<T>{mid, a.color_channels}, out.width, rows, sums, exec,
             "color_jitter_rows");
  const std::uint64_t count = static_cast<std::uint64_t>(out.width) * static_cast<std::uint64_t>(rows);
  for_1d(color_jitter_impl::JitterMean<T>{sums, rows, count, mean}, 1, exec, "color_jitter_mean");
  for_2d(color_jitter_impl::JitterPixels<T>{mid, out, a, at, a.count, mean}, out.width, out.height, exec, "color_jitter");
}

template void color_jitter<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const JitterArgs&, Scratch&,
                                         const Exec&);
template void color_jitter<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const JitterArgs&, Scratch&,
                                          const Exec&);
template void color_jitter<float>(View<const float>, View<float>, const JitterArgs&, Scratch&, const Exec&);

}  // namespace aug::k
