// Host side of the keyed counter-based generator (kernels/core/philox.hpp). Every random choice of a
// run is a pure function of (pipeline seed, input's relative path, copy index, stage position).
#pragma once

#include <cstdint>
#include <string_view>

#include "kernels/core/philox.hpp"

namespace aug {

// 64-bit FNV-1a followed by a SplitMix64 finaliser: stable across platforms and releases.
std::uint64_t stable_hash(std::string_view bytes, std::uint64_t salt = 0);

// The stream of one stage for one output image.
k::KeyedStream keyed_stream(std::uint64_t seed, std::string_view relative_path, std::uint32_t copy,
                            std::uint32_t stage_position);

// Sequential draws from sub-stream 0 of a keyed stream (the parameter draws of a stage).
class Draws {
 public:
  explicit Draws(const k::KeyedStream& s) : stream_(s) {}

  std::uint32_t next_u32();
  double uniform();                                   // [0, 1)
  double uniform(double lo, double hi);               // [lo, hi) (lo when lo == hi)
  std::int64_t integer(std::int64_t lo, std::int64_t hi);  // uniform in [lo, hi], inclusive
  bool bernoulli(double p);                           // true with probability p (p >= 1: always, no draw)

  const k::KeyedStream& stream() const { return stream_; }

 private:
  k::KeyedStream stream_;
  std::uint32_t counter_ = 0;
  k::Philox4x32 block_{};
  int used_ = 4;
};

}  // namespace aug
