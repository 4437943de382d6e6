// The auto-augment policies: their magnitude bins and draws against torchvision's definitions
// (written out here), every operation against its stage (or cv::warpAffine for the geometric ones)
// on both backends, the sub-policies, labels and validation.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

// The operations drawn for one image: (name, signed magnitude, recorded params).
struct Drawn {
  std::string op;
  double magnitude;
  nlohmann::json params;
};
std::vector<Drawn> drawn(const Plan& plan) {
  std::vector<Drawn> out;
  const nlohmann::json& rec = plan.record.at(0);
  if (rec.contains("skipped")) return out;
  for (const auto& o : rec.at("params").at("ops"))
    out.push_back({o.at("op"), o.at("magnitude"), o.contains("params") ? o.at("params") : nlohmann::json()});
  return out;
}

double f32(double v) { return static_cast<double>(static_cast<float>(v)); }

bool geometric(const std::string& op) {
  return op == "ShearX" || op == "ShearY" || op == "TranslateX" || op == "TranslateY" || op == "Rotate";
}

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

// What one operation does, rebuilt without the policy: cv::warpAffine with torchvision's matrix
// (checked against the recorded one) for the geometric operations, the stage itself otherwise.
Image expected_result(const Drawn& d, const Image& in, const std::string& interp, double fill) {
  const double m = d.magnitude;
  const double cx = (in.width() - 1) * 0.5, cy = (in.height() - 1) * 0.5;
  if (geometric(d.op)) {
    cv::Mat want;  // forward 2x3, pixel centres at integers
    if (d.op == "ShearX") want = (cv::Mat_<double>(2, 3) << 1, -m, -0.5 * m, 0, 1, 0);
    if (d.op == "ShearY") want = (cv::Mat_<double>(2, 3) << 1, 0, 0, -m, 1, -0.5 * m);
    if (d.op == "TranslateX") want = (cv::Mat_<double>(2, 3) << 1, 0, std::trunc(m), 0, 1, 0);
    if (d.op == "TranslateY") want = (cv::Mat_<double>(2, 3) << 1, 0, 0, 0, 1, std::trunc(m));
    if (d.op == "Rotate") want = cv::getRotationMatrix2D(cv::Point2f(static_cast<float>(cx), static_cast<float>(cy)), m, 1);
    const auto& rec = d.params.at("matrix");
    cv::Mat got(2, 3, CV_64F);
    for (int i = 0; i < 6; ++i) got.at<double>(i / 3, i % 3) = rec.at(static_cast<std::size_t>(i));
    EXPECT_LT(cv::norm(got, want, cv::NORM_INF), 1e-9) << d.op << " " << m;
    Image out(in.shape());
    cv::Mat dst = testing::mat(out);
    cv::warpAffine(testing::mat(in), dst, got, dst.size(), interp == "nearest" ? cv::INTER_NEAREST : cv::INTER_LINEAR,
                   cv::BORDER_CONSTANT, cv::Scalar::all(fill));
    return out;
  }
  const auto one = [&](nlohmann::json stage) {
    stage["p"] = 1;
    return testing::run_cpu(stage.dump(), in);
  };
  const double f = 1.0 + m;
  if (d.op == "Brightness") return one({{"stage", "color_jitter"}, {"brightness", {f, f}}});
  if (d.op == "Color") return one({{"stage", "color_jitter"}, {"saturation", {f, f}}});
  if (d.op == "Contrast") return one({{"stage", "color_jitter"}, {"contrast", {f, f}}});
  if (d.op == "Sharpness") return one({{"stage", "sharpness"}, {"factor", f}});
  if (d.op == "Posterize") return one({{"stage", "posterize"}, {"bits", static_cast<int>(m)}});
  if (d.op == "Solarize") return one({{"stage", "solarize"}, {"threshold", m / 255.0}});
  if (d.op == "AutoContrast") return one({{"stage", "autocontrast"}});
  if (d.op == "Equalize") return one({{"stage", "equalize"}});
  if (d.op == "Invert") return one({{"stage", "invert"}});
  return in.clone();  // Identity
}

void check_operations(const std::string& stage, const std::string& interp, double fill, int images) {
  const Pipeline p = one_stage(stage);
  const Image in = testing::sample("chelsea.png");
  std::set<std::string> seen;
  for (int i = 0; i < images; ++i) {
    const auto b = run_both(p, in, "k" + std::to_string(i));
    EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << stage << " image " << i;
    Image want = in.clone();
    for (const Drawn& d : drawn(b.plan)) {
      want = expected_result(d, want, interp, fill);
      seen.insert(d.op);
    }
    EXPECT_EQ(compare(b.cpu, want).count, 0u) << stage << " image " << i << ": " << b.plan.record.dump();
  }
  EXPECT_GE(seen.size(), 10u) << stage << ": the images drew most operations";
}

TEST(RandAugment, EveryOperationIsItsStageOrTheWarpOfTorchvisionsMatrix) {
  check_operations(R"({"stage": "rand_augment", "num_ops": 1, "magnitude": 20})", "nearest", 0, 70);
  check_operations(R"({"stage": "rand_augment", "num_ops": 2, "interpolation": "bilinear", "fill": 90})", "bilinear",
                   90, 40);
}

TEST(TrivialAugment, DrawsEveryBinOfEveryOperation) {
  const Pipeline p = one_stage(R"({"stage": "trivial_augment"})");
  const Shape s{64, 48, 3, DType::U8};
  std::map<std::string, std::set<double>> magnitudes;
  for (int i = 0; i < 6000; ++i)
    for (const Drawn& d : drawn(p.plan(5, "k" + std::to_string(i), 0, s))) magnitudes[d.op].insert(std::fabs(d.magnitude));
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

TEST(Policies, LabelsFollowEachGeometricOperationInTurn) {
  const Pipeline p = one_stage(R"({"stage": "rand_augment", "num_ops": 4, "magnitude": 15})");
  const Shape s{120, 90, 3, DType::U8};
  int chained = 0;
  for (int i = 0; i < 200; ++i) {
    const Plan plan = p.plan(1, "k" + std::to_string(i), 0, s);
    const std::vector<Motion> motions = plan.steps.at(0).op->motions();
    std::vector<nlohmann::json> matrices;
    for (const Drawn& d : drawn(plan))
      if (geometric(d.op)) matrices.push_back(d.params.at("matrix"));
    ASSERT_EQ(motions.size(), matrices.size());
    for (std::size_t k = 0; k < motions.size(); ++k)
      for (std::size_t e = 0; e < 9; ++e) EXPECT_EQ(motions[k].matrix[e], matrices[k].at(e).get<double>());
    EXPECT_EQ(plan.steps.at(0).op->for_mask(Shape{120, 90, 1, DType::U8}, 0) != nullptr, !motions.empty());
    if (motions.size() >= 2) ++chained;
  }
  EXPECT_GT(chained, 10);
}

TEST(Policies, ParametersAreValidated) {
  try {
    one_stage(R"({"stage": "rand_augment", "magnitude": 31})");
    FAIL() << "magnitude 31 of 31 bins must be refused";
  } catch (const PipelineError& e) {
    EXPECT_NE(std::string(e.what()).find("magnitude"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("num_magnitude_bins (31)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(one_stage(R"({"stage": "auto_augment", "policy": "mnist"})"), PipelineError);
  EXPECT_THROW(one_stage(R"({"stage": "trivial_augment", "interpolation": "bicubic"})"), PipelineError);
}

}  // namespace
}  // namespace aug
