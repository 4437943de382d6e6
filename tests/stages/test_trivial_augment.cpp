// trivial_augment: its magnitude bins against torchvision's TrivialAugmentWide (written out here), every operation
// against its stage (or cv::warpAffine with torchvision's matrix for the geometric ones) on both backends, the labels
// of its geometric operation and the validation of its parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "lib/core/error.hpp"
#include "tests/stages/policy_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_trivial_augment {
namespace {

using testing::one_stage;
using testing::policy::check_labels;
using testing::policy::check_operations;
using testing::policy::Drawn;
using testing::policy::drawn;
using testing::policy::f32;

TEST(TrivialAugment, DrawsEveryBinOfEveryOperation) {
  const Pipeline p = one_stage(R"({"stage": "trivial_augment"})");
  const Shape s{64, 48, 3, DType::U8};
  std::map<std::string, std::set<double>> magnitudes;
  for (int i = 0; i < 6000; ++i)
    for (const Drawn& d : drawn(p.plan(5, "k" + std::to_string(i), 0, s)))
      magnitudes[d.op].insert(std::fabs(d.magnitude));
  ASSERT_EQ(magnitudes.size(), 14u);
  // torchvision's TrivialAugmentWide: linspace(0, max, 31) and posterize 8 - round(i / 5).
  std::set<double> rotate, shear, posterize, solarize;
  for (int i = 0; i <= 30; ++i) {
    rotate.insert(f32(135.0 * i / 30));
    shear.insert(f32(0.99 * i / 30));
    posterize.insert(8 - std::nearbyint(i / 5.0));
    solarize.insert(f32(255.0 - 255.0 * i / 30));
  }
  EXPECT_EQ(magnitudes["Rotate"], rotate);
  EXPECT_EQ(magnitudes["ShearY"], shear);
  EXPECT_EQ(magnitudes["Brightness"], shear);
  EXPECT_EQ(magnitudes["Posterize"], posterize);
  EXPECT_EQ(magnitudes["Solarize"], solarize);
  EXPECT_EQ(magnitudes["Identity"], std::set<double>{0});
}

TEST(TrivialAugment, EveryOperationIsItsStageOrTheWarpOfTorchvisionsMatrix) {
  check_operations(R"({"stage": "trivial_augment"})", "nearest", 0, 80);
}

TEST(TrivialAugment, LabelsFollowEachGeometricOperationInTurn) {
  int chained = 0;
  ASSERT_NO_FATAL_FAILURE(check_labels(R"({"stage": "trivial_augment"})", {120, 90, 3, DType::U8}, 200, chained));
  EXPECT_EQ(chained, 0) << "one operation per image";
}

TEST(TrivialAugment, ParametersAreValidated) {
  EXPECT_THROW(one_stage(R"({"stage": "trivial_augment", "interpolation": "bicubic"})"), PipelineError);
}

}  // namespace
}  // namespace aug::test_trivial_augment
