// rand_augment: its magnitude bins and draws against torchvision's RandAugment space (written out here), every
// operation against its stage (or cv::warpAffine with torchvision's matrix for the geometric ones) on both backends,
// the labels of chained geometric operations and the validation of its parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "lib/core/error.hpp"
#include "tests/stages/policy_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_rand_augment {
namespace {

using testing::one_stage;
using testing::policy::check_labels;
using testing::policy::check_operations;
using testing::policy::Drawn;
using testing::policy::drawn;
using testing::policy::f32;

TEST(RandAugment, MagnitudesAreBinNineOfTorchvisionsRanges) {
  const Pipeline p = one_stage(R"({"stage": "rand_augment", "num_ops": 1})");
  const Shape s{331, 200, 3, DType::U8};
  // torchvision's RandAugment space at bin 9 of 31 (linspace(0, max, 31)[9] = max * 9 / 30).
  const std::map<std::string, double> expected{
      {"Identity", 0},          {"ShearX", f32(0.09)},       {"ShearY", f32(0.09)},
      {"TranslateX", f32(45)},  {"TranslateY", f32(150.0 / 331.0 * 200 * 0.3)},
      {"Rotate", 9},            {"Brightness", f32(0.27)},   {"Color", f32(0.27)},
      {"Contrast", f32(0.27)},  {"Sharpness", f32(0.27)},    {"Posterize", 7},
      {"Solarize", 255 - 9 * 8.5}, {"AutoContrast", 0},      {"Equalize", 0}};
  std::map<std::string, int> count, negative;
  const int n = 2800;
  for (int i = 0; i < n; ++i) {
    const auto ops = drawn(p.plan(3, "k" + std::to_string(i), 0, s));
    ASSERT_EQ(ops.size(), 1u);
    const Drawn& d = ops[0];
    ASSERT_TRUE(expected.count(d.op)) << d.op;
    EXPECT_NEAR(std::fabs(d.magnitude), expected.at(d.op), 1e-6 * (1 + expected.at(d.op))) << d.op;
    ++count[d.op];
    if (d.magnitude < 0) ++negative[d.op];
  }
  ASSERT_EQ(count.size(), 14u) << "every operation is drawn";
  for (const auto& [op, c] : count) {
    EXPECT_NEAR(c, n / 14.0, 4 * std::sqrt(n / 14.0)) << op << " is drawn uniformly";
    const bool is_signed = expected.at(op) != 0 && op != "Posterize" && op != "Solarize";
    if (is_signed) EXPECT_NEAR(negative[op], c / 2.0, 4 * std::sqrt(c / 4.0)) << op << " is negated half the time";
    else EXPECT_EQ(negative[op], 0) << op;
  }
}

TEST(RandAugment, EveryOperationIsItsStageOrTheWarpOfTorchvisionsMatrix) {
  check_operations(R"({"stage": "rand_augment", "num_ops": 1, "magnitude": 20})", "nearest", 0, 70);
  check_operations(R"({"stage": "rand_augment", "num_ops": 2, "interpolation": "bilinear", "fill": 90})", "bilinear",
                   90, 40);
}

TEST(RandAugment, LabelsFollowEachGeometricOperationInTurn) {
  int chained = 0;
  const std::string stage = R"({"stage": "rand_augment", "num_ops": 4, "magnitude": 15})";
  ASSERT_NO_FATAL_FAILURE(check_labels(stage, {120, 90, 3, DType::U8}, 200, chained));
  EXPECT_GT(chained, 10);
}

TEST(RandAugment, ParametersAreValidated) {
  try {
    one_stage(R"({"stage": "rand_augment", "magnitude": 31})");
    FAIL() << "magnitude 31 of 31 bins must be refused";
  } catch (const PipelineError& e) {
    EXPECT_NE(std::string(e.what()).find("magnitude"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("num_magnitude_bins (31)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aug::test_rand_augment
