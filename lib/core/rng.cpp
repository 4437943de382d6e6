#include "lib/core/rng.hpp"

#include <cmath>

namespace aug {

namespace {
std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

std::uint64_t stable_hash(std::string_view bytes, std::uint64_t salt) {
  std::uint64_t h = 0xCBF29CE484222325ull ^ splitmix64(salt);
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return splitmix64(h);
}

k::KeyedStream keyed_stream(std::uint64_t seed, std::string_view relative_path, std::uint32_t copy,
                            std::uint32_t stage_position) {
  const std::uint64_t key = stable_hash(relative_path, seed);
  return k::KeyedStream{static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32), stage_position, copy};
}

std::uint32_t Draws::next_u32() {
  if (used_ == 4) {
    block_ = stream_.block(counter_++, 0);
    used_ = 0;
  }
  return block_.v[used_++];
}

double Draws::uniform() {
  const std::uint32_t a = next_u32();
  const std::uint32_t b = next_u32();
  return k::uniform01d(a, b);
}

double Draws::uniform(double lo, double hi) {
  if (!(hi > lo)) return lo;
  const double v = lo + uniform() * (hi - lo);
  return v < hi ? v : lo;  // guard the rounding of lo + u*(hi-lo) up to hi
}

std::int64_t Draws::integer(std::int64_t lo, std::int64_t hi) {
  if (hi <= lo) return lo;
  const double span = static_cast<double>(hi - lo + 1);
  const auto v = lo + static_cast<std::int64_t>(std::floor(uniform() * span));
  return v > hi ? hi : v;
}

bool Draws::bernoulli(double p) {
  if (p >= 1.0) return true;
  if (p <= 0.0) return false;
  return uniform() < p;
}

}  // namespace aug
