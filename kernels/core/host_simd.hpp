// What the vectorised host drivers (kernels/*/*_cpu.cpp) share: AVX2 clones of hot row loops,
// eight-lane binary32 vectors and the weighted sums of the float filters. Host code only.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AUG_AVX2_PHILOX 1
#endif

#include "kernels/core/common.hpp"
#include "kernels/core/philox.hpp"

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32 (a self-initialised variable), which
// -Wuninitialized and -Wmaybe-uninitialized report in every function that inlines them: code that
// uses them sits between AUG_AVX512_WARNINGS_OFF and AUG_AVX512_WARNINGS_ON.
#if !defined(__clang__)
#define AUG_AVX512_WARNINGS_OFF                                     \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wuninitialized\"") \
      _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define AUG_AVX512_WARNINGS_ON _Pragma("GCC diagnostic pop")
#else
#define AUG_AVX512_WARNINGS_OFF
#define AUG_AVX512_WARNINGS_ON
#endif

// Hot loops get an AVX2 clone next to the baseline one; the loader picks per machine. Not under
// GCC's ThreadSanitizer: the clones' resolver is instrumented and runs while the dynamic loader
// relocates the program, before the TSan runtime exists, and crashes it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define AUG_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define AUG_CLONES
#endif

namespace aug::k::cpu {
// Each driver's translation unit gets its own copies (internal linkage), so the clones never clash.
namespace {

// Eight binary32 lanes (GCC/Clang vector extension): lane-wise IEEE operations, never contracted.
using f8 = float __attribute__((vector_size(32)));

[[maybe_unused]] void load8(f8& v, const float* p) { std::memcpy(&v, p, sizeof v); }

// out[i] = sum_k w[k] * src(k)[i] in binary32, terms added in k order from 0: per lane, as the
// kernels' loops. Four vectors at a time keep four independent sums in flight.
template <class Src>
[[gnu::always_inline]] inline void weighted_sum(float* out, Src src, int n, const float* w, int taps) {
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    f8 a0 = {}, a1 = {}, a2 = {}, a3 = {};
    for (int k = 0; k < taps; ++k) {
      const float* p = src(k) + i;
      f8 v0, v1, v2, v3;
      load8(v0, p);
      load8(v1, p + 8);
      load8(v2, p + 16);
      load8(v3, p + 24);
      a0 = a0 + w[k] * v0;
      a1 = a1 + w[k] * v1;
      a2 = a2 + w[k] * v2;
      a3 = a3 + w[k] * v3;
    }
    std::memcpy(out + i, &a0, sizeof a0);
    std::memcpy(out + i + 8, &a1, sizeof a1);
    std::memcpy(out + i + 16, &a2, sizeof a2);
    std::memcpy(out + i + 24, &a3, sizeof a3);
  }
  for (; i < n; ++i) {
    float acc = 0.f;
    for (int k = 0; k < taps; ++k) acc = acc + w[k] * src(k)[i];
    out[i] = acc;
  }
}
// A convolution along a row: src(k) = m + k * step.
[[maybe_unused]] AUG_CLONES void conv_row(float* out, const float* m, int n, const float* w, int taps, int step) {
  weighted_sum(out, [&](int k) { return m + k * step; }, n, w, taps);
}
// A weighted sum of rows.
[[maybe_unused]] AUG_CLONES void sum_rows(float* out, const float* const* rows, int n, const float* w, int taps) {
  weighted_sum(out, [&](int k) { return rows[k]; }, n, w, taps);
}

// Words 0 .. 2 of Philox blocks (first + i, purpose) of `stream` for i in [0, n), and word 3 when w3
// is given: w[k][i] is word k of KeyedStream::block(first + i, purpose). The same rounds as
// philox4x32_10, across blocks so that they vectorise; with AVX2 or AVX-512, explicit 32 x 32 ->
// 64-bit products (below).
[[maybe_unused]] AUG_CLONES void philox_blocks_portable(const KeyedStream& stream, std::uint32_t first,
                                                        std::uint32_t purpose, int n, std::uint32_t* __restrict w0,
                                                        std::uint32_t* __restrict w1,
                                                        std::uint32_t* __restrict w2,
                                                        std::uint32_t* __restrict w3 = nullptr) {
  std::uint32_t k0[10], k1[10];
  for (int r = 0; r < 10; ++r) {
    k0[r] = stream.key0 + static_cast<std::uint32_t>(r) * kPhiloxW0;
    k1[r] = stream.key1 + static_cast<std::uint32_t>(r) * kPhiloxW1;
  }
  for (int i = 0; i < n; ++i) {
    std::uint32_t c0 = first + static_cast<std::uint32_t>(i), c1 = purpose, c2 = stream.stage, c3 = stream.copy;
    for (int r = 0; r < 10; ++r) {
      const std::uint64_t p0 = static_cast<std::uint64_t>(kPhiloxM0) * c0;
      const std::uint64_t p1 = static_cast<std::uint64_t>(kPhiloxM1) * c2;
      const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1 ^ k0[r];
      const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3 ^ k1[r];
      c1 = static_cast<std::uint32_t>(p1);
      c3 = static_cast<std::uint32_t>(p0);
      c0 = n0;
      c2 = n2;
    }
    w0[i] = c0;
    w1[i] = c1;
    w2[i] = c2;
    if (w3 != nullptr) w3[i] = c3;
  }
}

#if defined(AUG_AVX2_PHILOX)
// The vector drivers below keep the even and the odd blocks of a group apart, each 32-bit word in
// the low half of a 64-bit lane: _mm*_mul_epu32 then gives a whole product per lane (lo in the
// low half, hi by a shift), and ignores the high half of its operands, which may hold anything.
// Round 0 of words 0 and 1 is the same for every block (counter words 1 and 2 are the purpose and
// the stage), so it is computed once. Several groups are in flight to hide the products' latency.
struct PhiloxState8 {
  __m256i c0, c1, c2, c3;
};
struct PhiloxState16 {
  __m512i c0, c1, c2, c3;
};

[[gnu::target("avx2"), gnu::always_inline]] inline void philox_round_avx2(PhiloxState8& s, __m256i m0,
                                                                           __m256i m1, __m256i k0, __m256i k1) {
  const __m256i p0 = _mm256_mul_epu32(s.c0, m0), p1 = _mm256_mul_epu32(s.c2, m1);
  const __m256i x0 = _mm256_xor_si256(s.c1, k0), x2 = _mm256_xor_si256(s.c3, k1);
  s.c0 = _mm256_xor_si256(_mm256_srli_epi64(p1, 32), x0);
  s.c2 = _mm256_xor_si256(_mm256_srli_epi64(p0, 32), x2);
  s.c1 = p1;
  s.c3 = p0;
}

// Sixteen blocks at a time: groups g = 0 .. 3 hold the blocks i + 8 (g / 2) + 2 j + g % 2, j < 4.
[[maybe_unused, gnu::target("avx2")]] void philox_blocks_avx2(const KeyedStream& stream, std::uint32_t first,
                                                              std::uint32_t purpose, int n, std::uint32_t* w0,
                                                              std::uint32_t* w1, std::uint32_t* w2,
                                                              std::uint32_t* w3 = nullptr) {
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(kPhiloxM0)), m1 = _mm256_set1_epi32(static_cast<int>(kPhiloxM1));
  __m256i k0[10], k1[10];
  for (int r = 0; r < 10; ++r) {
    k0[r] = _mm256_set1_epi32(static_cast<int>(stream.key0 + static_cast<std::uint32_t>(r) * kPhiloxW0));
    k1[r] = _mm256_set1_epi32(static_cast<int>(stream.key1 + static_cast<std::uint32_t>(r) * kPhiloxW1));
  }
  const std::uint64_t q1 = static_cast<std::uint64_t>(kPhiloxM1) * stream.stage;
  const __m256i r0c0 = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(q1 >> 32) ^ purpose ^ stream.key0));
  const __m256i r0c1 = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(q1)));
  const __m256i x3 = _mm256_set1_epi32(static_cast<int>(stream.copy ^ stream.key1));
  const __m256i even = _mm256_setr_epi32(0, 0, 2, 0, 4, 0, 6, 0);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    PhiloxState8 s[4];
    const __m256i base = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(first + static_cast<std::uint32_t>(i))), even);
    for (int g = 0; g < 4; ++g) {
      const __m256i p0 = _mm256_mul_epu32(_mm256_add_epi32(base, _mm256_set1_epi32(8 * (g / 2) + g % 2)), m0);
      s[g] = {r0c0, r0c1, _mm256_xor_si256(_mm256_srli_epi64(p0, 32), x3), p0};
    }
    for (int r = 1; r < 10; ++r)
      for (int g = 0; g < 4; ++g) philox_round_avx2(s[g], m0, m1, k0[r], k1[r]);
    for (int h = 0; h < 2; ++h) {  // even lanes from group 2 h, odd lanes from group 2 h + 1
      const PhiloxState8 &e = s[2 * h], &o = s[2 * h + 1];
      const int at = i + 8 * h;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(w0 + at), _mm256_blend_epi32(e.c0, _mm256_slli_epi64(o.c0, 32), 0xAA));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(w1 + at), _mm256_blend_epi32(e.c1, _mm256_slli_epi64(o.c1, 32), 0xAA));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(w2 + at), _mm256_blend_epi32(e.c2, _mm256_slli_epi64(o.c2, 32), 0xAA));
      if (w3 != nullptr)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(w3 + at), _mm256_blend_epi32(e.c3, _mm256_slli_epi64(o.c3, 32), 0xAA));
    }
  }
  for (; i < n; ++i) {
    const Philox4x32 b = stream.block(first + static_cast<std::uint32_t>(i), purpose);
    w0[i] = b.v[0];
    w1[i] = b.v[1];
    w2[i] = b.v[2];
    if (w3 != nullptr) w3[i] = b.v[3];
  }
}

