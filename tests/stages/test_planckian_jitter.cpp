// planckian_jitter: the red and blue ratios of Kornia's blackbody and CIED tables (the float32 values Kornia
// computes from its rows), the clamping, select_from's order and weights, integer images and the grayscale refusal;
// the CPU path against the kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "lib/core/error.hpp"
#include "tests/stages/stage_runner.hpp"
#include "tests/stages/unit_range_support.hpp"

namespace aug::test_planckian_jitter {
namespace {

using testing::compare;
using testing::unit_range::constant;
using testing::unit_range::fval;

TEST(PlanckianJitter, MultipliesRedAndBlueByTheRowsRatios) {
  // Rows of Kornia's table with the float32 ratios Kornia computes from them.
  struct Row {
    const char* mode;
    int index;
    double r_g, b_g;
  };
  for (const Row& r : {Row{"blackbody", 0, 1.673616, 0.003227}, Row{"blackbody", 12, 0.908563, 1.257315},
                       Row{"blackbody", 24, 0.752848, 1.490006}, Row{"CIED", 5, 0.997215, 0.997215},
                       Row{"CIED", 22, 0.681712, 1.458360}}) {
    const std::string stage = std::string(R"({"stage": "planckian_jitter", "p": 1, "mode": ")") + r.mode +
                              R"(", "select_from": [)" + std::to_string(r.index) + "]}";
    Image in = constant({2, 1, 3, DType::F32}, 0.5);
    reinterpret_cast<float*>(in.data())[3] = 0.9f;   // second pixel: red 0.9, clamped at 1 by large ratios
    reinterpret_cast<float*>(in.data())[5] = -0.2f;  // and blue below 0: no lower clamp
    Image bright = constant({1, 1, 3, DType::F32}, 1.5);  // every channel, green too, is clamped at 1
    const Image clamped = testing::run_cpu(stage, bright);
    EXPECT_EQ(fval(clamped, 0, 0, 1), 1.f);
    const testing::Both b = testing::run_both(testing::one_stage(stage), in);
    EXPECT_EQ(b.plan.record[0]["params"]["row"], r.index);
    EXPECT_NEAR(fval(b.cpu, 0, 0, 0), 0.5 * r.r_g, 1e-6) << r.mode << " " << r.index;
    EXPECT_EQ(fval(b.cpu, 0, 0, 1), 0.5f);
    EXPECT_NEAR(fval(b.cpu, 0, 0, 2), 0.5 * r.b_g, 1e-6);
    EXPECT_NEAR(fval(b.cpu, 1, 0, 0), std::min(1.0, 0.9 * r.r_g), 1e-6);
    EXPECT_NEAR(fval(b.cpu, 1, 0, 2), -0.2 * r.b_g, 1e-6);
    EXPECT_EQ(fval(b.cpu, 1, 0, 1), 0.5f);
    EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
  }
}

TEST(PlanckianJitter, SelectFromOrderAndRepetitionWeight) {
  const Pipeline p = testing::one_stage(R"({"stage": "planckian_jitter", "p": 1, "select_from": [3, 3, 20]})");
  std::map<int, int> seen;
  for (int i = 0; i < 3000; ++i)
    ++seen[p.plan(1, std::to_string(i), 0, {4, 4, 3, DType::U8}).record[0]["params"]["row"].get<int>()];
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_NEAR(seen[3] / 3000.0, 2.0 / 3, 0.03);
  EXPECT_THROW(testing::one_stage(R"({"stage": "planckian_jitter", "mode": "CIED", "select_from": [23]})"),
               PipelineError);
}

TEST(PlanckianJitter, IntegerImagesAndGrayscale) {
  Image in({1, 1, 4, DType::U8});
  const std::uint8_t px[] = {100, 90, 200, 33};
  std::copy(px, px + 4, in.data());
  const Image out = testing::run_cpu(R"({"stage": "planckian_jitter", "p": 1, "select_from": [24]})", in);
  EXPECT_EQ(out.data()[0], std::nearbyint(100 / 255.0 * 0.752848 * 255));  // 75.28 -> 75
  EXPECT_EQ(out.data()[1], 90);
  EXPECT_EQ(out.data()[2], 255);  // 200 * 1.49 > 255: clamped
  EXPECT_EQ(out.data()[3], 33);
  const Pipeline p = testing::one_stage(R"({"stage": "planckian_jitter", "p": 1})");
  try {
    p.plan(0, "g.png", 0, {4, 4, 1, DType::U8});
    FAIL() << "a grayscale image must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("planckian_jitter (/stages/0) needs 3 or 4 channels"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace aug::test_planckian_jitter
