// Helpers for the auto-augment policy tests (rand_augment, trivial_augment, auto_augment): the operations a plan
// drew, each operation rebuilt without the policy (its stage, or cv::warpAffine with torchvision's matrix for the
// geometric ones), and the checks of the images and labels that every policy shares.
#pragma once

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "tests/stages/stage_runner.hpp"

namespace aug::testing::policy {

// The operations drawn for one image: (name, signed magnitude, recorded params).
struct Drawn {
  std::string op;
  double magnitude;
  nlohmann::json params;
};

inline std::vector<Drawn> drawn(const Plan& plan) {
  std::vector<Drawn> out;
  const nlohmann::json& rec = plan.record.at(0);
  if (rec.contains("skipped")) return out;
  for (const auto& o : rec.at("params").at("ops"))
    out.push_back({o.at("op"), o.at("magnitude"), o.contains("params") ? o.at("params") : nlohmann::json()});
  return out;
}

// v rounded to binary32, as torchvision's magnitude tables hold it.
inline double f32(double v) { return static_cast<double>(static_cast<float>(v)); }

inline bool geometric(const std::string& op) {
  return op == "ShearX" || op == "ShearY" || op == "TranslateX" || op == "TranslateY" || op == "Rotate";
}

// What one operation does, rebuilt without the policy: cv::warpAffine with torchvision's matrix
// (checked against the recorded one) for the geometric operations, the stage itself otherwise.
inline Image expected_result(const Drawn& d, const Image& in, const std::string& interp, double fill) {
  const double m = d.magnitude;
  const double cx = (in.width() - 1) * 0.5, cy = (in.height() - 1) * 0.5;
  if (geometric(d.op)) {
    cv::Mat want;  // forward 2x3, pixel centres at integers
    if (d.op == "ShearX") want = (cv::Mat_<double>(2, 3) << 1, -m, -0.5 * m, 0, 1, 0);
    if (d.op == "ShearY") want = (cv::Mat_<double>(2, 3) << 1, 0, 0, -m, 1, -0.5 * m);
    if (d.op == "TranslateX") want = (cv::Mat_<double>(2, 3) << 1, 0, std::trunc(m), 0, 1, 0);
    if (d.op == "TranslateY") want = (cv::Mat_<double>(2, 3) << 1, 0, 0, 0, 1, std::trunc(m));
    if (d.op == "Rotate")
      want = cv::getRotationMatrix2D(cv::Point2f(static_cast<float>(cx), static_cast<float>(cy)), m, 1);
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

// The policy `stage` on `images` keys of a photograph: the CPU path equal to the kernels and to the drawn
// operations rebuilt one after the other, and most operations drawn.
inline void check_operations(const std::string& stage, const std::string& interp, double fill, int images) {
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

// The labels of the policy `stage` on `images` keys of an image of shape `s`: one motion per geometric operation
// drawn, in turn, each with the recorded matrix, and a mask op exactly when there is a motion. `chained` counts the
// images with two motions or more.
inline void check_labels(const std::string& stage, const Shape& s, int images, int& chained) {
  const Pipeline p = one_stage(stage);
  chained = 0;
  for (int i = 0; i < images; ++i) {
    const Plan plan = p.plan(1, "k" + std::to_string(i), 0, s);
    const std::vector<Motion> motions = plan.steps.at(0).op->motions();
    std::vector<nlohmann::json> matrices;
    for (const Drawn& d : drawn(plan))
      if (geometric(d.op)) matrices.push_back(d.params.at("matrix"));
    ASSERT_EQ(motions.size(), matrices.size());
    for (std::size_t k = 0; k < motions.size(); ++k)
      for (std::size_t e = 0; e < 9; ++e) EXPECT_EQ(motions[k].matrix[e], matrices[k].at(e).get<double>());
    EXPECT_EQ(plan.steps.at(0).op->for_mask(Shape{s.width, s.height, 1, DType::U8}, 0) != nullptr, !motions.empty());
    if (motions.size() >= 2) ++chained;
  }
}

}  // namespace aug::testing::policy
