// salt_and_pepper: Albumentations' SaltAndPepper written out here with the stage's draws (Floyd's
// sampling of n = floor(H W amount) distinct pixels, a partial shuffle choosing the salt) against
// both backends on every type; the counts of salt and pepper, the spread of the pixels and the
// drawn amounts over many seeds; the import.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "lib/core/rng.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_salt_and_pepper {
namespace {

using testing::compare;
using testing::one_stage;
using testing::random_image;
using testing::run_both;
using testing::noise::at;
using testing::noise::max_of;
using testing::noise::stream_of;

// The pixels (first `salt` of them salt) as the reference draws them: Floyd's algorithm with a set,
// then a partial Fisher-Yates shuffle.
std::vector<std::int64_t> reference_pixels(Draws& d, std::int64_t N, double amount, double ratio, std::int64_t& salt) {
  const auto n = static_cast<std::int64_t>(std::floor(static_cast<double>(N) * amount));
  salt = static_cast<std::int64_t>(std::floor(static_cast<double>(n) * ratio));
  std::set<std::int64_t> chosen;
  std::vector<std::int64_t> list;
  for (std::int64_t j = N - n; j < N; ++j) {
    const std::int64_t t = d.integer(0, j);
    const std::int64_t pick = chosen.count(t) ? j : t;
    chosen.insert(pick);
    list.push_back(pick);
  }
  for (std::int64_t i = 0; i < salt; ++i) std::swap(list[i], list[d.integer(i, n - 1)]);
  return list;
}

TEST(SaltAndPepper, FollowsTheReferenceOnEveryType) {
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int C : {1, 3, 4}) {
      const Image im = random_image({29, 19, C, t}, 7);
      const testing::Both b =
          run_both(one_stage(R"({"stage": "salt_and_pepper", "p": 1, "amount": 0.25, "salt_vs_pepper": 0.3})"), im,
                   "sp.png");
      ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
      Draws d(stream_of("sp.png"));
      std::int64_t salt = 0;
      const auto list = reference_pixels(d, 29 * 19, 0.25, 0.3, salt);
      ASSERT_EQ(list.size(), 137u);  // floor(551 * 0.25)
      ASSERT_EQ(salt, 41);           // floor(137 * 0.3)
      std::vector<int> kind(29 * 19, 0);  // 0 copied, 1 salt, 2 pepper
      for (std::size_t i = 0; i < list.size(); ++i) kind[list[i]] = static_cast<std::int64_t>(i) < salt ? 1 : 2;
      for (int y = 0; y < 19; ++y)
        for (int x = 0; x < 29; ++x)
          for (int c = 0; c < C; ++c) {
            const int k = c < 3 ? kind[y * 29 + x] : 0;
            const double want = k == 1 ? max_of(t) : (k == 2 ? 0.0 : at(im, x, y, c));
            ASSERT_EQ(at(b.cpu, x, y, c), want) << dtype_name(t) << " " << x << "," << y << "," << c;
          }
    }
}

TEST(SaltAndPepper, CountsSpreadAndDrawsFollowTheDefinition) {
  // A mid-grey image: every changed pixel is seen. Over many seeds: exactly floor(N amount) pixels
  // change, floor(n ratio) of them white; every pixel is hit as often (chi-square); the drawn amount
  // and ratio are uniform in their defaults (mean and a Kolmogorov-Smirnov distance).
  const int W = 48, H = 32, N = W * H;
  Image im({W, H, 3, DType::U8});
  std::fill_n(im.data(), im.shape().values(), std::uint8_t{128});
  const Pipeline p = one_stage(R"({"stage": "salt_and_pepper", "p": 1})");
  static auto cpu = make_cpu_backend(1);
  std::vector<double> hits(N, 0), amounts, ratios;
  double total = 0, salt_left = 0, salt_all = 0, left = 0;
  const int keys = 1500;
  for (int k = 0; k < keys; ++k) {
    const Plan plan = p.plan(5, "k" + std::to_string(k), 0, im.shape());
    const Image out = cpu->run(plan, im, 0);
    const auto& params = plan.record[0]["params"];
    const double a = params["amount"], r = params["salt_vs_pepper"];
    amounts.push_back(a);
    ratios.push_back(r);
    const auto n = static_cast<std::int64_t>(std::floor(N * a));
    std::int64_t white = 0, black = 0;
    for (int i = 0; i < N; ++i) {
      const std::uint8_t* px = out.data() + 3 * i;
      ASSERT_TRUE(px[0] == px[1] && px[1] == px[2]);
      if (px[0] == 128) continue;
      hits[i] += 1;
      (px[0] == 255 ? white : black) += 1;
      if (i % W < W / 2) {
        left += 1;
        salt_left += px[0] == 255;
      }
      salt_all += px[0] == 255;
    }
    ASSERT_EQ(white + black, n) << k;
    ASSERT_EQ(white, static_cast<std::int64_t>(std::floor(n * r))) << k;
    total += static_cast<double>(n);
  }
  const double e = total / N;
  double chi2 = 0;
  for (double h : hits) chi2 += (h - e) * (h - e) / e;
  EXPECT_NEAR(chi2, N - 1, 5 * std::sqrt(2.0 * (N - 1)));
  // The salt is not where the pixels are: the same share of salt on the left half as overall.
  EXPECT_NEAR(salt_left / left, salt_all / total, 0.01);
  auto ks = [](std::vector<double> v, double lo, double hi) {
    std::sort(v.begin(), v.end());
    double worst = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double F = (v[i] - lo) / (hi - lo);
      worst = std::max({worst, std::fabs(F - static_cast<double>(i) / v.size()),
                        std::fabs(F - static_cast<double>(i + 1) / v.size())});
    }
    return worst;
  };
  EXPECT_LT(ks(amounts, 0.01, 0.06), 1.63 / std::sqrt(keys));  // 1% level
  EXPECT_LT(ks(ratios, 0.4, 0.6), 1.63 / std::sqrt(keys));
}

TEST(SaltAndPepper, DefaultsToHalfAndImports) {
  const Pipeline p = one_stage(R"({"stage": "salt_and_pepper"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i) applied += p.plan(11, std::to_string(i), 0, {32, 32, 3, DType::U8}).steps[0].op != nullptr;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
  const nlohmann::json saved = nlohmann::json::parse(
      R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [)"
      R"({"__class_fullname__": "SaltAndPepper", "amount": [0.02, 0.1], "salt_vs_pepper": [0.5, 0.5], "p": 1},)"
      R"({"__class_fullname__": "SaltAndPepper"}]}})");
  const Imported imp = import_albumentations(saved, "a.json");
  const auto& s = imp.pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "salt_and_pepper");
  EXPECT_EQ(s["amount"], nlohmann::ordered_json::array({0.02, 0.1}));
  EXPECT_EQ(s["salt_vs_pepper"], 0.5);
  EXPECT_EQ(s["p"], 1.0);
  const auto& d = imp.pipeline["stages"][1];
  EXPECT_EQ(d["amount"], nlohmann::ordered_json::array({0.01, 0.06}));
  EXPECT_EQ(d["p"], 0.5);  // written whenever the stage's default is not 1
}

}  // namespace
}  // namespace aug::test_salt_and_pepper
