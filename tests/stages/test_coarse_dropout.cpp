// coarse_dropout: Albumentations' CoarseDropout (v1.4 sampling) written out here with the stage's
// draws (the recorded holes, fractional and pixel sizes), the fill of every hole against both
// backends, the rejection of mixed units and the default probability, and the CPU path's constant
// fill against the kernels run on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lib/core/rng.hpp"
#include "tests/stages/noise_support.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_coarse_dropout {
namespace {

using testing::compare;
using testing::expect_parity;
using testing::one_stage;
using testing::random_image;
using testing::run_both;
using testing::noise::at;
using testing::noise::Box;
using testing::noise::max_of;
using testing::noise::recorded_rects;
using testing::noise::stream_of;

// Albumentations' CoarseDropout (v1.4 sampling) written out with the stage's draws.
std::vector<Box> dropout_reference(Draws& d, int H, int W, int n0, int n1, std::array<double, 2> hh, bool hpix,
                                   std::array<double, 2> ww, bool wpix) {
  std::vector<Box> out;
  const auto n = d.integer(n0, n1);
  for (int k = 0; k < n; ++k) {
    const int h =
        hpix ? static_cast<int>(std::min<std::int64_t>(d.integer(static_cast<int>(hh[0]), static_cast<int>(hh[1])), H))
             : static_cast<int>(H * d.uniform(hh[0], hh[1]));
    const int w =
        wpix ? static_cast<int>(std::min<std::int64_t>(d.integer(static_cast<int>(ww[0]), static_cast<int>(ww[1])), W))
             : static_cast<int>(W * d.uniform(ww[0], ww[1]));
    const int y = static_cast<int>(d.integer(0, H - h)), x = static_cast<int>(d.integer(0, W - w));
    out.push_back({x, y, w, h});
  }
  return out;
}

TEST(CoarseDropout, HolesFollowAlbumentationsSampling) {
  const Pipeline frac = one_stage(R"({"stage": "coarse_dropout", "p": 1})");
  const Pipeline pix = one_stage(
      R"({"stage": "coarse_dropout", "p": 1, "num_holes": [2, 9], "hole_height": [3, 12], "hole_width": 0.25})");
  std::map<int, int> counts;
  for (int i = 0; i < 1000; ++i) {
    const int W = 30 + i % 41, H = 8 + i % 29;
    const std::string key = "d" + std::to_string(i);
    {
      Draws d(stream_of(key));
      const auto got = recorded_rects(frac.plan(11, key, 0, {W, H, 3, DType::U8}));
      ASSERT_EQ(got, dropout_reference(d, H, W, 1, 2, {0.1, 0.2}, false, {0.1, 0.2}, false)) << key;
    }
    Draws d(stream_of(key));
    const auto got = recorded_rects(pix.plan(11, key, 0, {W, H, 3, DType::U8}));
    ASSERT_EQ(got, dropout_reference(d, H, W, 2, 9, {3, 12}, true, {0.25, 0.25}, false)) << key;
    ++counts[static_cast<int>(got.size())];
    for (const Box& b : got) ASSERT_TRUE(b.x >= 0 && b.y >= 0 && b.x + b.w <= W && b.y + b.h <= H);
  }
  for (int n = 2; n <= 9; ++n) EXPECT_NEAR(counts[n] / 1000.0, 1 / 8.0, 0.04) << n;

  // A pixel range from 0 (Albumentations' integer ranges allow it): some holes have no height.
  const Pipeline zero = one_stage(R"({"stage": "coarse_dropout", "p": 1, "num_holes": [4, 4], "hole_height": [0, 3], )"
                                  R"("hole_width": [1, 2]})");
  int empty = 0, holes = 0;
  for (int i = 0; i < 500; ++i) {
    const std::string key = "z" + std::to_string(i);
    Draws d(stream_of(key));
    const auto got = recorded_rects(zero.plan(11, key, 0, {40, 30, 3, DType::U8}));
    ASSERT_EQ(got, dropout_reference(d, 30, 40, 4, 4, {0, 3}, true, {1, 2}, true)) << key;
    for (const Box& b : got) empty += b.h == 0, ++holes;
  }
  EXPECT_NEAR(empty / static_cast<double>(holes), 0.25, 0.04);
}

TEST(CoarseDropout, FillsEveryHole) {
  for (DType t : {DType::U8, DType::U16, DType::F32}) {
    const Image im = random_image({57, 43, 4, t}, 6);
    const testing::Both b = run_both(
        one_stage(R"({"stage": "coarse_dropout", "p": 1, "num_holes": [5, 5], "hole_height": [4, 10], )"
                  R"("hole_width": [0.1, 0.3], "fill": [0.25, 1]})"),
        im, "holes.png");
    ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
    const auto holes = recorded_rects(b.plan);
    ASSERT_EQ(holes.size(), 5u);
    const double fill[3] = {0.25, 1, 1};  // the last value repeats
    for (int y = 0; y < 43; ++y)
      for (int x = 0; x < 57; ++x) {
        bool inside = false;
        for (const Box& h : holes) inside |= x >= h.x && x < h.x + h.w && y >= h.y && y < h.y + h.h;
        for (int c = 0; c < 4; ++c) {
          const double want =
              inside && c < 3 ? (t == DType::F32 ? fill[c] : std::nearbyint(fill[c] * max_of(t))) : at(im, x, y, c);
          ASSERT_EQ(at(b.cpu, x, y, c), want);
        }
      }
  }
}

TEST(CoarseDropout, RejectsMixedUnitsAndDefaultsToHalf) {
  EXPECT_ANY_THROW(one_stage(R"({"stage": "coarse_dropout", "hole_height": [0.5, 3]})"));
  EXPECT_ANY_THROW(one_stage(R"({"stage": "coarse_dropout", "hole_width": [1.5, 3]})"));
  const Pipeline p = one_stage(R"({"stage": "coarse_dropout"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i)
    applied += p.plan(11, std::to_string(i), 0, {32, 32, 3, DType::U8}).steps[0].op != nullptr;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
}

TEST(CoarseDropout, ConstantFillsEqualTheKernels) {
  expect_parity(
      R"({"stage": "coarse_dropout", "p": 1, "num_holes": [8, 16], "hole_height": [2, 9], "hole_width": [2, 9]})",
      {DType::U8, DType::U16, DType::F32}, {1, 3, 4}, 4);
}

TEST(CoarseDropout, ImportsCutoutWithItsOldParameters) {
  auto import_one = [](const std::string& transform) {
    const nlohmann::json saved = nlohmann::json::parse(
        R"({"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "transforms": [)" + transform + "]}}");
    return import_albumentations(saved, "a.json");
  };
  const Imported imp = import_one(
      R"({"__class_fullname__": "Cutout", "num_holes": 4, "max_h_size": 20, "max_w_size": 12, "fill_value": 51, "p": 1})");
  const auto& s = imp.pipeline["stages"][0];
  EXPECT_EQ(s["stage"], "coarse_dropout");
  EXPECT_EQ(s["num_holes"], nlohmann::ordered_json::array({4, 4}));
  EXPECT_EQ(s["hole_height"], nlohmann::ordered_json::array({20.0, 20.0}));
  EXPECT_EQ(s["hole_width"], nlohmann::ordered_json::array({12.0, 12.0}));
  EXPECT_DOUBLE_EQ(s["fill"].get<double>(), 0.2);
  ASSERT_EQ(imp.notes.size(), 1u);
  EXPECT_NE(imp.notes[0].find("cut by the border"), std::string::npos) << imp.notes[0];
  // Its defaults: 8 holes of 8 x 8, black.
  const auto d = import_one(R"({"__class_fullname__": "Cutout"})").pipeline["stages"][0];
  EXPECT_EQ(d["num_holes"], nlohmann::ordered_json::array({8, 8}));
  EXPECT_EQ(d["hole_height"], nlohmann::ordered_json::array({8.0, 8.0}));
  EXPECT_FALSE(d.contains("fill"));
  EXPECT_EQ(d["p"], 0.5);
  // p 1 is written: coarse_dropout's own default is 0.5.
  EXPECT_EQ(s["p"], 1.0);
  const Pipeline p = Pipeline::parse(imp.pipeline.dump(), "cutout");
  for (int i = 0; i < 20; ++i)  // every image gets holes (at 0.5, 20 in a row: one chance in a million)
    EXPECT_NE(p.plan(3, "a" + std::to_string(i) + ".png", 0, Shape{64, 64, 3, DType::U8}).steps.at(0).op, nullptr) << i;
}

}  // namespace
}  // namespace aug::test_coarse_dropout
