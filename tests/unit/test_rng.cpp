#include <gtest/gtest.h>

#include <set>

#include "lib/core/rng.hpp"

namespace aug {
namespace {

// Known-answer vectors of Philox4x32-10 published with Random123 (kat_vectors).
TEST(Philox, KnownAnswers) {
  auto r = k::philox4x32_10({{0, 0, 0, 0}}, 0, 0);
  EXPECT_EQ(r.v[0], 0x6627e8d5u);
  EXPECT_EQ(r.v[1], 0xe169c58du);
  EXPECT_EQ(r.v[2], 0xbc57ac4cu);
  EXPECT_EQ(r.v[3], 0x9b00dbd8u);
  r = k::philox4x32_10({{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, 0xffffffffu, 0xffffffffu);
  EXPECT_EQ(r.v[0], 0x408f276du);
  EXPECT_EQ(r.v[3], 0x6d5451fdu);
  r = k::philox4x32_10({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u);
  EXPECT_EQ(r.v[0], 0xd16cfe09u);
  EXPECT_EQ(r.v[1], 0x94fdccebu);
  EXPECT_EQ(r.v[2], 0x5001e420u);
  EXPECT_EQ(r.v[3], 0x24126ea1u);
}

TEST(KeyedStream, DependsOnEveryKeyPartAndNothingElse) {
  const auto first = [](std::uint64_t seed, const char* path, std::uint32_t copy, std::uint32_t stage) {
    Draws d(keyed_stream(seed, path, copy, stage));
    return d.next_u32();
  };
  EXPECT_EQ(first(7, "a/b.jpg", 0, 1), first(7, "a/b.jpg", 0, 1));
  std::set<std::uint32_t> values{first(7, "a/b.jpg", 0, 1), first(8, "a/b.jpg", 0, 1), first(7, "a/c.jpg", 0, 1),
                                 first(7, "a/b.jpg", 1, 1), first(7, "a/b.jpg", 0, 2)};
  EXPECT_EQ(values.size(), 5u);
}

// The documented formula, so that outputs cannot move between releases unnoticed: 64-bit FNV-1a
// over the bytes, its basis mixed with SplitMix64(salt), then a SplitMix64 finaliser.
std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

TEST(StableHash, FollowsItsDefinition) {
  for (const std::string s : {"", "a", "class00/img00000.jpg"})
    for (std::uint64_t salt : {0ull, 7ull, 0xFFFFFFFFFFFFFFFFull}) {
      std::uint64_t h = 0xCBF29CE484222325ull ^ splitmix64(salt);
      for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
      EXPECT_EQ(stable_hash(s, salt), splitmix64(h)) << s << " " << salt;
    }
}

TEST(Draws, UniformAndIntegerRanges) {
  Draws d(keyed_stream(1, "x", 0, 0));
  double sum = 0;
  std::set<std::int64_t> ints;
  for (int i = 0; i < 20000; ++i) {
    const double u = d.uniform(2.0, 3.0);
    ASSERT_GE(u, 2.0);
    ASSERT_LT(u, 3.0);
    sum += u;
    const auto k = d.integer(-2, 2);
    ASSERT_GE(k, -2);
    ASSERT_LE(k, 2);
    ints.insert(k);
  }
  EXPECT_NEAR(sum / 20000, 2.5, 0.01);
  EXPECT_EQ(ints.size(), 5u);
  EXPECT_EQ(d.uniform(4.0, 4.0), 4.0);
  EXPECT_TRUE(d.bernoulli(1.0));
  EXPECT_FALSE(d.bernoulli(0.0));
}

TEST(Uniform01f, IsExactAndBelowOne) {
  EXPECT_EQ(k::uniform01f(0u), 0.f);
  EXPECT_LT(k::uniform01f(0xffffffffu), 1.f);
  EXPECT_EQ(k::uniform01f(0x80000000u), 0.5f);
}

}  // namespace
}  // namespace aug