AUG_AVX512_WARNINGS_OFF
// The same with AVX-512: sixteen lanes, and the round's two exclusive ors in one ternary logic
// instruction (0x96: a ^ b ^ c). Thirty-two blocks at a time.
[[gnu::target("avx512f"), gnu::always_inline]] inline void philox_round_avx512(PhiloxState16& s, __m512i m0,
                                                                                __m512i m1, __m512i k0, __m512i k1) {
  const __m512i p0 = _mm512_mul_epu32(s.c0, m0), p1 = _mm512_mul_epu32(s.c2, m1);
  s.c0 = _mm512_ternarylogic_epi32(_mm512_srli_epi64(p1, 32), s.c1, k0, 0x96);
  s.c2 = _mm512_ternarylogic_epi32(_mm512_srli_epi64(p0, 32), s.c3, k1, 0x96);
  s.c1 = p1;
  s.c3 = p0;
}

[[maybe_unused, gnu::target("avx512f")]] void philox_blocks_avx512(const KeyedStream& stream, std::uint32_t first,
                                                                   std::uint32_t purpose, int n, std::uint32_t* w0,
                                                                   std::uint32_t* w1, std::uint32_t* w2,
                                                              std::uint32_t* w3 = nullptr) {
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(kPhiloxM0)), m1 = _mm512_set1_epi32(static_cast<int>(kPhiloxM1));
  __m512i k0[10], k1[10];
  for (int r = 0; r < 10; ++r) {
    k0[r] = _mm512_set1_epi32(static_cast<int>(stream.key0 + static_cast<std::uint32_t>(r) * kPhiloxW0));
    k1[r] = _mm512_set1_epi32(static_cast<int>(stream.key1 + static_cast<std::uint32_t>(r) * kPhiloxW1));
  }
  const std::uint64_t q1 = static_cast<std::uint64_t>(kPhiloxM1) * stream.stage;
  const __m512i r0c0 = _mm512_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(q1 >> 32) ^ purpose ^ stream.key0));
  const __m512i r0c1 = _mm512_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(q1)));
  const __m512i x3 = _mm512_set1_epi32(static_cast<int>(stream.copy ^ stream.key1));
  const __m512i even = _mm512_setr_epi32(0, 0, 2, 0, 4, 0, 6, 0, 8, 0, 10, 0, 12, 0, 14, 0);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    PhiloxState16 s[4];
    const __m512i base = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(first + static_cast<std::uint32_t>(i))), even);
    for (int g = 0; g < 4; ++g) {
      const __m512i p0 = _mm512_mul_epu32(_mm512_add_epi32(base, _mm512_set1_epi32(16 * (g / 2) + g % 2)), m0);
      s[g] = {r0c0, r0c1, _mm512_xor_si512(_mm512_srli_epi64(p0, 32), x3), p0};
    }
    for (int r = 1; r < 10; ++r)
      for (int g = 0; g < 4; ++g) philox_round_avx512(s[g], m0, m1, k0[r], k1[r]);
    for (int h = 0; h < 2; ++h) {
      const PhiloxState16 &e = s[2 * h], &o = s[2 * h + 1];
      const int at = i + 16 * h;
      _mm512_storeu_si512(w0 + at, _mm512_mask_blend_epi32(0xAAAA, e.c0, _mm512_slli_epi64(o.c0, 32)));
      _mm512_storeu_si512(w1 + at, _mm512_mask_blend_epi32(0xAAAA, e.c1, _mm512_slli_epi64(o.c1, 32)));
      _mm512_storeu_si512(w2 + at, _mm512_mask_blend_epi32(0xAAAA, e.c2, _mm512_slli_epi64(o.c2, 32)));
      if (w3 != nullptr) _mm512_storeu_si512(w3 + at, _mm512_mask_blend_epi32(0xAAAA, e.c3, _mm512_slli_epi64(o.c3, 32)));
    }
  }
  if (i < n)
    philox_blocks_avx2(stream, first + static_cast<std::uint32_t>(i), purpose, n - i, w0 + i, w1 + i, w2 + i,
                       w3 != nullptr ? w3 + i : nullptr);
}
AUG_AVX512_WARNINGS_ON

