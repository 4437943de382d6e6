#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/normal_cpu.hpp"
#include "lib/core/rng.hpp"
#include "lib/stages/noise/normal_table.hpp"

namespace aug::test_rng {
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

// The host drivers' Philox blocks (the portable loop, the AVX2 and the AVX-512 drivers where this
// processor has them, and the dispatching philox_blocks) against KeyedStream::block, word by word:
// counts around the vector widths (16 and 32 blocks at a time), counters that wrap past 2^32,
// extreme keys and counter words; words 0 to 2 alone, and with word 3.
TEST(Philox, HostBlockDriversEqualTheBlockFunction) {
  using Driver = void (*)(const k::KeyedStream&, std::uint32_t, std::uint32_t, int, std::uint32_t*, std::uint32_t*,
                          std::uint32_t*, std::uint32_t*);
  std::vector<std::pair<const char*, Driver>> drivers = {{"portable", k::cpu::philox_blocks_portable},
                                                         {"dispatch", k::cpu::philox_blocks}};
#if defined(AUG_AVX2_PHILOX)
  if (k::cpu::host_has_avx2()) drivers.emplace_back("avx2", k::cpu::philox_blocks_avx2);
  if (k::cpu::host_has_avx512()) drivers.emplace_back("avx512", k::cpu::philox_blocks_avx512);
#endif
  const int most = 200;
  std::vector<std::uint32_t> w(4 * most);
  long compared = 0;
  for (const std::uint32_t x : {0u, 1u, 0x7FFFFFFFu, 0xFFFFFFFFu, 0x9E3779B9u})
    for (const std::uint32_t first : {0u, 7u, 1920u * 1079u, 0xFFFFFFF0u}) {
      const k::KeyedStream stream{x, ~x ^ 0x1234u, x * 3u + 1u, x ^ 5u};
      for (const int n : {0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, most})
        for (const auto& [name, driver] : drivers)
          for (const int words : {3, 4}) {
            std::fill(w.begin(), w.end(), 0xDEADBEEFu);
            driver(stream, first, x ^ 1u, n, w.data(), w.data() + most, w.data() + 2 * most,
                   words == 4 ? w.data() + 3 * most : nullptr);
            for (int i = 0; i < n; ++i) {
              const k::Philox4x32 b = stream.block(first + static_cast<std::uint32_t>(i), x ^ 1u);
              for (int c = 0; c < words; ++c) {
                ASSERT_EQ(w[static_cast<std::size_t>(c * most + i)], b.v[c]) << name << " n " << n << " block " << i;
                ++compared;
              }
            }
            if (n < most) {
              EXPECT_EQ(w[static_cast<std::size_t>(n)], 0xDEADBEEFu) << name << " wrote past n = " << n;
            }
            if (words == 3) {
              EXPECT_EQ(w[static_cast<std::size_t>(3 * most)], 0xDEADBEEFu) << name << " wrote word 3 unasked";
            }
          }
    }
  EXPECT_GT(compared, 0);
}

#if defined(AUG_AVX2_PHILOX)
// The values of v / m, 0 <= v <= m, whose unit_quotient16 differs from the division in any bit.
[[gnu::target("avx512f")]] int unit_quotients_differing(float m) {
  const __m512 mv = _mm512_set1_ps(m), rcp = _mm512_set1_ps(1.0f / m);
  int differing = 0;
  for (int v = 0; v <= static_cast<int>(m); v += 16) {
    alignas(64) float in[16], out[16];
    for (int l = 0; l < 16; ++l) in[l] = static_cast<float>(std::min(v + l, static_cast<int>(m)));
    _mm512_store_ps(out, k::cpu::unit_quotient16(_mm512_load_ps(in), mv, rcp));
    for (int l = 0; l < 16; ++l) {
      const float want = in[l] / m;
      differing += std::memcmp(&out[l], &want, sizeof want) != 0;
    }
  }
  return differing;
}

TEST(HostSimd, UnitQuotientEqualsTheDivisionForEveryValue) {
  if (!k::cpu::host_has_avx512()) GTEST_SKIP() << "this processor has no AVX-512 (or AUGMENT_HOST_SIMD caps it)";
  EXPECT_EQ(unit_quotients_differing(255.0f), 0);
  EXPECT_EQ(unit_quotients_differing(65535.0f), 0);
  // The plain product differs for some values: the correction is needed (and this test can fail).
  int product_differs = 0;
  for (int v = 0; v <= 255; ++v)
    product_differs += static_cast<float>(v) * (1.0f / 255.0f) != static_cast<float>(v) / 255.0f;
  EXPECT_GT(product_differs, 0);
}
#endif

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

#if defined(AUG_AVX2_PHILOX)
// The host drivers' eight-lane standard normal against the scalar formula, bit for bit: every
// sub-cell of both tail cells and of the cells next to them, each lane position, and Philox words.
TEST(StandardNormal, EightLanesEqualTheScalarFormula) {
  if (!k::cpu::host_has_avx2()) GTEST_SKIP() << "this processor has no AVX2: the drivers use the scalar formula";
  const std::vector<float>& table = normal_table();
  const std::vector<float> pairs = k::cpu::normal_cell_pairs(table.data());
  std::vector<std::uint32_t> words;
  for (const std::uint32_t cell : {0u, 1u, 2u, 2047u, 4093u, 4094u, 4095u})
    for (std::uint32_t sub = 0; sub < 4096; ++sub)
      words.push_back(((cell << 12 | sub) << 8) | (sub & 0xFF));
  const k::KeyedStream stream{1, 2, 3, 4};
  for (std::uint32_t i = 0; i < 20000; ++i) words.push_back(stream.block(i, 9).v[i % 4]);
  // Tail words among inner ones at each lane position: the whole vector takes the scalar route.
  for (int lane = 0; lane < 8; ++lane) {
    std::vector<std::uint32_t> v(8, 0x80000000u);
    v[lane] = 5u << 8;
    words.insert(words.end(), v.begin(), v.end());
  }
  std::vector<float> z(words.size());
  k::cpu::standard_normals_avx2(words.data(), z.data(), static_cast<int>(words.size()), pairs.data(), table.data());
  long differ = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const float want = k::standard_normal(words[i], table.data());
    if (std::memcmp(&z[i], &want, sizeof want) != 0 && ++differ < 5)
      ADD_FAILURE() << "word " << std::hex << words[i] << ": " << z[i] << " against " << want;
  }
  EXPECT_EQ(differ, 0);
}
#endif

}  // namespace
}  // namespace aug::test_rng
