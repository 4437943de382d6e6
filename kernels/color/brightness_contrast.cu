#include "kernels/color/brightness_contrast.hpp"

#include "kernels/core/reduce.hpp"
#include "kernels/engines/pointwise.hpp"

namespace aug::k {

namespace brightness_contrast_impl {
namespace {

// The mean's partial sums: exact integers for 8- and 16-bit images, doubles for float.
template <class T>
using BcSum = std::conditional_t<std::is_same_v<T, float>, double, std::uint64_t>;

// One item per row: the sum of the row's colour samples, left to right.
template <class T>
struct BcRowSums {
  AUG_FIELDS(BcRowSums, img, cc, sums)
  View<const T> img;
  int cc;
  BcSum<T>* sums;

  AUG_HD void operator()(std::size_t row) const {
    const T* s = img.row(static_cast<int>(row));
    BcSum<T> acc = 0;
    if (cc == img.channels) {  // every sample, in order (one contiguous run: the host loop vectorises)
      const int n = img.width * img.channels;
      for (int i = 0; i < n; ++i) acc = acc + static_cast<BcSum<T>>(s[i]);
    } else {
      for (int x = 0; x < img.width; ++x)
        for (int c = 0; c < cc; ++c) acc = acc + static_cast<BcSum<T>>(s[x * img.channels + c]);
    }
    sums[row] = acc;
  }
};

// The sum of a pixel's colour samples (integer images: row_sums adds runs of a row in parallel).
template <class T>
struct BcPixelSum {
  AUG_FIELDS(BcPixelSum, img, cc)
  View<const T> img;
  int cc;
  AUG_HD std::uint64_t operator()(int x, int y) const {
    const T* s = img.row(y) + x * img.channels;
    std::uint64_t acc = 0;
    for (int c = 0; c < cc; ++c) acc += s[c];
    return acc;
  }
};

// One item: the mean (the rows' sums in order, / the count in double), then the coefficients.
template <class T>
struct BcCoefficients {
  AUG_FIELDS(BcCoefficients, a, sums, rows, count, out)
  BrightnessContrastArgs a;
  const BcSum<T>* sums;  // null: by max, no mean
  int rows;
  std::uint64_t count;
  BrightnessContrastCoefficients* out;

  AUG_HD void operator()(std::size_t) const {
    double mean = 0;
    if (sums) {
      BcSum<T> total = 0;
      for (int r = 0; r < rows; ++r) total = total + sums[r];
      mean = static_cast<double>(total) / static_cast<double>(count);
    }
    double max = 1;
    if constexpr (!std::is_same_v<T, float>) max = static_cast<double>(SampleTraits<T>::max);
    *out = brightness_contrast_coefficients(a, max, mean);
  }
};

// One item per table entry (channel-major, every colour channel the same table).
template <class T>
struct BcTable {
  AUG_FIELDS(BcTable, k, table)
  const BrightnessContrastCoefficients* k;
  T* table;

  AUG_HD void operator()(std::size_t i) const {
    constexpr std::size_t entries = static_cast<std::size_t>(SampleTraits<T>::max) + 1;
    table[i] = brightness_contrast_value(static_cast<T>(i % entries), *k);
  }
};

struct BcFloatValue {
  AUG_FIELDS(BcFloatValue, k)
  const BrightnessContrastCoefficients* k;
  AUG_HD float operator()(float v, int) const { return brightness_contrast_float(v, *k); }
};

}  // namespace
}  // namespace brightness_contrast_impl

template <class T>
void brightness_contrast(View<const T> in, View<T> out, const BrightnessContrastArgs& a, Scratch& scratch,
                         const Exec& exec) {
  auto* k = static_cast<BrightnessContrastCoefficients*>(scratch.scratch(sizeof(BrightnessContrastCoefficients)));
  const brightness_contrast_impl::BcSum<T>* sums = nullptr;
  const int rows = in.height;
  if (!a.by_max) {
    auto* s = static_cast<brightness_contrast_impl::BcSum<T>*>(scratch.scratch(sizeof(brightness_contrast_impl::BcSum<T>) * static_cast<std::size_t>(rows)));
    if constexpr (std::is_same_v<T, float>)  // doubles: each row left to right, as the CPU adds them
      for_1d(brightness_contrast_impl::BcRowSums<T>{in, a.color_channels, s}, static_cast<std::size_t>(rows), exec,
             "brightness_contrast_rows");
    else if (exec.cpu)
      cpu::brightness_contrast_row_sums(in, a.color_channels, s);
    else
      row_sums(brightness_contrast_impl::BcPixelSum<T>{in, a.color_channels}, in.width, rows, s, exec,
               "brightness_contrast_rows");
    sums = s;
  }
  const std::uint64_t count = static_cast<std::uint64_t>(in.width) * static_cast<std::uint64_t>(rows) *
                              static_cast<std::uint64_t>(a.color_channels);
  for_1d(brightness_contrast_impl::BcCoefficients<T>{a, sums, rows, count, k}, 1, exec, "brightness_contrast_coefficients");
  if constexpr (std::is_same_v<T, float>) {
    for_values(in, out, brightness_contrast_impl::BcFloatValue{k}, a.color_channels, exec, "brightness_contrast");
  } else {
    const std::size_t entries =
        (static_cast<std::size_t>(SampleTraits<T>::max) + 1) * static_cast<std::size_t>(a.color_channels);
    auto* table = static_cast<T*>(scratch.scratch(sizeof(T) * entries));
    for_1d(brightness_contrast_impl::BcTable<T>{k, table}, entries, exec, "brightness_contrast_table");
    apply_table<T>(in, out, table, a.color_channels, exec);
  }
}

template void brightness_contrast<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>,
                                                const BrightnessContrastArgs&, Scratch&, const Exec&);
template void brightness_contrast<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>,
                                                 const BrightnessContrastArgs&, Scratch&, const Exec&);
template void brightness_contrast<float>(View<const float>, View<float>, const BrightnessContrastArgs&, Scratch&,
                                         const Exec&);

}  // namespace aug::k
