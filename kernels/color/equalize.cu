#include "kernels/color/equalize.hpp"

#include <cstdint>
#include <type_traits>

#include "kernels/engines/pointwise.hpp"

namespace aug::k {

namespace equalize_impl {
namespace {

// The table type and the number of bins per channel.
template <class T>
using LutOf = std::conditional_t<std::is_same_v<T, float>, std::uint8_t, T>;
template <class T>
constexpr int kBins = std::is_same_v<T, std::uint16_t> ? 65536 : 256;

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

template <class T>
struct CountValues {
  AUG_FIELDS(CountValues, in, counts, color_channels)
  View<const T> in;
  unsigned* counts;
  int color_channels;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    for (int c = 0; c < color_channels; ++c) {
      int bin;
      if constexpr (std::is_same_v<T, float>) bin = equalize_float_bin(s[c]);
      else bin = static_cast<int>(s[c]);
      count_one(counts + static_cast<std::size_t>(c) * kBins<T> + bin);
    }
  }
};

template <class L>
struct BuildTables {
  AUG_FIELDS(BuildTables, counts, lut, bins, total)
  const unsigned* counts;
  L* lut;
  int bins;
  long long total;

  AUG_HD void operator()(std::size_t c) const {
    equalize_table<L>(counts + c * bins, lut + c * bins, bins, total);
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
  const std::size_t n = static_cast<std::size_t>(color_channels) * equalize_impl::kBins<T>;
  return n * sizeof(unsigned) + n * sizeof(equalize_impl::LutOf<T>);
}

template <class T>
void equalize(View<const T> in, View<T> out, int color_channels, Scratch& scratch, const Exec& exec) {
  using L = equalize_impl::LutOf<T>;
  const std::size_t n = static_cast<std::size_t>(color_channels) * equalize_impl::kBins<T>;
  auto* counts = static_cast<unsigned*>(scratch.scratch(equalize_scratch_bytes<T>(color_channels)));
  L* lut = reinterpret_cast<L*>(counts + n);
  for_1d(equalize_impl::ZeroCounts{counts}, n, exec, "equalize (clear)");
  for_2d(equalize_impl::CountValues<T>{in, counts, color_channels}, in.width, in.height, exec, "equalize (histogram)");
  const long long total = static_cast<long long>(in.width) * in.height;
  for_1d(equalize_impl::BuildTables<L>{counts, lut, equalize_impl::kBins<T>, total}, static_cast<std::size_t>(color_channels), exec,
         "equalize (tables)");
  if constexpr (std::is_same_v<T, float>)
    for_2d(equalize_impl::ApplyFloat{in, out, lut, color_channels}, out.width, out.height, exec, "equalize (apply)");
  else
    apply_table<T>(in, out, lut, color_channels, exec);
}

template std::size_t equalize_scratch_bytes<std::uint8_t>(int);
template std::size_t equalize_scratch_bytes<std::uint16_t>(int);
template std::size_t equalize_scratch_bytes<float>(int);
template void equalize<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, int, Scratch&, const Exec&);
template void equalize<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, int, Scratch&, const Exec&);
template void equalize<float>(View<const float>, View<float>, int, Scratch&, const Exec&);

}  // namespace aug::k
