// grid_distortion: the output equals cv::remap with maps rebuilt from the recorded steps by a plain
// transcription of Albumentations' generate_grid (2.x and 1.x's last cell), the normalised steps
// follow normalize_grid_distortion_steps, the steps are drawn uniformly, and errors name the
// parameter. Parity, bounds and the catalog cases come from the declaration (test_catalog.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_grid_distortion {
namespace {

using nlohmann::json;
using testing::from_mat;
using testing::mat;
using testing::geometry::cv_border;
using testing::geometry::cv_interp;
using testing::geometry::plan_params;
using testing::geometry::run_stage;

// Albumentations' generate_grid for one axis, written out: cell i spans [i*step, min(i*step+step,
// size)), numpy.linspace(prev, prev + step*s_i, n) in double, stored as float32.
std::vector<float> reference_axis(const std::vector<double>& steps, int size, bool clamp_last_cell) {
  const int n = static_cast<int>(steps.size()) - 1, step = size / n;
  std::vector<float> xx(static_cast<std::size_t>(size), 0.f);
  double prev = 0;
  for (int i = 0; i <= n; ++i) {
    const int start = i * step;
    int end = start + step;
    double cur = prev + step * steps[static_cast<std::size_t>(i)];
    if (clamp_last_cell && end > size) cur = size;
    end = std::min(end, size);
    const int num = end - start;
    for (int k = 0; k < num; ++k) {
      const double v = num == 1 ? prev : (k == num - 1 ? cur : k * ((cur - prev) / (num - 1)) + prev);
      xx.at(static_cast<std::size_t>(start + k)) = static_cast<float>(v);
    }
    prev = cur;
  }
  return xx;
}

Image reference(const Image& in, const json& m) {
  const auto sx = m.at("steps_x").get<std::vector<double>>(), sy = m.at("steps_y").get<std::vector<double>>();
  const bool clamp = m.at("clamp_last_cell").get<bool>();
  const int w = in.shape().width, h = in.shape().height;
  const std::vector<float> xx = reference_axis(sx, w, clamp), yy = reference_axis(sy, h, clamp);
  cv::Mat mx(h, w, CV_32F), my(h, w, CV_32F);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      mx.at<float>(y, x) = xx.at(static_cast<std::size_t>(x));
      my.at<float>(y, x) = yy.at(static_cast<std::size_t>(y));
    }
  return testing::geometry::remap_from_manifest(in, m, mx, my);
}

TEST(GridDistortion, EqualsRemapWithAlbumentationsMapsOnPhotographs) {
  const auto photos = testing::sampled({"astronaut.jpg", "camera.png", "coffee_rgba.png", "chelsea.png"}, 2);
  std::size_t values = 0, diff = 0;
  for (const char* body : {R"("num_steps": 5, "distort_limit": [-0.3, 0.3])",
                           R"("num_steps": 7, "distort_limit": [-0.5, 0.4], "normalized": false, "clamp_last_cell": true)",
                           R"("num_steps": 13, "distort_limit": [-0.2, 0.2], "normalized": false)"})
    for (const char* interp : {"nearest", "bilinear", "bicubic"})
      for (const char* border : {"constant", "replicate", "reflect", "reflect101", "wrap"}) {
        const Pipeline p = testing::one_stage(std::string(R"({"stage": "grid_distortion", "p": 1, )") + body +
                                              R"(, "interpolation": ")" + interp + R"(", "border": ")" + border +
                                              R"(", "fill": [17, 200, 3, 99]})");
        std::uint32_t copy = 0;
        for (const char* photo : photos) {
          const Image in = testing::sample(photo);
          const auto r = run_stage(p, in, photo, copy++);
          const Image ref = reference(in, r.params);
          const testing::Diff d = testing::compare(r.out, ref);
          EXPECT_EQ(d.count, 0u) << body << " " << interp << " " << border << " " << photo << ": " << d.str();
          values += ref.shape().values();
          diff += d.count;
        }
      }
  std::printf("[ vs OpenCV ] grid_distortion: cv::remap with Albumentations' maps, differing values: %zu of %zu\n",
              diff, values);
}

