// optical_distortion: the output equals cv::remap with maps from a plain transcription of the
// undistortion formula Albumentations gets from cv::initUndistortRectifyMap (its camera, OpenCV's
// default new camera matrix), k is drawn uniformly and the 1.x shift rounded half to even, and
// errors name the parameter. Parity, bounds and the catalog cases come from the declaration.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_optical_distortion {
namespace {

using nlohmann::json;
using testing::from_mat;
using testing::mat;
using testing::geometry::cv_border;
using testing::geometry::cv_interp;
using testing::geometry::plan_params;
using testing::geometry::run_stage;

// The maps: camera K = [[W, 0, W/2 + dx], [0, H, H/2 + dy], [0, 0, 1]] (float32), D = (k, k, 0, 0,
// 0); the new camera is K with the principal point at ((W-1)/2, (H-1)/2). Its inverse here in
// closed form: x = (j - ncx) / fx, y = (i - ncy) / fy, which may differ from OpenCV's cofactor
// inverse in the last bit of a double, far below the float32 the maps are stored in (the test
// counts the values that differ and allows none).
void reference_maps(int w, int h, float k, double dx, double dy, cv::Mat& mx, cv::Mat& my) {
  const double fx = static_cast<float>(w), fy = static_cast<float>(h);
  const double cx = static_cast<float>(w * 0.5 + dx), cy = static_cast<float>(h * 0.5 + dy);
  const double ncx = (w - 1) * 0.5, ncy = (h - 1) * 0.5;
  mx.create(h, w, CV_32F);
  my.create(h, w, CV_32F);
  for (int i = 0; i < h; ++i)
    for (int j = 0; j < w; ++j) {
      const double x = (j - ncx) / fx, y = (i - ncy) / fy;
      const double r2 = x * x + y * y;
      const double s = 1 + k * r2 + k * r2 * r2;
      mx.at<float>(i, j) = static_cast<float>(fx * x * s + cx);
      my.at<float>(i, j) = static_cast<float>(fy * y * s + cy);
    }
}

TEST(OpticalDistortion, EqualsRemapWithTheUndistortionMapsOnPhotographs) {
  const auto photos = testing::sampled({"astronaut.jpg", "camera.png", "coffee_rgba.png", "chelsea.png"}, 2);
  std::size_t values = 0, diff = 0;
  for (const char* body : {R"("distort_limit": [-0.6, 0.6])", R"("distort_limit": [-0.05, 0.05], "shift_limit": [-9, 9])"})
    for (const char* interp : {"nearest", "bilinear", "bicubic"})
      for (const char* border : {"constant", "replicate", "reflect101"}) {
        const Pipeline p = testing::one_stage(std::string(R"({"stage": "optical_distortion", "p": 1, )") + body +
                                              R"(, "interpolation": ")" + interp + R"(", "border": ")" + border +
                                              R"(", "fill": [17, 200, 3, 99]})");
        std::uint32_t copy = 0;
        for (const char* photo : photos) {
          const Image in = testing::sample(photo);
          const auto r = run_stage(p, in, photo, copy++);
          cv::Mat mx, my;
          reference_maps(in.shape().width, in.shape().height, r.params.at("k").get<float>(),
                         r.params.at("dx").get<double>(), r.params.at("dy").get<double>(), mx, my);
          const std::vector<double> f = r.params.at("fill").get<std::vector<double>>();
          cv::Scalar fill;
          for (std::size_t c = 0; c < f.size() && c < 4; ++c) fill[static_cast<int>(c)] = f[c];
          cv::Mat dst;
          cv::remap(mat(in), dst, mx, my, cv_interp(interp), cv_border(border), fill);
          const Image ref = from_mat(dst);
          const testing::Diff d = testing::compare(r.out, ref);
          EXPECT_EQ(d.count, 0u) << body << " " << interp << " " << border << " " << photo << ": " << d.str()
                                 << " " << r.params.dump();
          values += ref.shape().values();
          diff += d.count;
        }
      }
  std::printf("[ vs OpenCV ] optical_distortion: cv::remap with the undistortion maps, differing values: %zu of %zu\n",
              diff, values);
}

