// rotate: the manifest's matrix reproduces the output with cv::warpAffine, the matrix is OpenCV's
// getRotationMatrix2D and the angle is drawn uniformly, expand's size is torchvision's formula and a
// turn by a multiple of 90 degrees with expand is cv::rotate's (and the rotate90 stage's) exact turn,
// and error messages name the parameter. Parity, identity and bounds come from the declarations
// (test_catalog.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_rotate {
namespace {

using nlohmann::json;
using testing::from_mat;
using testing::mat;
using testing::geometry::kPi;
using testing::geometry::M3;
using testing::geometry::plan_params;
using testing::geometry::Stats;

TEST(Rotate, ManifestMatrixReproducesTheOutputWithOpenCV) {
  testing::geometry::expect_manifest_reproduces_output(
      "rotate", {{"rotate", R"("angle": [-40, 40])"}, {"rotate expand", R"("angle": [-170, 170], "expand": true)"}});
}

TEST(Rotate, MatrixIsOpenCVsCounterClockwiseRotation) {
  const Shape shape{64, 48, 3, DType::U8};
  for (double a : {30.0, -12.5, 90.0, 181.0}) {
    const Pipeline p = testing::one_stage(R"({"stage": "rotate", "angle": )" + std::to_string(a) + "}");
    const M3 got = plan_params(p, shape, "x").at("matrix").get<M3>();
    const cv::Mat r = cv::getRotationMatrix2D(cv::Point2f(31.5f, 23.5f), a, 1.0);
    for (int k = 0; k < 6; ++k) EXPECT_NEAR(got[k], r.at<double>(k / 3, k % 3), 1e-9) << a << " entry " << k;
  }
  // A centre of its own: the centre stays put.
  const Pipeline p = testing::one_stage(R"({"stage": "rotate", "angle": 33, "center": [5, 7]})");
  const M3 m = plan_params(p, shape, "x").at("matrix").get<M3>();
  EXPECT_NEAR(m[0] * 5 + m[1] * 7 + m[2], 5, 1e-12);
  EXPECT_NEAR(m[3] * 5 + m[4] * 7 + m[5], 7, 1e-12);
  // angle [lo, hi]: uniform.
  const Pipeline q = testing::one_stage(R"({"stage": "rotate", "angle": [-10, 30]})");
  Stats s;
  for (int i = 0; i < 2000; ++i) s.add(plan_params(q, shape, "r" + std::to_string(i)).at("angle"));
  EXPECT_GE(s.lo, -10); EXPECT_LT(s.hi, 30);
  EXPECT_NEAR(s.mean(), 10, 4 * 40 / std::sqrt(12.0) / std::sqrt(2000.0));
}

// ---- expand ---------------------------------------------------------------------------------------

// torchvision's _compute_affine_output_size for a rotation about the centre, in double: the
// corners (+-W/2, +-H/2) rotated, shifted by (W/2, H/2), truncated to 1e-4, ceil(max) - floor(min).
std::pair<int, int> torchvision_expand(int W, int H, double angle) {
  const double r = -angle * kPi / 180;  // rotate passes -angle; the inverse matrix turns by +angle
  const double c = std::cos(r), s = std::sin(r);
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (double x : {-W / 2.0, W / 2.0})
    for (double y : {-H / 2.0, H / 2.0}) {
      const double v[2] = {c * x + s * y, -s * x + c * y};
      for (int k = 0; k < 2; ++k) lo[k] = std::min(lo[k], v[k]), hi[k] = std::max(hi[k], v[k]);
    }
  const double half[2] = {W / 2.0, H / 2.0};
  int size[2];
  for (int k = 0; k < 2; ++k)
    size[k] = static_cast<int>(std::ceil(std::trunc((hi[k] + half[k]) * 1e4) * 1e-4) -
                               std::floor(std::trunc((lo[k] + half[k]) * 1e4) * 1e-4));
  return {size[0], size[1]};
}

TEST(Rotate, ExpandSizeIsTorchvisionsFormula) {
  for (auto [W, H] : {std::pair{512, 512}, {451, 300}, {64, 33}, {7, 100}})
    for (double a : {0.0, 10.0, 30.0, 45.0, 60.0, 90.0, 135.0, 180.0, -37.0, -90.0, 270.0}) {
      const Pipeline p =
          testing::one_stage(R"({"stage": "rotate", "expand": true, "angle": )" + std::to_string(a) + "}");
      const json m = plan_params(p, Shape{W, H, 1, DType::U8}, "e");
      const auto [ew, eh] = torchvision_expand(W, H, a);
      EXPECT_EQ(m.at("width").get<int>(), ew) << W << "x" << H << " angle " << a;
      EXPECT_EQ(m.at("height").get<int>(), eh) << W << "x" << H << " angle " << a;
    }
}

TEST(Rotate, Rotate90WithExpandIsTheExactTurn) {
  const std::pair<double, int> turns[] = {{90, cv::ROTATE_90_COUNTERCLOCKWISE},
                                          {-90, cv::ROTATE_90_CLOCKWISE},
                                          {180, cv::ROTATE_180}};
  for (const char* photo : {"astronaut.jpg", "chelsea.png", "camera.png", "coffee_rgba.png"})
    for (const auto& [angle, code] : turns) {
      // torchvision's size formula gives the turned size exactly when W - H is even (chelsea is 451x300).
      Image in = testing::sample(photo);
      if ((in.width() - in.height()) % 2 != 0) in = from_mat(mat(in)(cv::Rect(0, 0, in.width() - 1, in.height())).clone());
      const Pipeline p = testing::one_stage(R"({"stage": "rotate", "expand": true, "interpolation": "nearest", "angle": )" +
                                            std::to_string(angle) + "}");
      const testing::geometry::WarpRun r = testing::geometry::run_stage(p, in, photo);
      cv::Mat ref;
      cv::rotate(mat(in), ref, code);
      const Image want = from_mat(ref);
      ASSERT_EQ(r.out.shape(), want.shape()) << photo << " " << angle;
      const testing::Diff d = testing::compare(r.out, want);
      EXPECT_EQ(d.count, 0u) << photo << " " << angle << ": " << d.str();
      // and the rotate90 stage's quarter turns (k counter-clockwise) are the same pixels
      const int k = angle == 90 ? 1 : (angle == -90 ? 3 : 2);
      const Image turned = testing::run_cpu(R"({"stage": "rotate90", "k": )" + std::to_string(k) + "}", in);
      EXPECT_EQ(testing::compare(r.out, turned).count, 0u) << photo << " rotate " << angle << " vs rotate90 k " << k;
    }
  // W - H odd: torchvision's formula adds a column and a row (451x300 turned is 301x452).
  const Pipeline p = testing::one_stage(R"({"stage": "rotate", "expand": true, "angle": 90})");
  const json m = plan_params(p, Shape{451, 300, 3, DType::U8}, "odd");
  EXPECT_EQ(m.at("width").get<int>(), 301);
  EXPECT_EQ(m.at("height").get<int>(), 452);
}

// ---- errors name the parameter ----------------------------------------------------------------------

TEST(Rotate, ErrorsNameTheParameter) {
  testing::geometry::expect_errors_name_the_parameter({
      {R"({"stage": "rotate", "angle": 400})", "angle"},
      {R"({"stage": "rotate"})", "angle"},
      {R"({"stage": "rotate", "angle": 3, "expand": 1})", "expand"},
      {R"({"stage": "rotate", "angle": 3, "interpolation": "area"})", "interpolation"},
      {R"({"stage": "rotate", "angle": 3, "center": [1, 2, 3]})", "center"},
  });
}

}  // namespace
}  // namespace aug::test_rotate
