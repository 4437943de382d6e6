// rgb_shift: Albumentations' RGBShift written out here (each colour channel plus its drawn shift, a
// fraction of the type's range, rounded and saturated; one channel shifted by the shifts' luma)
// against both backends on every type, the drawn ranges, and the default of twenty 8-bit levels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_rgb_shift {
namespace {

using testing::compare;
using testing::one_stage;
using testing::random_image;
using testing::run_both;
using testing::noise::at;
using testing::noise::max_of;

TEST(RgbShift, AddsTheDrawnShiftsSaturating) {
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int C : {1, 3, 4}) {
      const Image im = random_image({29, 21, C, t}, 12);
      const testing::Both b = run_both(
          one_stage(
              R"({"stage": "rgb_shift", "p": 1, "r_shift": [0.1, 0.3], "g_shift": 0.2, "b_shift": [-0.5, -0.4]})"),
          im, "s.png");
      ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
      const auto& rec = b.plan.record[0]["params"];
      const double s[3] = {rec["r_shift"], rec["g_shift"], rec["b_shift"]};
      ASSERT_TRUE(s[0] >= 0.1 && s[0] < 0.3 && s[1] >= -0.2 && s[1] < 0.2 && s[2] >= -0.5 && s[2] < -0.4);
      const double gray = 0.299 * s[0] + 0.587 * s[1] + 0.114 * s[2];
      for (int y = 0; y < 21; ++y)
        for (int x = 0; x < 29; ++x)
          for (int c = 0; c < C; ++c) {
            const double v = at(im, x, y, c);
            double want = v;
            if (c < 3) {
              const double shift = C == 1 ? gray : s[c];
              if (t == DType::F32) want = std::clamp(static_cast<float>(v) + static_cast<float>(shift), 0.f, 1.f);
              else want = std::clamp(std::nearbyint(v + shift * max_of(t)), 0.0, max_of(t));
            }
            ASSERT_EQ(at(b.cpu, x, y, c), want) << dtype_name(t) << C << " " << x << "," << y << "," << c;
          }
    }
}

TEST(RgbShift, ANumberIsASymmetricRangeAndTheDefaultIsTwentyLevels) {
  const Pipeline p = one_stage(R"({"stage": "rgb_shift", "p": 1})");
  double lo = 1, hi = -1;
  for (int i = 0; i < 2000; ++i) {
    const nlohmann::json rec = p.plan(11, std::to_string(i), 0, {4, 4, 3, DType::U8}).record[0]["params"];
    for (const char* k : {"r_shift", "g_shift", "b_shift"}) {
      const double s = rec[k];
      lo = std::min(lo, s), hi = std::max(hi, s);
      ASSERT_LE(std::fabs(s), 20.0 / 255);
    }
  }
  EXPECT_LT(lo, -0.075);
  EXPECT_GT(hi, 0.075);
  // Twenty 8-bit levels exactly: 100 + 20 = 120.
  Image im({1, 1, 3, DType::U8});
  std::fill_n(im.data(), 3, static_cast<std::uint8_t>(100));
  const Image out =
      testing::run_cpu(R"({"stage": "rgb_shift", "p": 1, "r_shift": [0.0784313725490196, 0.0784313725490196], )"
                       R"("g_shift": 0, "b_shift": [-0.0784313725490196, -0.0784313725490196]})",
                       im);
  EXPECT_EQ(out.row(0)[0], 120);
  EXPECT_EQ(out.row(0)[1], 100);
  EXPECT_EQ(out.row(0)[2], 80);
}

}  // namespace
}  // namespace aug::test_rgb_shift
