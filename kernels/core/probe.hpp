// The kernel a GPU backend launches when it opens a device: a missing architecture, a driver
// older than the runtime or a failed module load shows here, before any output exists, and so do
// float-to-integer conversions that differ from the host's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/core/launch.hpp"

namespace aug::k {

// out[i] = probe_value(i) for i in [0, count).
void probe(std::uint32_t* out, std::size_t count, const Exec& exec);

// The floats whose conversions to integers differ between a GPU and x86 unless the helpers of
// kernels/core/common.hpp take them (+-inf, NaN, past the int32 and int64 ranges, halves).
AUG_HD float probe_special(std::size_t k) {
  constexpr std::uint32_t kBits[8] = {0x7F800000u /* +inf */, 0xFF800000u /* -inf */, 0x7FC00000u /* NaN */,
                                      0x4F32D05Eu /* 3e9 */,  0xCF32D05Eu /* -3e9 */, 0x60AD78ECu /* 1e20 */,
                                      0xC0200000u /* -2.5 */, 0x40200000u /* 2.5 */};
  const std::uint32_t bits = kBits[k & 7];
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float v;
  __builtin_memcpy(&v, &bits, sizeof v);
  return v;
#endif
}

// A hash of the index, mixed with the conversions of one special float: the host computes the
// same value, so a device (or a host build) whose conversions differ from the helpers' fails the
// probe when it opens.
AUG_HD std::uint32_t probe_value(std::size_t i) {
  const float s = probe_special(i);
  const std::uint64_t r = static_cast<std::uint64_t>(rne(s));
  const std::uint32_t conversions = static_cast<std::uint32_t>(r) ^ static_cast<std::uint32_t>(r >> 32) * 3u ^
                                    static_cast<std::uint32_t>(trunc_i32(s)) * 5u ^ trunc_u32(s) * 7u ^
                                    static_cast<std::uint32_t>(rne(static_cast<double>(s)) >> 1) * 11u;
  return (static_cast<std::uint32_t>(i) * 2654435761u ^ 0x5EEDu) + conversions;
}

}  // namespace aug::k