// Three vectors of eight 32-bit lanes a, b, c interleaved to a0 b0 c0 a1 b1 c1 ... (24 values at
// `out`): one permutation of each puts every value at its place within one of the three outputs
// (their positions differ), then blends pick them.
[[maybe_unused, gnu::target("avx2"), gnu::always_inline]] inline void interleave3_avx2(__m256 a, __m256 b, __m256 c,
                                                                                        void* out) {
  a = _mm256_permutevar8x32_ps(a, _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5));
  b = _mm256_permutevar8x32_ps(b, _mm256_setr_epi32(5, 0, 3, 6, 1, 4, 7, 2));
  c = _mm256_permutevar8x32_ps(c, _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7));
  float* o = static_cast<float*>(out);
  // a at positions {0, 3, 6}, {1, 4, 7}, {2, 5} of the outputs 0, 1, 2; b and c one place on.
  _mm256_storeu_ps(o, _mm256_blend_ps(_mm256_blend_ps(a, b, 0x92), c, 0x24));
  _mm256_storeu_ps(o + 8, _mm256_blend_ps(_mm256_blend_ps(a, b, 0x24), c, 0x49));
  _mm256_storeu_ps(o + 16, _mm256_blend_ps(_mm256_blend_ps(a, b, 0x49), c, 0x92));
}

