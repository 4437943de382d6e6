// A standard normal from 32 uniform bits, the same on the host and on the device, without libm:
// an inverse-CDF table computed on the host in double (lib/stages/noise/normal_table.hpp) and
// read here with plain binary32 operations.
//   m = bits >> 8 (24 bits), u = (m + 1/2) / 2^24, cell = m >> 12 (4096 cells of width 1/4096)
//   inner cells 1..4094: z = t[cell] + f (t[cell + 1] - t[cell]), f = (m & 4095) / 4096,
//     t[i] = Phi^-1(i / 4096) (entries 1..4095; linear interpolation: error below 6e-6 in z
//     for |z| < 2, at most 0.016 in the cells next to the tails)
//   tail cells 0 and 4095: the exact quantile of the sub-cell midpoint,
//     z = T[m & 4095] resp. -T[4095 - (m & 4095)], T[s] = Phi^-1((s + 1/2) / 2^24) (4096 entries)
// Extremes: +-5.42 (the midpoint of the outermost 2^-24 cell). Over all 2^24 draws: mean 0,
// variance 1.00007, fourth moment 3.0014 (tests/stages/test_gaussian_noise.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/core/common.hpp"

namespace aug::k {

inline constexpr int kNormalCells = 4096;
inline constexpr std::size_t kNormalTableSize = kNormalCells + 1 + kNormalCells;  // t then T

AUG_HD float standard_normal(std::uint32_t bits, const float* table) {
  const std::uint32_t m = bits >> 8;
  const std::uint32_t cell = m >> 12, sub = m & 4095u;
  const float* tail = table + kNormalCells + 1;
  if (cell == 0) return tail[sub];
  if (cell == kNormalCells - 1) return -tail[4095u - sub];
  const float f = static_cast<float>(sub) * (1.0f / 4096.0f);
  const float a = table[cell], b = table[cell + 1];
  return a + f * (b - a);
}

}  // namespace aug::k
