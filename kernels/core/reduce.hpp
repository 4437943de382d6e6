// Reductions that give the same result whatever order a launch's items run in (integer atomics).
//
// Exact per-row sums of an integer quantity of each pixel, in parallel: one item per run of
// kRowRun pixels of a row, added to the row's total with one atomic (integer addition: the order
// of the runs changes nothing). A GPU then runs width / kRowRun items per row instead of one
// thread walking the whole row.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

constexpr int kRowRun = 64;

AUG_HD void atomic_add_u64(std::uint64_t* p, std::uint64_t v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
#else
  *p += v;  // host loops run a launch's items one after another
#endif
}

AUG_HD void atomic_min_u32(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  atomicMin(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(v));
#else
  *p = v < *p ? v : *p;
#endif
}
AUG_HD void atomic_max_u32(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  atomicMax(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(v));
#else
  *p = v > *p ? v : *p;
#endif
}

// A key per float that orders as the floats do (-0 just below +0; NaN is the caller's to skip),
// so that minima and maxima can be taken with integer atomics; order_value gives the float back.
AUG_HD std::uint32_t order_key(float v) {
  std::uint32_t bits;
#if defined(__CUDA_ARCH__)
  bits = __float_as_uint(v);
#else
  __builtin_memcpy(&bits, &v, sizeof bits);
#endif
  return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}
AUG_HD float order_value(std::uint32_t key) {
  const std::uint32_t bits = key & 0x80000000u ? key & 0x7FFFFFFFu : ~key;
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float v;
  __builtin_memcpy(&v, &bits, sizeof v);
  return v;
#endif
}

struct ZeroU64 {
  AUG_FIELDS(ZeroU64, out)
  std::uint64_t* out;
  AUG_HD void operator()(std::size_t i) const { out[i] = 0; }
};

// sums[y] += value(x, y) over run `run` of row y. P: AUG_HD std::uint64_t operator()(int x, int y).
template <class P>
struct RowRunSums {
  AUG_FIELDS(RowRunSums, value, width, sums)
  P value;
  int width;
  std::uint64_t* sums;
  AUG_HD void operator()(int run, int y) const {
    const int x0 = run * kRowRun, x1 = x0 + kRowRun < width ? x0 + kRowRun : width;
    std::uint64_t acc = 0;
    for (int x = x0; x < x1; ++x) acc += value(x, y);
    atomic_add_u64(&sums[y], acc);
  }
};

// sums[y] = the sum of value(x, y) over row y, for y in [0, height).
template <class P>
void row_sums(const P& value, int width, int height, std::uint64_t* sums, const Exec& exec, const char* what) {
  for_1d(ZeroU64{sums}, static_cast<std::size_t>(height), exec, what);
  for_2d(RowRunSums<P>{value, width, sums}, (width + kRowRun - 1) / kRowRun, height, exec, what);
}

}  // namespace aug::k
