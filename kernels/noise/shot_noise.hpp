// shot_noise: Poisson photon noise in linear light (Albumentations' ShotNoise), 8- and 16-bit.
//   k      the Poisson count of value v: the smallest k < K with word < thresholds[v K + k], else K;
//          word c of Philox block (pixel index, sub-stream 1) for colour channel c
//   out    levels[k]
// The host builds both tables per image in double (lib/stages/noise/shot_noise.cpp):
// thresholds[v K + k] = the Poisson CDF of lambda(v) at k, times 2^32; levels[k] the value of k
// counts (K counts or more: the maximum). Alpha is copied.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"
#include "kernels/core/philox.hpp"

namespace aug::k {

struct ShotArgs {
  AUG_FIELDS(ShotArgs, stream, thresholds, levels, K, color_channels)
  KeyedStream stream;
  const std::uint32_t* thresholds = nullptr;  // (max + 1) x K (ctx.table)
  const std::uint16_t* levels = nullptr;      // K + 1 (ctx.table)
  int K = 1;
  int color_channels = 3;
};

template <class T>
void shot_noise(View<const T> in, View<T> out, const ShotArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend)
template <class T>
void shot_noise(View<const T> in, View<T> out, const ShotArgs& args);
}  // namespace cpu

// The count drawn by `word` from one value's K thresholds (nondecreasing): an inverse-CDF search.
AUG_HD int poisson_count(std::uint32_t word, const std::uint32_t* t, int K) {
  int k = 0;
  while (k < K && word >= t[k]) ++k;
  return k;
}

}  // namespace aug::k