// Sixteen 8-bit RGB pixels (48 bytes) in an AVX-512 register, as 32-bit lanes per channel and back,
// with byte permutes (AVX-512 VBMI): channel c of pixel i is byte 3 i + c; rgb8_channel16 puts it in
// the low byte of lane i, rgb8_join16 takes it from byte c of lane i of r | g << 8 | b << 16.
struct Rgb8Permutes {
  std::uint8_t split[3][64];
  std::uint8_t join[64];
};
constexpr Rgb8Permutes rgb8_permutes() {
  Rgb8Permutes p{};
  for (int j = 0; j < 64; ++j) {
    for (int c = 0; c < 3; ++c) p.split[c][j] = static_cast<std::uint8_t>(j % 4 == 0 ? 3 * (j / 4) + c : 0);
    p.join[j] = static_cast<std::uint8_t>(j < 48 ? 4 * (j / 3) + j % 3 : 0);
  }
  return p;
}
alignas(64) inline constexpr Rgb8Permutes kRgb8Permutes = rgb8_permutes();

[[maybe_unused, gnu::target("avx512f,avx512bw,avx512vbmi"), gnu::always_inline]] inline __m512i rgb8_channel16(
    __m512i bytes, int c) {
  return _mm512_maskz_permutexvar_epi8(0x1111111111111111ull, _mm512_load_si512(kRgb8Permutes.split[c]), bytes);
}
[[maybe_unused, gnu::target("avx512f,avx512bw,avx512vbmi"), gnu::always_inline]] inline __m512i rgb8_join16(
    __m512i lanes) {
  return _mm512_permutexvar_epi8(_mm512_load_si512(kRgb8Permutes.join), lanes);
}
// v / m in sixteen lanes, for whole numbers 0 <= v <= m with m = 255 or 65535 (8- and 16-bit values
// to [0, 1]): the product by the rounded reciprocal, corrected once by its exact residual (two FMA).
// That is the correctly rounded quotient, equal to the division, for every such v
// (HostSimd.UnitQuotientEqualsTheDivisionForEveryValue checks them all), and about a third of the
// cost of sixteen divisions.
[[maybe_unused, gnu::target("avx512f"), gnu::always_inline]] inline __m512 unit_quotient16(__m512 v, __m512 m,
                                                                                        __m512 rcp) {
  const __m512 q = _mm512_mul_ps(v, rcp);
  return _mm512_fmadd_ps(_mm512_fnmadd_ps(q, m, v), rcp, q);
}
#endif

