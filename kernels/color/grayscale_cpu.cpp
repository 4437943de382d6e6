// grayscale's host driver (the CPU backend): the kernels' formula (grayscale_value) row by row, the
// channel count fixed at compile time so that the compiler vectorises the interleaved loads.
#include <cstdint>
#include <type_traits>

#include "kernels/color/grayscale.hpp"
#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace grayscale_cpu_impl {
namespace {

template <class T, int C>
AUG_CLONES void gray_row(T* __restrict d, const T* __restrict s, int width) {
  for (int x = 0; x < width; ++x) {
    const T l = grayscale_value<T>(s[x * C], s[x * C + 1], s[x * C + 2]);
    d[x * C] = l;
    d[x * C + 1] = l;
    d[x * C + 2] = l;
    if constexpr (C == 4) d[x * C + 3] = s[x * C + 3];
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// 8-bit RGB, sixteen pixels at a time: the 48 bytes split into R, G and B by byte shuffles, each
// turned into binary32 exactly, l = (r c0 + g c1) + b c2 in that order (separate multiplies and
// adds, as grayscale_luma), truncated to an integer, and each l written three times.
struct Shuffles {
  alignas(16) std::int8_t split[3][3][16];  // [channel][source vector][lane]
  alignas(16) std::int8_t spread[3][16];    // [destination vector][lane]
  Shuffles() {
    for (int c = 0; c < 3; ++c)
      for (int v = 0; v < 3; ++v)
        for (int i = 0; i < 16; ++i) {
          const int byte = 3 * i + c;  // pixel i's channel c
          split[c][v][i] = static_cast<std::int8_t>(byte / 16 == v ? byte % 16 : -1);
        }
    for (int v = 0; v < 3; ++v)
      for (int i = 0; i < 16; ++i) spread[v][i] = static_cast<std::int8_t>((16 * v + i) / 3);
  }
};

[[gnu::target("avx2")]] int gray_rgb8_avx2(std::uint8_t* d, const std::uint8_t* s, int width) {
  static const Shuffles sh;
  auto mask = [](const std::int8_t* m) { return _mm_load_si128(reinterpret_cast<const __m128i*>(m)); };
  const __m256 c0 = _mm256_set1_ps(0.2989f), c1 = _mm256_set1_ps(0.587f), c2 = _mm256_set1_ps(0.114f);
  int x = 0;
  for (; x + 16 <= width; x += 16) {
    const __m128i v[3] = {_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 3 * x)),
                          _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 3 * x + 16)),
                          _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 3 * x + 32))};
    __m128i ch[3];
    for (int c = 0; c < 3; ++c)
      ch[c] = _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(v[0], mask(sh.split[c][0])),
                                        _mm_shuffle_epi8(v[1], mask(sh.split[c][1]))),
                           _mm_shuffle_epi8(v[2], mask(sh.split[c][2])));
    __m128i half[2];
    for (int h = 0; h < 2; ++h) {
      const __m128i r8 = h ? _mm_srli_si128(ch[0], 8) : ch[0];
      const __m128i g8 = h ? _mm_srli_si128(ch[1], 8) : ch[1];
      const __m128i b8 = h ? _mm_srli_si128(ch[2], 8) : ch[2];
      const __m256 r = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(r8));
      const __m256 g = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(g8));
      const __m256 b = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b8));
      const __m256 l = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(r, c0), _mm256_mul_ps(g, c1)), _mm256_mul_ps(b, c2));
      const __m256i li = _mm256_cvttps_epi32(l);  // truncation toward zero, as the cast
      half[h] = _mm_packus_epi32(_mm256_castsi256_si128(li), _mm256_extracti128_si256(li, 1));
    }
    const __m128i l8 = _mm_packus_epi16(half[0], half[1]);
    for (int o = 0; o < 3; ++o)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 3 * x + 16 * o), _mm_shuffle_epi8(l8, mask(sh.spread[o])));
  }
  return x;
}
#endif

}  // namespace
}  // namespace grayscale_cpu_impl

template <class T>
void grayscale(View<const T> in, View<T> out) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = host_has_avx2();
#endif
  for (int y = 0; y < out.height; ++y) {
    if (in.channels == 4) {
      grayscale_cpu_impl::gray_row<T, 4>(out.row(y), in.row(y), out.width);
      continue;
    }
    int done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (std::is_same_v<T, std::uint8_t>)
      if (avx2) done = grayscale_cpu_impl::gray_rgb8_avx2(out.row(y), in.row(y), out.width);
#endif
    grayscale_cpu_impl::gray_row<T, 3>(out.row(y) + 3 * done, in.row(y) + 3 * done, out.width - done);
  }
}

template void grayscale<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>);
template void grayscale<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>);
template void grayscale<float>(View<const float>, View<float>);

}  // namespace aug::k::cpu
