// What the vectorised host drivers (kernels/*/*_cpu.cpp) share: AVX2 clones of hot row loops,
// eight-lane binary32 vectors and the weighted sums of the float filters. Host code only.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/core/common.hpp"

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


}  // namespace
}  // namespace aug::k::cpu
