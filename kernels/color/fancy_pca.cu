#include "kernels/color/fancy_pca.hpp"

#include <cstdint>
#include <type_traits>

namespace aug::k {

namespace fancy_pca_impl {
namespace {

template <class T>
using SumOf = std::conditional_t<std::is_same_v<T, float>, double, long long>;

template <class T>
struct PcaRows {
  AUG_FIELDS(PcaRows, in, rows, color_channels)
  View<const T> in;
  PcaSums<SumOf<T>>* rows;
  int color_channels;
  AUG_HD void operator()(std::size_t y) const {
    rows[y] = pca_row_sums<SumOf<T>>(in.row(static_cast<int>(y)), in.width, in.channels, color_channels);
  }
};

// Chunk c: rows [c kPcaChunk, (c + 1) kPcaChunk) totalled in order.
template <class T>
struct PcaChunks {
  AUG_FIELDS(PcaChunks, rows, chunks, height)
  const PcaSums<SumOf<T>>* rows;
  PcaSums<SumOf<T>>* chunks;
  int height;
  AUG_HD void operator()(std::size_t c) const {
    PcaSums<SumOf<T>> t{};
    const int y0 = static_cast<int>(c) * kPcaChunk, y1 = y0 + kPcaChunk < height ? y0 + kPcaChunk : height;
    for (int y = y0; y < y1; ++y) pca_add(t, rows[y]);
    chunks[c] = t;
  }
};

template <class T>
struct PcaReduce {
  AUG_FIELDS(PcaReduce, chunks, map, count, height, width, color_channels, alpha)
  const PcaSums<SumOf<T>>* chunks;
  PcaMap* map;
  int count, height, width, color_channels;
  PcaAlpha alpha;
  AUG_HD void operator()(std::size_t) const {
    PcaSums<SumOf<T>> t{};
    for (int c = 0; c < count; ++c) pca_add(t, chunks[c]);
    double max = 1.0;
    if constexpr (!std::is_same_v<T, float>) max = static_cast<double>(SampleTraits<T>::max);
    *map = pca_map(t, static_cast<double>(width) * height, max, color_channels, alpha.a);
  }
};

template <class T>
struct PcaApply {
  AUG_FIELDS(PcaApply, in, out, map, color_channels)
  View<const T> in;
  View<T> out;
  const PcaMap* map;
  int color_channels;
  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    pca_pixel(s, d, *map, color_channels);
    for (int c = color_channels; c < out.channels; ++c) d[c] = s[c];
  }
};

}  // namespace
}  // namespace fancy_pca_impl

template <class T>
void fancy_pca(View<const T> in, View<T> out, const PcaAlpha& alpha, int color_channels, Scratch& scratch,
               const Exec& exec) {
  if (exec.cpu) return cpu::fancy_pca(in, out, alpha, color_channels);
  using Sums = PcaSums<fancy_pca_impl::SumOf<T>>;
  const int chunks = (in.height + kPcaChunk - 1) / kPcaChunk;
  const std::size_t rows_bytes = (static_cast<std::size_t>(in.height) * sizeof(Sums) + 255) / 256 * 256;
  const std::size_t chunks_bytes = (static_cast<std::size_t>(chunks) * sizeof(Sums) + 255) / 256 * 256;
  auto* base = static_cast<unsigned char*>(scratch.scratch(rows_bytes + chunks_bytes + sizeof(PcaMap)));
  auto* rows = reinterpret_cast<Sums*>(base);
  auto* chunk_sums = reinterpret_cast<Sums*>(base + rows_bytes);
  auto* map = reinterpret_cast<PcaMap*>(base + rows_bytes + chunks_bytes);
  for_1d(fancy_pca_impl::PcaRows<T>{in, rows, color_channels}, static_cast<std::size_t>(in.height), exec, "fancy_pca (sums)");
  for_1d(fancy_pca_impl::PcaChunks<T>{rows, chunk_sums, in.height}, static_cast<std::size_t>(chunks), exec,
         "fancy_pca (chunk sums)");
  for_1d(fancy_pca_impl::PcaReduce<T>{chunk_sums, map, chunks, in.height, in.width, color_channels, alpha}, 1, exec,
         "fancy_pca (map)");
  for_2d(fancy_pca_impl::PcaApply<T>{in, out, map, color_channels}, out.width, out.height, exec, "fancy_pca");
}

template void fancy_pca<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const PcaAlpha&, int, Scratch&,
                                      const Exec&);
template void fancy_pca<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const PcaAlpha&, int,
                                       Scratch&, const Exec&);
template void fancy_pca<float>(View<const float>, View<float>, const PcaAlpha&, int, Scratch&, const Exec&);

}  // namespace aug::k
