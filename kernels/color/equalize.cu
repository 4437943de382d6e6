#include "kernels/color/equalize.hpp"

#include <cstdint>
#include <type_traits>

#include "kernels/core/reduce.hpp"
#include "kernels/engines/pointwise.hpp"

namespace aug::k {

namespace equalize_impl {
namespace {

// The table type and the number of bins per channel.
template <class T>
using LutOf = std::conditional_t<std::is_same_v<T, float>, std::uint8_t, T>;
template <class T>
constexpr int kBins = std::is_same_v<T, std::uint16_t> ? 65536 : 256;

// Histogram copies: a device spreads its atomics over kCopies copies of the 8-bit histograms
// (chosen by the pixel's warp and row), so that popular bins are not one address for the whole
// image; 16-bit images have 65536 bins and little contention, and one copy.
template <class T>
constexpr int kCopies = std::is_same_v<T, std::uint16_t> ? 1 : 64;
// The tables are built in chunks of bins: each chunk's sum, the chunks' offsets (one thread per
// channel, at most 256 chunks), then one thread per bin.
constexpr int kChunk = 256;

AUG_HD void count_one(unsigned* p) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, 1u);
#else
  *p += 1u;
#endif
}

struct ZeroCounts {
  AUG_FIELDS(ZeroCounts, counts)
  unsigned* counts;
  AUG_HD void operator()(std::size_t i) const { counts[i] = 0u; }
};

// counts[copy][c][bin] += 1 for each colour sample; `n` = channels x bins, the size of a copy.
template <class T>
struct CountValues {
  AUG_FIELDS(CountValues, in, counts, color_channels, copies, n)
  View<const T> in;
  unsigned* counts;
  int color_channels;
  int copies;
  std::size_t n;
  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    unsigned* copy = counts + static_cast<std::size_t>((x / 32 + y) % copies) * n;
    for (int c = 0; c < color_channels; ++c) {
      int bin;
      if constexpr (std::is_same_v<T, float>) bin = equalize_float_bin(s[c]);
      else bin = static_cast<int>(s[c]);
      count_one(copy + static_cast<std::size_t>(c) * kBins<T> + bin);
    }
  }
};

// counts[0][i] = the sum over the copies of counts[k][i] (each item its own column: no race).
struct MergeCopies {
  AUG_FIELDS(MergeCopies, counts, copies, n)
  unsigned* counts;
  int copies;
  std::size_t n;
  AUG_HD void operator()(std::size_t i) const {
    unsigned sum = counts[i];
    for (int k = 1; k < copies; ++k) sum += counts[static_cast<std::size_t>(k) * n + i];
    counts[i] = sum;
  }
};

// The host's tables (the CPU backend): one channel at a time, in order.
template <class L>
struct BuildTables {
  AUG_FIELDS(BuildTables, counts, lut, bins, total, cv)
  const unsigned* counts;
  L* lut;
  int bins;
  long long total;
  bool cv;
  AUG_HD void operator()(std::size_t c) const {
    if (cv) equalize_table_cv<L>(counts + c * bins, lut + c * bins, bins, total);
    else equalize_table<L>(counts + c * bins, lut + c * bins, bins, total);
  }
};

// The device's tables, the same integers as equalize_table in parallel. `last[c]` (zeroed first)
// becomes the channel's last nonempty bin; `sums[c][j]` chunk j's count, then the counts of
// the chunks before it.
// cv: bins - 1 - the first nonempty bin instead (the largest of bins - 1 - b).
struct LastBins {
  AUG_FIELDS(LastBins, counts, last, bins, cv)
  const unsigned* counts;
  std::uint32_t* last;
  int bins;
  bool cv;
  AUG_HD void operator()(std::size_t i) const {
    const auto b = static_cast<std::uint32_t>(i % bins);
    if (counts[i] != 0) atomic_max_u32(&last[i / bins], cv ? static_cast<std::uint32_t>(bins - 1) - b : b);
  }
};
struct ChunkSums {
  AUG_FIELDS(ChunkSums, counts, sums, bins)
  const unsigned* counts;
  unsigned long long* sums;
  int bins;
  AUG_HD void operator()(std::size_t i) const {  // i = c * chunks + j
    const std::size_t chunks = static_cast<std::size_t>(bins) / kChunk, c = i / chunks, j = i % chunks;
    const unsigned* p = counts + c * bins + j * kChunk;
    unsigned long long sum = 0;
    for (int b = 0; b < kChunk; ++b) sum += p[b];
    sums[i] = sum;
  }
};
struct ChunkOffsets {
  AUG_FIELDS(ChunkOffsets, sums, chunks)
  unsigned long long* sums;
  int chunks;
  AUG_HD void operator()(std::size_t c) const {
    unsigned long long before = 0;
    for (int j = 0; j < chunks; ++j) {
      const unsigned long long own = sums[c * chunks + j];
      sums[c * chunks + j] = before;
      before += own;
    }
  }
};
template <class L>
struct TableEntries {
  AUG_FIELDS(TableEntries, counts, offsets, last, lut, bins, total, cv)
  const unsigned* counts;
  const unsigned long long* offsets;
  const std::uint32_t* last;
  L* lut;
  int bins;
  long long total;
  bool cv;
  // The counts of channel c's bins [0, b].
  AUG_HD long long through(std::size_t c, const unsigned* own, int b) const {
    const int j = b / kChunk;
    long long cum = static_cast<long long>(offsets[c * (bins / kChunk) + j]);
    for (int k = j * kChunk; k <= b; ++k) cum += own[k];
    return cum;
  }
  AUG_HD void operator()(std::size_t i) const {
    const std::size_t c = i / bins;
    const int b = static_cast<int>(i % bins);
    const unsigned* own = counts + c * bins;
    if (cv) {  // equalize_table_cv's entry b
      const int first = bins - 1 - static_cast<int>(last[c]);
      const long long rest = total - static_cast<long long>(own[first]);
      if (rest == 0 || b <= first) {
        lut[i] = static_cast<L>(rest == 0 ? first : 0);
        return;
      }
      lut[i] = static_cast<L>(equalize_cv_value(through(c, own, b) - through(c, own, first), rest, bins - 1));
      return;
    }
    const long long max = bins - 1;
    const long long step = (total - static_cast<long long>(own[last[c]])) / max;
    if (step == 0 || b == 0) {
      lut[i] = static_cast<L>(step == 0 ? b : 0);
      return;
    }
    // cum = the counts of bins [0, b - 1]: the chunks before b - 1's, then its own up to it.
    const int j = (b - 1) / kChunk;
    long long cum = static_cast<long long>(offsets[c * (bins / kChunk) + j]);
    for (int k = j * kChunk; k <= b - 1; ++k) cum += own[k];
    const long long v = (cum + step / 2) / step;
    lut[i] = static_cast<L>(v > max ? max : v);
  }
};

