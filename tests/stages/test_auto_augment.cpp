// auto_augment: the sub-policies and their probabilities against torchvision's AutoAugment ImageNet policy (written
// out here), every operation of the SVHN and CIFAR10 policies against its stage (or cv::warpAffine with
// torchvision's matrix for the geometric ones) on both backends, the labels and the validation of its parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "lib/core/error.hpp"
#include "tests/stages/policy_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_auto_augment {
namespace {

using testing::one_stage;
using testing::policy::check_labels;
using testing::policy::check_operations;
using testing::policy::Drawn;
using testing::policy::drawn;

TEST(AutoAugment, SubPoliciesAreDrawnUniformlyAndRunWithTheirProbabilities) {
  const Pipeline p = one_stage(R"({"stage": "auto_augment"})");
  const Shape s{100, 80, 3, DType::U8};
  std::map<int, int> index;
  int first = 0, posterize = 0, rotate = 0;
  const int n = 5000;
  for (int i = 0; i < n; ++i) {
    const Plan plan = p.plan(9, "k" + std::to_string(i), 0, s);
    const int k = plan.record.at(0).at("params").at("sub_policy");
    ++index[k];
    if (k != 0) continue;
    // ImageNet's first sub-policy: (Posterize, 0.4, bin 8), (Rotate, 0.6, bin 9) on 10 bins.
    ++first;
    for (const Drawn& d : drawn(plan)) {
      if (d.op == "Posterize") {
        ++posterize;
        EXPECT_EQ(d.magnitude, 8 - std::nearbyint(8 / 2.25));
      } else {
        ASSERT_EQ(d.op, "Rotate");
        ++rotate;
        EXPECT_NEAR(std::fabs(d.magnitude), 30.0 * 9 / 9, 1e-9);
      }
    }
  }
  ASSERT_EQ(index.size(), 25u);
  for (const auto& [k, c] : index) EXPECT_NEAR(c, n / 25.0, 4 * std::sqrt(n / 25.0)) << "sub-policy " << k;
  EXPECT_NEAR(posterize, 0.4 * first, 4 * std::sqrt(0.24 * first));
  EXPECT_NEAR(rotate, 0.6 * first, 4 * std::sqrt(0.24 * first));
}

TEST(AutoAugment, EveryOperationIsItsStageOrTheWarpOfTorchvisionsMatrix) {
  check_operations(R"({"stage": "auto_augment", "policy": "svhn"})", "nearest", 0, 60);
  check_operations(R"({"stage": "auto_augment", "policy": "cifar10", "fill": 30})", "nearest", 30, 60);
}

TEST(AutoAugment, LabelsFollowEachGeometricOperationInTurn) {
  int chained = 0;
  ASSERT_NO_FATAL_FAILURE(
      check_labels(R"({"stage": "auto_augment", "policy": "svhn"})", {120, 90, 3, DType::U8}, 200, chained));
  EXPECT_GT(chained, 0) << "some sub-policies chain two geometric operations";
}

TEST(AutoAugment, ParametersAreValidated) {
  EXPECT_THROW(one_stage(R"({"stage": "auto_augment", "policy": "mnist"})"), PipelineError);
}

}  // namespace
}  // namespace aug::test_auto_augment