// How far the hand-written vector paths may go, from AUGMENT_HOST_SIMD in the environment: "off"
// (0) runs every driver's portable path (the loops the compiler vectorises itself, AUG_CLONES, are
// the same source either way), "avx2" (1) the AVX2 paths but none of AVX-512, so that the tests run
// those on a processor that has both; unset (or anything else, 2) whatever the processor has.
[[maybe_unused]] int host_vector_level() {
  static const int level = [] {
    const char* e = std::getenv("AUGMENT_HOST_SIMD");
    if (e && std::strcmp(e, "off") == 0) return 0;
    if (e && std::strcmp(e, "avx2") == 0) return 1;
    return 2;
  }();
  return level;
}
[[maybe_unused]] bool host_vectors_on() { return host_vector_level() > 0; }

// Whether the machine has AVX2 / AVX-512F (the vector drivers' runtime dispatch), and they may run.
[[maybe_unused]] bool host_has_avx2() {
#if defined(AUG_AVX2_PHILOX)
  static const bool yes = host_vector_level() >= 1 && __builtin_cpu_supports("avx2");
  return yes;
#else
  return false;
#endif
}
[[maybe_unused]] bool host_has_avx512() {
#if defined(AUG_AVX2_PHILOX)
  static const bool yes = host_vector_level() >= 2 && __builtin_cpu_supports("avx512f");
  return yes;
#else
  return false;
#endif
}
// AVX-512 with byte and word operations (BW).
[[maybe_unused]] bool host_has_avx512_bw() {
#if defined(AUG_AVX2_PHILOX)
  static const bool yes = host_has_avx512() && __builtin_cpu_supports("avx512bw");
  return yes;
#else
  return false;
#endif
}
// AVX-512 with byte and word operations and byte permutes (BW, VBMI).
[[maybe_unused]] bool host_has_avx512_vbmi() {
#if defined(AUG_AVX2_PHILOX)
  static const bool yes = host_has_avx512() && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi");
  return yes;
#else
  return false;
#endif
}
// AVX-512 with byte and word operations and the 8/16-bit dot products (BW, VNNI).
[[maybe_unused]] bool host_has_avx512_vnni() {
#if defined(AUG_AVX2_PHILOX)
  static const bool yes = host_has_avx512() && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
  return yes;
#else
  return false;
#endif
}

// w3, when given, receives word 3.
[[maybe_unused]] void philox_blocks(const KeyedStream& stream, std::uint32_t first, std::uint32_t purpose, int n,
                                    std::uint32_t* w0, std::uint32_t* w1, std::uint32_t* w2,
                                    std::uint32_t* w3 = nullptr) {
#if defined(AUG_AVX2_PHILOX)
  if (host_has_avx512()) return philox_blocks_avx512(stream, first, purpose, n, w0, w1, w2, w3);
  if (host_has_avx2()) return philox_blocks_avx2(stream, first, purpose, n, w0, w1, w2, w3);
#endif
  philox_blocks_portable(stream, first, purpose, n, w0, w1, w2, w3);
}
}  // namespace
}  // namespace aug::k::cpu
