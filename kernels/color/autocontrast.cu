#include "kernels/color/autocontrast.hpp"

#include <cstdint>
#include <type_traits>

#include "kernels/engines/pointwise.hpp"

namespace aug::k {

namespace autocontrast_impl {
namespace {

// The bound of the type (its max; 1 for float images), as torchvision's _max_value.
template <class T>
constexpr std::int64_t bound_of() {
  if constexpr (std::is_same_v<T, float>) return 1;
  else return SampleTraits<T>::max;
}
template <class T>
constexpr float kBound = static_cast<float>(bound_of<T>());
template <class T>
constexpr float kInvBound = static_cast<float>(1.0 / static_cast<double>(bound_of<T>()));  // (float)(1.0 / bound)
template <class T>
constexpr std::int64_t kEntries = std::is_same_v<T, float> ? 0 : bound_of<T>() + 1;

// lo = the smaller of lo and v, skipping NaN (a NaN lo takes v).
AUG_HD float lower(float lo, float v) { return (v < lo || lo != lo) ? v : lo; }
AUG_HD float higher(float hi, float v) { return (v > hi || hi != hi) ? v : hi; }

// ranges[(y * cc + c) * 2 + {0, 1}]: the minimum and maximum of row y, channel c.
template <class T>
struct RowRanges {
  AUG_FIELDS(RowRanges, in, ranges, color_channels)
  View<const T> in;
  float* ranges;
  int color_channels;

  AUG_HD void operator()(std::size_t y) const {
    const T* s = in.row(static_cast<int>(y));
    for (int c = 0; c < color_channels; ++c) {
      float lo = static_cast<float>(s[c]), hi = lo;
      for (int x = 1; x < in.width; ++x) {
        const float v = static_cast<float>(s[x * in.channels + c]);
        lo = lower(lo, v);
        hi = higher(hi, v);
      }
      float* r = ranges + (y * color_channels + c) * 2;
      r[0] = lo;
      r[1] = hi;
    }
  }
};

// stats[c * 2 + {0, 1}]: the channel's minimum and maximum over the rows.
struct ChannelRanges {
  AUG_FIELDS(ChannelRanges, ranges, stats, rows, color_channels)
  const float* ranges;
  float* stats;
  int rows;
  int color_channels;

  AUG_HD void operator()(std::size_t c) const {
    float lo = ranges[c * 2], hi = ranges[c * 2 + 1];
    for (int y = 1; y < rows; ++y) {
      const float* r = ranges + (static_cast<std::size_t>(y) * color_channels + c) * 2;
      lo = lower(lo, r[0]);
      hi = higher(hi, r[1]);
    }
    stats[c * 2] = lo;
    stats[c * 2 + 1] = hi;
  }
};

// table[c * entries + v] for every value v of an integer type.
template <class T>
struct BuildTable {
  AUG_FIELDS(BuildTable, stats, table)
  const float* stats;
  T* table;

  AUG_HD void operator()(std::size_t i) const {
    const std::size_t c = i / kEntries<T>;
    const float v = static_cast<float>(i % kEntries<T>);
    const float r = autocontrast_value(v, stats[c * 2], stats[c * 2 + 1], kBound<T>, kInvBound<T>);
    table[i] = static_cast<T>(r);
  }
};

struct ApplyFloat {
  AUG_FIELDS(ApplyFloat, in, out, stats, color_channels)
  View<const float> in;
  View<float> out;
  const float* stats;
  int color_channels;

  AUG_HD void operator()(int x, int y) const {
    const float* s = in.row(y) + x * in.channels;
    float* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c)
      d[c] = c < color_channels ? autocontrast_value(s[c], stats[c * 2], stats[c * 2 + 1], 1.f, 1.f) : s[c];
  }
};

// The CPU backend's row ranges of an integer image: the same minima and maxima as RowRanges,
// compared as integers (exact as floats), every channel in one pass over the row.
template <class T>
void row_ranges_host(View<const T> in, float* ranges, int color_channels) {
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    T lo[4], hi[4];
    for (int c = 0; c < color_channels; ++c) lo[c] = hi[c] = s[c];
    for (int x = 1; x < in.width; ++x) {
      const T* p = s + x * in.channels;
      for (int c = 0; c < color_channels; ++c) {
        lo[c] = p[c] < lo[c] ? p[c] : lo[c];
        hi[c] = p[c] > hi[c] ? p[c] : hi[c];
      }
    }
    for (int c = 0; c < color_channels; ++c) {
      float* r = ranges + (static_cast<std::size_t>(y) * color_channels + c) * 2;
      r[0] = static_cast<float>(lo[c]);
      r[1] = static_cast<float>(hi[c]);
    }
  }
}

}  // namespace
}  // namespace autocontrast_impl

template <class T>
std::size_t autocontrast_scratch_bytes(int height, int color_channels) {
  const std::size_t cc = static_cast<std::size_t>(color_channels);
  return (static_cast<std::size_t>(height) + 1) * cc * 2 * sizeof(float) +
         cc * static_cast<std::size_t>(autocontrast_impl::kEntries<T>) * sizeof(T);
}

template <class T>
void autocontrast(View<const T> in, View<T> out, int color_channels, Scratch& scratch, const Exec& exec) {
  const std::size_t cc = static_cast<std::size_t>(color_channels);
  auto* ranges = static_cast<float*>(scratch.scratch(autocontrast_scratch_bytes<T>(in.height, color_channels)));
  float* stats = ranges + static_cast<std::size_t>(in.height) * cc * 2;
  if constexpr (!std::is_same_v<T, float>) {
    if (exec.cpu) autocontrast_impl::row_ranges_host(in, ranges, color_channels);
  }
  if (std::is_same_v<T, float> || !exec.cpu)
    for_1d(autocontrast_impl::RowRanges<T>{in, ranges, color_channels}, static_cast<std::size_t>(in.height), exec,
           "autocontrast (row ranges)");
  for_1d(autocontrast_impl::ChannelRanges{ranges, stats, in.height, color_channels}, cc, exec, "autocontrast (channel ranges)");
  if constexpr (std::is_same_v<T, float>) {
    for_2d(autocontrast_impl::ApplyFloat{in, out, stats, color_channels}, out.width, out.height, exec, "autocontrast (apply)");
  } else {
    T* table = reinterpret_cast<T*>(stats + cc * 2);
    for_1d(autocontrast_impl::BuildTable<T>{stats, table}, cc * static_cast<std::size_t>(autocontrast_impl::kEntries<T>), exec, "autocontrast (table)");
    apply_table<T>(in, out, table, color_channels, exec);
  }
}

template std::size_t autocontrast_scratch_bytes<std::uint8_t>(int, int);
template std::size_t autocontrast_scratch_bytes<std::uint16_t>(int, int);
template std::size_t autocontrast_scratch_bytes<float>(int, int);
template void autocontrast<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, int, Scratch&, const Exec&);
template void autocontrast<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, int, Scratch&,
                                          const Exec&);
template void autocontrast<float>(View<const float>, View<float>, int, Scratch&, const Exec&);

}  // namespace aug::k