// Albumentations 2.x's get_fisheye_distortion_maps, line by line in float32 (numpy's dtype rules: the
// Python floats W/2, H/2, max_radius and k become float32 where they meet a float32 array).
void fisheye_reference(int w, int h, float k, cv::Mat& mx, cv::Mat& my) {
  const double center_x = w / 2.0, center_y = h / 2.0;
  const double max_radius = std::sqrt(std::pow(std::max(center_x, w - center_x), 2) +
                                      std::pow(std::max(center_y, h - center_y), 2));
  mx.create(h, w, CV_32F);
  my.create(h, w, CV_32F);
  for (int i = 0; i < h; ++i)
    for (int j = 0; j < w; ++j) {
      const float x = static_cast<float>(j) - static_cast<float>(center_x);
      const float y = static_cast<float>(i) - static_cast<float>(center_y);
      const float r = std::sqrt(x * x + y * y);
      const float theta = std::atan2(y, x);
      const float r_norm = r / static_cast<float>(max_radius);
      const float r_dist = r * (1.f + k * r_norm * r_norm);
      mx.at<float>(i, j) = r_dist * std::cos(theta) + static_cast<float>(center_x);
      my.at<float>(i, j) = r_dist * std::sin(theta) + static_cast<float>(center_y);
    }
}

TEST(OpticalDistortion, FisheyeEqualsRemapWithAlbumentationsMapsOnPhotographs) {
  const auto photos = testing::sampled({"astronaut.jpg", "camera.png", "coffee_rgba.png", "chelsea.png"}, 2);
  std::size_t values = 0, diff = 0;
  for (const char* limit : {"[-0.5, 0.5]", "[-1, 1]"})
    for (const char* interp : {"nearest", "bilinear", "bicubic"})
      for (const char* border : {"constant", "replicate", "reflect101"}) {
        const Pipeline p = testing::one_stage(std::string(R"({"stage": "optical_distortion", "p": 1, "mode": "fisheye", "distort_limit": )") +
                                              limit + R"(, "interpolation": ")" + interp + R"(", "border": ")" + border +
                                              R"(", "fill": [17, 200, 3, 99]})");
        std::uint32_t copy = 0;
        for (const char* photo : photos) {
          const Image in = testing::sample(photo);
          const auto r = run_stage(p, in, photo, copy++);
          ASSERT_EQ(r.params.at("mode"), "fisheye");
          cv::Mat mx, my;
          fisheye_reference(in.shape().width, in.shape().height, r.params.at("k").get<float>(), mx, my);
          const std::vector<double> f = r.params.at("fill").get<std::vector<double>>();
          cv::Scalar fill;
          for (std::size_t c = 0; c < f.size() && c < 4; ++c) fill[static_cast<int>(c)] = f[c];
          cv::Mat dst;
          cv::remap(mat(in), dst, mx, my, cv_interp(interp), cv_border(border), fill);
          const Image ref = from_mat(dst);
          const testing::Diff d = testing::compare(r.out, ref);
          EXPECT_EQ(d.count, 0u) << limit << " " << interp << " " << border << " " << photo << ": " << d.str();
          values += ref.shape().values();
          diff += d.count;
        }
      }
  std::printf("[ vs OpenCV ] optical_distortion fisheye: cv::remap with Albumentations' maps, differing values: %zu of %zu\n",
              diff, values);
}

TEST(OpticalDistortion, FisheyeKeepsTheCentreAndMovesTheCornersByK) {
  // r' = r (1 + k (r/R)^2): the centre stays, a corner (r = R) samples at r (1 + k).
  const Pipeline p = testing::one_stage(R"({"stage": "optical_distortion", "p": 1, "mode": "fisheye", "distort_limit": 0.5})");
  const Plan plan = p.plan(1, "f.png", 0, Shape{40, 30, 1, DType::U8});
  const auto motion = plan.steps.at(0).op->motion();
  const float* c = motion->sources->data() + 2 * (15 * 40 + 20);
  EXPECT_FLOAT_EQ(c[0], 20.f);
  EXPECT_FLOAT_EQ(c[1], 15.f);
  const float* o = motion->sources->data();  // (0, 0): r = R = 25
  EXPECT_NEAR(o[0], 20 - 20 * 1.5, 1e-3);
  EXPECT_NEAR(o[1], 15 - 15 * 1.5, 1e-3);
}

