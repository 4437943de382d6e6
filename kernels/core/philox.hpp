// Philox4x32-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC'11):
// a counter-based generator, so any draw is a pure function of (key, counter) and the host
// and the device produce the same numbers in any order, on any thread.
#pragma once

#include "kernels/core/common.hpp"

namespace aug::k {

struct Philox4x32 {
  std::uint32_t v[4];
};

AUG_HD void philox_mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
  const std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  hi = static_cast<std::uint32_t>(p >> 32);
  lo = static_cast<std::uint32_t>(p);
}

// The multipliers and the key increments (Weyl sequence) of Philox4x32.
inline constexpr std::uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
inline constexpr std::uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;

// Ten rounds over the 128-bit counter `c` with the 64-bit key (k0, k1).
AUG_HD Philox4x32 philox4x32_10(Philox4x32 c, std::uint32_t k0, std::uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    std::uint32_t hi0, lo0, hi1, lo1;
    philox_mulhilo(kPhiloxM0, c.v[0], hi0, lo0);
    philox_mulhilo(kPhiloxM1, c.v[2], hi1, lo1);
    c = Philox4x32{{hi1 ^ c.v[1] ^ k0, lo1, hi0 ^ c.v[3] ^ k1, lo0}};
    k0 += kPhiloxW0;
    k1 += kPhiloxW1;
  }
  return c;
}

// A uniform float in [0, 1) from the top 24 bits: exact, identical on host and device.
AUG_HD float uniform01f(std::uint32_t bits) { return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f); }

// A uniform double in [0, 1) from 53 bits of two draws.
AUG_HD double uniform01d(std::uint32_t a, std::uint32_t b) {
  const std::uint64_t m = (static_cast<std::uint64_t>(a) << 21) ^ (b >> 11);
  return static_cast<double>(m & ((std::uint64_t{1} << 53) - 1)) * (1.0 / 9007199254740992.0);
}

// The keyed stream every random choice comes from. The key is derived on the host from
// (pipeline seed, input's relative path); the counter words hold (index, purpose, stage, copy),
// so a stage's draws never depend on another stage's, on the thread or on the input order.
struct KeyedStream {
  AUG_FIELDS(KeyedStream, key0, key1, stage, copy)
  std::uint32_t key0, key1;
  std::uint32_t stage, copy;

  // The four 32-bit words of block `index` of sub-stream `purpose`.
  AUG_HD Philox4x32 block(std::uint32_t index, std::uint32_t purpose) const {
    return philox4x32_10(Philox4x32{{index, purpose, stage, copy}}, key0, key1);
  }
};

}  // namespace aug::k
