// What several stages compute as NumPy computes it for Albumentations: np.sum's pairwise summation
// of float64 values, NumPy's shuffle (Fisher-Yates from the last element, with the stage's draws) and
// Albumentations' near-equal split of a side into shuffled parts. Host code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "lib/core/rng.hpp"

namespace aug {

// np.sum of a contiguous float64 array: sequential below 8 values; up to 128, eight running sums
// combined as ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), then the rest; above, the sums of
// two halves (the first a multiple of 8 long).
inline double numpy_sum(const double* a, std::size_t n) {
  if (n < 8) {
    double s = 0.;
    for (std::size_t i = 0; i < n; ++i) s += a[i];
    return s;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) s += a[i];
    return s;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return numpy_sum(a, half) + numpy_sum(a + half, n - half);
}

// NumPy's shuffle with the stage's draws: for i = n - 1 .. 1, swap i with integer(0, i).
template <class V>
void numpy_shuffle(V& v, Draws& d) {
  for (std::size_t i = v.size(); i-- > 1;)
    std::swap(v[i], v[static_cast<std::size_t>(d.integer(0, static_cast<std::int64_t>(i)))]);
}

// Albumentations' generate_shuffled_splits: n near-equal parts of `side` (the first side % n one
// longer), shuffled, as their n + 1 edges from 0.
inline std::vector<int> shuffled_splits(int side, int n, Draws& d) {
  std::vector<int> sizes(static_cast<std::size_t>(n), side / n);
  for (int i = 0; i < side % n; ++i) ++sizes[static_cast<std::size_t>(i)];
  numpy_shuffle(sizes, d);
  std::vector<int> at{0};
  for (int s : sizes) at.push_back(at.back() + s);
  return at;
}

}  // namespace aug
