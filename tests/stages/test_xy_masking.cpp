// xy_masking: Albumentations' XYMasking written out with the stage's draws (x stripes, then y), the
// stripes' fill on both backends, the length refusal, and the import of its numbers as [0, n].
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/rng.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_xy_masking {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;
using testing::noise::at;
using testing::noise::Box;
using testing::noise::recorded_rects;
using testing::noise::stream_of;

TEST(XYMasking, StripesFollowAlbumentationsDraws) {
  const Pipeline p = one_stage(R"({"stage": "xy_masking", "p": 1, "num_masks_x": [0, 3], "num_masks_y": [1, 2],
                                   "mask_x_length": [1, 9], "mask_y_length": [0, 4]})");
  int stripes = 0;
  for (int i = 0; i < 500; ++i) {
    const int W = 10 + i % 31, H = 5 + i % 17;
    const std::string key = "x" + std::to_string(i);
    const Plan plan = p.plan(11, key, 0, {W, H, 3, DType::U8});
    Draws d(stream_of(key));
    std::vector<Box> want;
    for (int n = static_cast<int>(d.integer(0, 3)); n > 0; --n) {
      const int w = static_cast<int>(d.integer(1, 9)), x = static_cast<int>(d.integer(0, W - w));
      want.push_back(Box{x, 0, w, H});
    }
    for (int n = static_cast<int>(d.integer(1, 2)); n > 0; --n) {
      const int h = static_cast<int>(d.integer(0, 4)), y = static_cast<int>(d.integer(0, H - h));
      want.push_back(Box{0, y, W, h});
    }
    ASSERT_EQ(recorded_rects(plan), want) << key;
    stripes += static_cast<int>(want.size());
  }
  EXPECT_GT(stripes, 1000);
}

TEST(XYMasking, FillsTheStripesOnBothBackends) {
  for (DType t : {DType::U8, DType::U16, DType::F32}) {
    const Image in = testing::random_image({40, 30, 4, t}, 9);
    const auto b = run_both(one_stage(R"({"stage": "xy_masking", "p": 1, "num_masks_x": 2, "num_masks_y": 1,
                                          "mask_x_length": [2, 6], "mask_y_length": 3, "fill": [1, 0.5, 0]})"),
                            in);
    ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
    const auto rects = recorded_rects(b.plan);
    ASSERT_EQ(rects.size(), 3u);
    const double fill[3] = {1, 0.5, 0};
    const double max = testing::noise::max_of(t);
    for (int y = 0; y < 30; ++y)
      for (int x = 0; x < 40; ++x) {
        bool inside = false;
        for (const Box& r : rects) inside |= x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
        for (int c = 0; c < 4; ++c) {
          const double want = inside && c < 3 ? (t == DType::F32 ? fill[c] : std::nearbyint(fill[c] * max)) : at(in, x, y, c);
          ASSERT_EQ(at(b.cpu, x, y, c), want) << x << "," << y << "," << c;
        }
      }
  }
}

TEST(XYMasking, AStripeLongerThanTheImageIsAnInputError) {
  const Pipeline p = one_stage(R"({"stage": "xy_masking", "p": 1, "num_masks_y": 1, "mask_y_length": [2, 40]})");
  EXPECT_THROW(p.plan(1, "a.png", 0, {50, 30, 3, DType::U8}), InputError);
  EXPECT_NO_THROW(p.plan(1, "a.png", 0, {50, 40, 3, DType::U8}));
}

}  // namespace
}  // namespace aug::test_xy_masking
