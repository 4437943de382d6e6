#include "kernels/color/autocontrast.hpp"

#include <cstdint>
#include <type_traits>

#include "kernels/core/reduce.hpp"
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

// The minimum and maximum as atomics over order keys: a float's key orders as the float does
// (-0 below +0), so min and max of keys are exact and independent of the order the items run in.
// NaN samples take no part; a channel of NaN only keeps the initial keys, which decode to NaN.
constexpr std::uint32_t kNoLow = 0xFFFFFFFFu, kNoHigh = 0u;

// keys[i * 2 + {0, 1}] = (no low, no high) for each (row, channel) and each channel.
struct InitKeys {
  AUG_FIELDS(InitKeys, keys)
  std::uint32_t* keys;
  AUG_HD void operator()(std::size_t i) const {
    keys[i * 2] = kNoLow;
    keys[i * 2 + 1] = kNoHigh;
  }
};

// One run of kRowRun pixels of row y: its lowest and highest key per colour channel, into the
// row's (row_keys[(y * cc + c) * 2 + {0, 1}]).
template <class T>
struct RunRanges {
  AUG_FIELDS(RunRanges, in, row_keys, color_channels)
  View<const T> in;
  std::uint32_t* row_keys;
  int color_channels;
  AUG_HD void operator()(int run, int y) const {
    const int x0 = run * kRowRun, x1 = x0 + kRowRun < in.width ? x0 + kRowRun : in.width;
    const T* s = in.row(y);
    for (int c = 0; c < color_channels; ++c) {
      std::uint32_t lo = kNoLow, hi = kNoHigh;
      for (int x = x0; x < x1; ++x) {
        const float v = static_cast<float>(s[x * in.channels + c]);
        if (v != v) continue;
        const std::uint32_t k = order_key(v);
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
      }
      std::uint32_t* r = row_keys + (static_cast<std::size_t>(y) * color_channels + c) * 2;
      if (lo != kNoLow) atomic_min_u32(&r[0], lo);
      if (hi != kNoHigh) atomic_max_u32(&r[1], hi);
    }
  }
};

// Row i / cc, channel i % cc: its keys into the channel's (channel_keys[c * 2 + {0, 1}]).
struct RowsToChannels {
  AUG_FIELDS(RowsToChannels, row_keys, channel_keys, color_channels)
  const std::uint32_t* row_keys;
  std::uint32_t* channel_keys;
  int color_channels;
  AUG_HD void operator()(std::size_t i) const {
    const std::size_t c = i % static_cast<std::size_t>(color_channels);
    if (row_keys[i * 2] != kNoLow) atomic_min_u32(&channel_keys[c * 2], row_keys[i * 2]);
    if (row_keys[i * 2 + 1] != kNoHigh) atomic_max_u32(&channel_keys[c * 2 + 1], row_keys[i * 2 + 1]);
  }
};

// stats[i] = the float of key i (lo, hi per channel).
struct KeysToStats {
  AUG_FIELDS(KeysToStats, keys, stats)
  const std::uint32_t* keys;
  float* stats;
  AUG_HD void operator()(std::size_t i) const { stats[i] = order_value(keys[i]); }
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

// The CPU backend's ranges of an integer image: the same minima and maxima, compared as
// integers (exact as floats), every channel in one pass over each row.
template <class T>
void channel_ranges_host(View<const T> in, float* stats, int color_channels) {
  T lo[4], hi[4];
  for (int c = 0; c < color_channels; ++c) lo[c] = hi[c] = in.row(0)[c];
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    for (int x = 0; x < in.width; ++x) {
      const T* p = s + x * in.channels;
      for (int c = 0; c < color_channels; ++c) {
        lo[c] = p[c] < lo[c] ? p[c] : lo[c];
        hi[c] = p[c] > hi[c] ? p[c] : hi[c];
      }
    }
  }
  for (int c = 0; c < color_channels; ++c) {
    stats[c * 2] = static_cast<float>(lo[c]);
    stats[c * 2 + 1] = static_cast<float>(hi[c]);
  }
}

}  // namespace
}  // namespace autocontrast_impl

template <class T>
std::size_t autocontrast_scratch_bytes(int height, int color_channels) {
  const std::size_t cc = static_cast<std::size_t>(color_channels);
  return (static_cast<std::size_t>(height) + 2) * cc * 2 * sizeof(std::uint32_t) +
         cc * static_cast<std::size_t>(autocontrast_impl::kEntries<T>) * sizeof(T);
}

template <class T>
void autocontrast(View<const T> in, View<T> out, int color_channels, Scratch& scratch, const Exec& exec) {
  using namespace autocontrast_impl;
  const std::size_t cc = static_cast<std::size_t>(color_channels), rows = static_cast<std::size_t>(in.height);
  auto* row_keys = static_cast<std::uint32_t*>(scratch.scratch(autocontrast_scratch_bytes<T>(in.height, color_channels)));
  std::uint32_t* channel_keys = row_keys + rows * cc * 2;
  auto* stats = reinterpret_cast<float*>(channel_keys + cc * 2);
  if (!std::is_same_v<T, float> && exec.cpu) {
    channel_ranges_host(in, stats, color_channels);
  } else {
    for_1d(InitKeys{row_keys}, (rows + 1) * cc, exec, "autocontrast (ranges)");
    for_2d(RunRanges<T>{in, row_keys, color_channels}, (in.width + kRowRun - 1) / kRowRun, in.height, exec,
           "autocontrast (ranges)");
    for_1d(RowsToChannels{row_keys, channel_keys, color_channels}, rows * cc, exec, "autocontrast (ranges)");
    for_1d(KeysToStats{channel_keys, stats}, cc * 2, exec, "autocontrast (ranges)");
  }
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