TEST(GridDistortion, NormalisedStepsEndTheGridAtTheImageEdge) {
  // normalize_grid_distortion_steps: the last step scaled by last/step, then all by
  // (size/step)/sum; so step * sum(steps) == size whatever was drawn.
  for (const Shape s : {Shape{103, 61, 3, DType::U8}, Shape{640, 480, 1, DType::U8}, Shape{17, 29, 1, DType::U8}})
    for (int n : {1, 3, 5, 7}) {
      const Pipeline p = testing::one_stage(R"({"stage": "grid_distortion", "p": 1, "num_steps": )" + std::to_string(n) +
                                            R"(, "distort_limit": [-0.6, 0.6]})");
      for (int i = 0; i < 20; ++i) {
        const json m = plan_params(p, s, "n" + std::to_string(i));
        const auto sx = m.at("steps_x").get<std::vector<double>>(), sy = m.at("steps_y").get<std::vector<double>>();
        ASSERT_EQ(sx.size(), static_cast<std::size_t>(n + 1));
        EXPECT_NEAR((s.width / n) * std::accumulate(sx.begin(), sx.end(), 0.0), s.width, 1e-9 * s.width) << n;
        EXPECT_NEAR((s.height / n) * std::accumulate(sy.begin(), sy.end(), 0.0), s.height, 1e-9 * s.height) << n;
      }
    }
}

TEST(GridDistortion, StepsAreDrawnUniformlyPerCellAndAxis) {
  const Pipeline p = testing::one_stage(R"({"stage": "grid_distortion", "p": 1, "num_steps": 4, "distort_limit": [-0.25, 0.5], "normalized": false})");
  const Shape s{200, 100, 3, DType::U8};
  std::vector<double> all, first_x, first_y;
  for (int i = 0; i < 600; ++i) {
    const json m = plan_params(p, s, "u" + std::to_string(i));
    for (const char* k : {"steps_x", "steps_y"})
      for (double v : m.at(k).get<std::vector<double>>()) all.push_back(v);
    first_x.push_back(m.at("steps_x")[0].get<double>());
    first_y.push_back(m.at("steps_y")[0].get<double>());
  }
  // 1 + U(-0.25, 0.5): Kolmogorov-Smirnov at the 0.1% level (1.95 / sqrt(n)).
  EXPECT_LT(testing::ks_uniform(all, 0.75, 1.5), 1.95 / std::sqrt(static_cast<double>(all.size())));
  EXPECT_LT(testing::ks_uniform(first_x, 0.75, 1.5), 1.95 / std::sqrt(600.0));
  // x and y are separate draws.
  std::size_t same = 0;
  for (std::size_t i = 0; i < first_x.size(); ++i) same += first_x[i] == first_y[i];
  EXPECT_EQ(same, 0u);
}

TEST(GridDistortion, OneXsLastCellEndsAtTheEdge) {
  // 103 = 5 * 20 + 3: the last cell [100, 103) overruns its 20 pixels. 1.x maps it onto [prev, 103].
  const Pipeline p = testing::one_stage(
      R"({"stage": "grid_distortion", "p": 1, "num_steps": 5, "distort_limit": [-0.3, 0.3], "normalized": false, "clamp_last_cell": true, "interpolation": "nearest", "border": "replicate"})");
  Image in(Shape{103, 10, 1, DType::F32});
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 103; ++x) in.view<float>().row(y)[x] = static_cast<float>(x);
  const auto r = run_stage(p, in, "ramp.tif");
  // The last column samples round(103) = 103 -> replicated 102.
  EXPECT_EQ(r.out.view<float>().row(0)[102], 102.f);
  const std::vector<float> xx = reference_axis(r.params.at("steps_x").get<std::vector<double>>(), 103, true);
  EXPECT_EQ(xx[102], 103.f);
}

TEST(GridDistortion, RefusesImagesSmallerThanTheGridAndNamesParameters) {
  const Pipeline p = testing::one_stage(R"({"stage": "grid_distortion", "p": 1, "num_steps": 8})");
  EXPECT_THROW(p.plan(1, "x.png", 0, Shape{7, 100, 3, DType::U8}), InputError);
  testing::geometry::expect_errors_name_the_parameter({{R"({"stage": "grid_distortion", "p": 1, "num_steps": 0})", "num_steps"},
                                                       {R"({"stage": "grid_distortion", "p": 1, "distort_limit": [0.5, 2]})", "distort_limit"},
                                                       {R"({"stage": "grid_distortion", "p": 1, "interpolation": "area"})", "interpolation"}});
}

}  // namespace
}  // namespace aug::test_grid_distortion
