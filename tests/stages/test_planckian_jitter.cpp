// planckian_jitter: the red and blue ratios of Kornia's blackbody and CIED tables (the float32 values Kornia
// computes from its rows), the clamping, select_from's order and weights, integer images and the grayscale refusal;
// the CPU path against the kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
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

// Albumentations' PlanckianJitter written out: the temperature's coefficients between the rows 500 K
// apart (the table's decimals), and red and blue by albucore's truncating binary32 table.
struct Coeffs {
  double r_w, b_w;
};
Coeffs albumentations_coeffs(bool blackbody, int T) {
  // A few rows of Albumentations' tables, as written there.
  static const std::map<int, std::array<double, 3>> kBlackbody = {
      {5500, {0.5163, 0.4555, 0.4103}}, {6000, {0.4979, 0.4584, 0.4468}}, {6500, {0.4816, 0.4604, 0.4782}},
      {3000, {0.6743, 0.4029, 0.0013}}, {3500, {0.6281, 0.4241, 0.1665}}, {4000, {0.5919, 0.4372, 0.2513}},
      {15000, {0.3503, 0.4653, 0.6933}}};
  static const std::map<int, std::array<double, 3>> kCied = {
      {4000, {0.5829, 0.4421, 0.2288}}, {4500, {0.5510, 0.4514, 0.2948}}, {5000, {0.5246, 0.4576, 0.3488}},
      {8500, {0.4127, 0.4705, 0.5594}},
      {9000, {0.4023, 0.4709, 0.5763}}};
  const auto& table = blackbody ? kBlackbody : kCied;
  const int t0 = T / 500 * 500, t1 = std::min(t0 + 500, 15000);
  std::array<double, 3> c = table.at(t0);
  if (t1 != t0 && T != t0) {
    const double w1 = static_cast<double>(T - t0) / (t1 - t0), w0 = 1 - w1;
    for (int i = 0; i < 3; ++i) c[i] = w0 * table.at(t0)[i] + w1 * table.at(t1)[i];
  }
  return {c[0] / c[1], c[2] / c[1]};
}

TEST(PlanckianJitter, AlbumentationsMethodInterpolatesAndTruncates) {
  const struct {
    const char* stage;
    bool blackbody;
  } cases[] = {
      {R"({"stage": "planckian_jitter", "p": 1, "method": "albumentations", "temperature_range": [5500, 6500]})", true},
      {R"({"stage": "planckian_jitter", "p": 1, "method": "albumentations", "mode": "CIED",
           "temperature_range": [4000, 9000], "sampling_method": "gaussian"})", false}};
  const Image in = testing::random_image({29, 17, 3, DType::U8}, 4);
  int checked = 0;
  for (const auto& c : cases) {
    const Pipeline p = testing::one_stage(c.stage);
    for (int k = 0; k < 40; ++k) {
      const testing::Both b = testing::run_both(p, in, "a" + std::to_string(k) + ".png");
      ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
      const int T = b.plan.record[0]["params"]["temperature"].get<int>();
      const bool tabulated = c.blackbody ? (T >= 5500 && T <= 6500) || T < 4000
                                         : (T >= 4000 && T < 5000) || (T >= 8500 && T <= 9000);
      if (!tabulated) continue;  // outside the rows written above
      const Coeffs w = albumentations_coeffs(c.blackbody, T);
      EXPECT_DOUBLE_EQ(b.plan.record[0]["params"]["r_w"].get<double>(), w.r_w) << T;
      EXPECT_DOUBLE_EQ(b.plan.record[0]["params"]["b_w"].get<double>(), w.b_w) << T;
      for (int i = 0; i < 29 * 17; ++i) {
        const std::uint8_t* s = in.data() + 3 * i;
        const std::uint8_t* o = b.cpu.data() + 3 * i;
        const auto mul = [](int v, double wt) {
          return static_cast<int>(std::min(static_cast<float>(v) * static_cast<float>(wt), 255.0f));
        };
        ASSERT_EQ(o[0], mul(s[0], w.r_w)) << T;
        ASSERT_EQ(o[1], s[1]);
        ASSERT_EQ(o[2], mul(s[2], w.b_w)) << T;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

TEST(PlanckianJitter, AlbumentationsTemperatureDraws) {
  // uniform: below 6000 K 40% of the time, uniform on each side; gaussian: half-normal on each side
  // with a third of the side's span as its deviation.
  const Pipeline u = testing::one_stage(
      R"({"stage": "planckian_jitter", "p": 1, "method": "albumentations", "temperature_range": [3000, 15000]})");
  const Pipeline g = testing::one_stage(R"({"stage": "planckian_jitter", "p": 1, "method": "albumentations",
      "temperature_range": [3000, 15000], "sampling_method": "gaussian"})");
  const int n = 6000;
  int below = 0, g_below = 0;
  double sum_below = 0, sum_above = 0, g_sq_above = 0;
  for (int i = 0; i < n; ++i) {
    const int t = u.plan(2, std::to_string(i), 0, {4, 4, 3, DType::U8}).record[0]["params"]["temperature"].get<int>();
    ASSERT_GE(t, 3000);
    ASSERT_LE(t, 15000);
    if (t < 6000) ++below, sum_below += t;
    else sum_above += t;
    const int tg = g.plan(2, std::to_string(i), 0, {4, 4, 3, DType::U8}).record[0]["params"]["temperature"].get<int>();
    if (tg < 6000) ++g_below;
    else g_sq_above += (tg - 6000.0) * (tg - 6000.0);
  }
  EXPECT_NEAR(below / static_cast<double>(n), 0.4, 0.02);
  EXPECT_NEAR(sum_below / below, 4500, 40);
  EXPECT_NEAR(sum_above / (n - below), 10500, 60);
  EXPECT_NEAR(g_below / static_cast<double>(n), 0.4, 0.02);
  // E[X^2] of the half-normal is sigma^2 = (9000 / 3)^2 (clamping at 15000 cuts 0.3% of it off)
  EXPECT_NEAR(std::sqrt(g_sq_above / (n - g_below)), 3000, 90);
  EXPECT_THROW(testing::one_stage(R"({"stage": "planckian_jitter", "method": "albumentations",
                                      "temperature_range": [7000, 9000]})"),
               PipelineError);
  EXPECT_THROW(testing::one_stage(R"({"stage": "planckian_jitter", "method": "albumentations", "mode": "CIED",
                                      "temperature_range": [3000, 9000]})"),
               PipelineError);
}

}  // namespace
}  // namespace aug::test_planckian_jitter