struct ApplyFloat {
  AUG_FIELDS(ApplyFloat, in, out, lut, color_channels)
  View<const float> in;
  View<float> out;
  const std::uint8_t* lut;
  int color_channels;

  AUG_HD void operator()(int x, int y) const {
    const float* s = in.row(y) + x * in.channels;
    float* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) {
      if (c < color_channels)
        d[c] = static_cast<float>(lut[c * 256 + equalize_float_bin(s[c])]) * static_cast<float>(1.0 / 255.0);
      else
        d[c] = s[c];
    }
  }
};

}  // namespace
}  // namespace equalize_impl

template <class T>
std::size_t equalize_scratch_bytes(int color_channels) {
  using namespace equalize_impl;
  const std::size_t cc = static_cast<std::size_t>(color_channels), n = cc * kBins<T>;
  return n * kCopies<T> * sizeof(unsigned) + cc * (kBins<T> / kChunk) * sizeof(unsigned long long) +
         cc * sizeof(std::uint32_t) + n * sizeof(LutOf<T>);
}

template <class T>
void equalize(View<const T> in, View<T> out, int color_channels, Scratch& scratch, const Exec& exec, bool cv) {
  using namespace equalize_impl;
  using L = LutOf<T>;
  const std::size_t cc = static_cast<std::size_t>(color_channels), n = cc * kBins<T>;
  const std::size_t chunks = static_cast<std::size_t>(kBins<T> / kChunk);
  auto* counts = static_cast<unsigned*>(scratch.scratch(equalize_scratch_bytes<T>(color_channels)));
  auto* sums = reinterpret_cast<unsigned long long*>(counts + n * kCopies<T>);
  auto* last = reinterpret_cast<std::uint32_t*>(sums + cc * chunks);
  L* lut = reinterpret_cast<L*>(last + cc);
  const int copies = exec.cpu ? 1 : kCopies<T>;  // the host's loops do not contend
  const long long total = static_cast<long long>(in.width) * in.height;
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    if (exec.cpu) {
      cpu::equalize_counts(in, counts, color_channels);
    } else {
      for_1d(ZeroCounts{counts}, n * static_cast<std::size_t>(copies), exec, "equalize (clear)");
      for_2d(CountValues<T>{in, counts, color_channels, copies, n}, in.width, in.height, exec, "equalize (histogram)");
    }
  } else {
    for_1d(ZeroCounts{counts}, n * static_cast<std::size_t>(copies), exec, "equalize (clear)");
    for_2d(CountValues<T>{in, counts, color_channels, copies, n}, in.width, in.height, exec, "equalize (histogram)");
  }
  if (copies > 1) for_1d(MergeCopies{counts, copies, n}, n, exec, "equalize (histogram)");
  if (exec.cpu) {
    for_1d(BuildTables<L>{counts, lut, kBins<T>, total, cv}, cc, exec, "equalize (tables)");
  } else {
    for_1d(ZeroCounts{last}, cc, exec, "equalize (tables)");
    for_1d(LastBins{counts, last, kBins<T>, cv}, n, exec, "equalize (tables)");
    for_1d(ChunkSums{counts, sums, kBins<T>}, cc * chunks, exec, "equalize (tables)");
    for_1d(ChunkOffsets{sums, static_cast<int>(chunks)}, cc, exec, "equalize (tables)");
    for_1d(TableEntries<L>{counts, sums, last, lut, kBins<T>, total, cv}, n, exec, "equalize (tables)");
  }
  if constexpr (std::is_same_v<T, float>)
    for_2d(equalize_impl::ApplyFloat{in, out, lut, color_channels}, out.width, out.height, exec, "equalize (apply)");
  else
    apply_table<T>(in, out, lut, color_channels, exec);
}

template std::size_t equalize_scratch_bytes<std::uint8_t>(int);
template std::size_t equalize_scratch_bytes<std::uint16_t>(int);
template std::size_t equalize_scratch_bytes<float>(int);
template void equalize<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, int, Scratch&, const Exec&, bool);
template void equalize<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, int, Scratch&, const Exec&, bool);
template void equalize<float>(View<const float>, View<float>, int, Scratch&, const Exec&, bool);

}  // namespace aug::k
