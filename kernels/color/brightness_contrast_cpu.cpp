// brightness_contrast's host driver for the mean (the CPU backend): each row's sum of its colour
// samples, exact integers, so any order gives the kernels' sums. 8-bit rows are summed 64 bytes at a
// time by AVX-512 BW's sums of absolute differences from zero (alpha bytes masked out), else by a
// loop the compiler vectorises.
#include <cstdint>
#include <type_traits>

#include "kernels/color/brightness_contrast.hpp"
#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace brightness_contrast_cpu_impl {
namespace {

template <class T>
AUG_CLONES std::uint64_t sum_run(const T* s, int n) {
  std::uint64_t acc = 0;
  for (int i = 0; i < n; ++i) acc += s[i];
  return acc;
}

template <class T>
std::uint64_t sum_colour(const T* s, int width, int C, int cc) {
  if (cc == C) return sum_run(s, width * C);
  std::uint64_t acc = 0;
  for (int x = 0; x < width; ++x)
    for (int c = 0; c < cc; ++c) acc += s[x * C + c];
  return acc;
}

#if defined(AUG_AVX2_PHILOX)
AUG_AVX512_WARNINGS_OFF
// The colour bytes of an 8-bit row: `keep` marks them within each 64 bytes (C divides 64 for 1, 2
// and 4 channels; with 3 every byte is colour).
[[gnu::target("avx512f,avx512bw")]] std::uint64_t sum_colour_u8(const std::uint8_t* s, int n, std::uint64_t keep) {
  __m512i acc = _mm512_setzero_si512();
  int i = 0;
  for (; i + 64 <= n; i += 64)
    acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_maskz_mov_epi8(keep, _mm512_loadu_si512(s + i)),
                                                _mm512_setzero_si512()));
  std::uint64_t total = static_cast<std::uint64_t>(_mm512_reduce_add_epi64(acc));
  for (; i < n; ++i) total += (keep >> (i % 64) & 1) ? s[i] : 0;
  return total;
}
AUG_AVX512_WARNINGS_ON
#endif

}  // namespace
}  // namespace brightness_contrast_cpu_impl

template <class T>
void brightness_contrast_row_sums(View<const T> in, int cc, std::uint64_t* sums) {
  const int C = in.channels;
#if defined(AUG_AVX2_PHILOX)
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    static const bool bw = host_has_avx512_bw();
    if (bw && (cc == C || C == 2 || C == 4)) {
      std::uint64_t keep = ~0ull;
      if (cc != C) {
        keep = 0;
        for (int b = 0; b < 64; ++b)
          if (b % C < cc) keep |= 1ull << b;
      }
      for (int y = 0; y < in.height; ++y)
        sums[y] = brightness_contrast_cpu_impl::sum_colour_u8(in.row(y), in.width * C, keep);
      return;
    }
  }
#endif
  for (int y = 0; y < in.height; ++y) sums[y] = brightness_contrast_cpu_impl::sum_colour(in.row(y), in.width, C, cc);
}

template void brightness_contrast_row_sums<std::uint8_t>(View<const std::uint8_t>, int, std::uint64_t*);
template void brightness_contrast_row_sums<std::uint16_t>(View<const std::uint16_t>, int, std::uint64_t*);

}  // namespace aug::k::cpu