TEST(OpticalDistortion, ImportsFisheyeMode) {
  const json saved = json::parse(R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [
      {"__class_fullname__": "OpticalDistortion", "distort_limit": [-0.2, 0.3], "mode": "fisheye", "interpolation": 1,
       "border_mode": 0, "fill": 0, "fill_mask": 0, "p": 0.5}]}})");
  const auto st = import_albumentations(saved, "a.json").pipeline["stages"][0];
  EXPECT_EQ(st["stage"], "optical_distortion");
  EXPECT_EQ(st["mode"], "fisheye");
  EXPECT_EQ(st["distort_limit"], nlohmann::ordered_json::array({-0.2, 0.3}));
  // mode given as a word is 2.x: the border defaults to constant there.
  const json bare = json::parse(R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [
      {"__class_fullname__": "OpticalDistortion", "distort_limit": 0.3, "mode": "fisheye", "p": 0.5}]}})");
  EXPECT_EQ(import_albumentations(bare, "a.json").pipeline["stages"][0]["border"], "constant");
  const json bad = json::parse(R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [
      {"__class_fullname__": "OpticalDistortion", "mode": "barrel", "p": 0.5}]}})");
  EXPECT_ANY_THROW(import_albumentations(bad, "a.json"));
}

TEST(OpticalDistortion, DrawsKUniformlyAndRoundsTheShiftHalfToEven) {
  const Shape s{120, 80, 3, DType::U8};
  const Pipeline p = testing::one_stage(R"({"stage": "optical_distortion", "p": 1, "distort_limit": [-0.3, 0.2], "shift_limit": [-2, 2]})");
  std::vector<double> ks;
  int shifts[5] = {0, 0, 0, 0, 0};
  for (int i = 0; i < 1000; ++i) {
    const json m = plan_params(p, s, "k" + std::to_string(i));
    ks.push_back(m.at("k").get<double>());
    for (const char* a : {"dx", "dy"}) {
      const double v = m.at(a).get<double>();
      ASSERT_EQ(v, std::nearbyint(v));
      ASSERT_GE(v, -2);
      ASSERT_LE(v, 2);
      ++shifts[static_cast<int>(v) + 2];
    }
  }
  EXPECT_LT(testing::ks_uniform(ks, -0.3, 0.2), 1.95 / std::sqrt(1000.0));
  // round(U(-2, 2)) half to even: -2 and 2 from a quarter-wide interval each, -1, 0, 1 from whole ones
  // (expected 250, 500, 500, 500, 250 of 2000).
  const double expected[5] = {250, 500, 500, 500, 250};
  double chi2 = 0;
  for (int i = 0; i < 5; ++i) chi2 += (shifts[i] - expected[i]) * (shifts[i] - expected[i]) / expected[i];
  EXPECT_LT(chi2, 18.5);  // chi-square, 4 degrees of freedom, 0.1%
  // 2.x has no shift: none by default.
  const Pipeline q = testing::one_stage(R"({"stage": "optical_distortion", "p": 1})");
  for (int i = 0; i < 20; ++i) {
    const json m = plan_params(q, s, "z" + std::to_string(i));
    EXPECT_EQ(m.at("dx").get<double>(), 0.0);
    EXPECT_EQ(m.at("dy").get<double>(), 0.0);
  }
}

TEST(OpticalDistortion, ZeroKIsAHalfPixelShiftAsInAlbumentations) {
  // OpenCV's default new camera matrix centres the principal point at (W-1)/2 while the camera's
  // is W/2: every map value is the pixel's own position + 0.5.
  Image in(Shape{8, 6, 1, DType::F32});
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 8; ++x) in.view<float>().row(y)[x] = static_cast<float>(10 * y + x);
  const auto r = run_stage(testing::one_stage(R"({"stage": "optical_distortion", "p": 1, "distort_limit": 0, "border": "replicate"})"),
                           in, "z.tif");
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 7; ++x)
      EXPECT_FLOAT_EQ(r.out.view<float>().row(y)[x], 10 * (y + 0.5f) + (x + 0.5f)) << x << "," << y;
}

TEST(OpticalDistortion, ErrorsNameTheParameter) {
  testing::geometry::expect_errors_name_the_parameter(
      {{R"({"stage": "optical_distortion", "p": 1, "distort_limit": [0.5, 20]})", "distort_limit"},
       {R"({"stage": "optical_distortion", "p": 1, "shift_limit": "x"})", "shift_limit"},
       {R"({"stage": "optical_distortion", "p": 1, "border": "mirror"})", "border"},
       {R"({"stage": "optical_distortion", "p": 1, "mode": "barrel"})", "mode"},
       {R"({"stage": "optical_distortion", "p": 1, "mode": "fisheye", "shift_limit": 3})", "shift_limit"}});
}

}  // namespace
}  // namespace aug::test_optical_distortion
