// thin_plate_spline: the output equals cv::remap with maps rebuilt from the recorded moved points by
// a plain per-pixel transcription of Albumentations' ThinPlateSpline (cv::log and cv::solve as it
// calls them, its cv::gemm products written out as OpenCV's own gemm sums them), the jitter is normal
// with Albumentations' deviation, the control points are Albumentations' grid, and errors name the
// parameter. Parity, bounds and the catalog cases come from the declaration (test_catalog.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "lib/pipeline/python_import.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_thin_plate_spline {
namespace {

using nlohmann::json;
using testing::from_mat;
using testing::mat;
using testing::geometry::cv_border;
using testing::geometry::cv_interp;
using testing::geometry::plan_params;
using testing::geometry::run_stage;

// generate_control_points: (x, y) rows, float32.
cv::Mat control_points(int n) {
  if (n == 2) return (cv::Mat_<float>(5, 2) << 0, 0, 0, 1, 1, 0, 1, 1, 0.5, 0.5);
  cv::Mat p(n * n, 2, CV_32F);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      p.at<float>(r * n + c, 0) = static_cast<float>(c == n - 1 ? 1.0 : c * (1.0 / (n - 1)));
      p.at<float>(r * n + c, 1) = static_cast<float>(r == n - 1 ? 1.0 : r * (1.0 / (n - 1)));
    }
  return p;
}

// compute_pairwise_distances: p1 . p1 + p2 . p2 - 2 (p1 . p2), float32, the dot product as OpenCV's
// own cv::gemm computes it (products accumulated in double, stored as float32; builds of OpenCV that
// hand large products to a BLAS library accumulate differently).
float pairwise(float px, float py, float qx, float qy) {
  const float pp = px * px + py * py, qq = qx * qx + qy * qy;
  double dot = 0;
  dot += static_cast<double>(px) * qx;
  dot += static_cast<double>(py) * qy;
  return (pp + qq) - 2.f * static_cast<float>(dot);
}

// ThinPlateSpline's get_params_dependent_on_data from the moved points, pixel by pixel.
void reference_maps(int w, int h, int n, const std::vector<float>& moved, cv::Mat& mx, cv::Mat& my) {
  const cv::Mat src = control_points(n);
  const int m = src.rows;
  // compute_tps_weights
  cv::Mat d(m, m, CV_32F), l;
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b)
      d.at<float>(a, b) = pairwise(src.at<float>(a, 0), src.at<float>(a, 1), src.at<float>(b, 0), src.at<float>(b, 1));
  cv::log(d + 1e-6f, l);
  cv::Mat system = cv::Mat::zeros(m + 3, m + 3, CV_32F), target = cv::Mat::zeros(m + 3, 2, CV_32F), weights;
  for (int a = 0; a < m; ++a) {
    for (int b = 0; b < m; ++b) {
      const float v = d.at<float>(a, b);
      system.at<float>(a, b) = v > 0 ? v * v * l.at<float>(a, b) : 0.f;
    }
    const float row[3] = {1.f, src.at<float>(a, 0), src.at<float>(a, 1)};
    for (int c = 0; c < 3; ++c) system.at<float>(a, m + c) = system.at<float>(m + c, a) = row[c];
    target.at<float>(a, 0) = moved[2 * a];
    target.at<float>(a, 1) = moved[2 * a + 1];
  }
  cv::solve(system, target, weights, cv::DECOMP_LU);
  // tps_transform at (x / W, y / H) for every pixel.
  mx.create(h, w, CV_32F);
  my.create(h, w, CV_32F);
  cv::Mat dd(h * w, m, CV_32F), lg;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float px = static_cast<float>(static_cast<double>(x) / w), py = static_cast<float>(static_cast<double>(y) / h);
      for (int k = 0; k < m; ++k)
        dd.at<float>(y * w + x, k) = pairwise(px, py, src.at<float>(k, 0), src.at<float>(k, 1));
    }
  cv::log(dd + 1e-6f, lg);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float px = static_cast<float>(static_cast<double>(x) / w), py = static_cast<float>(static_cast<double>(y) / h);
      float out[2];
      for (int c = 0; c < 2; ++c) {
        double nonlinear = 0;
        for (int k = 0; k < m; ++k) {
          const float v = dd.at<float>(y * w + x, k);
          const float kernel = v > 0 ? v * lg.at<float>(y * w + x, k) : 0.f;
          nonlinear += static_cast<double>(kernel) * weights.at<float>(k, c);
        }
        double affine = 0;
        affine += 1.0 * weights.at<float>(m, c);
        affine += static_cast<double>(px) * weights.at<float>(m + 1, c);
        affine += static_cast<double>(py) * weights.at<float>(m + 2, c);
        out[c] = static_cast<float>(nonlinear) + static_cast<float>(affine);
      }
      mx.at<float>(y, x) = out[0] * static_cast<float>(w);
      my.at<float>(y, x) = out[1] * static_cast<float>(h);
    }
}

Image reference(const Image& in, const json& m) {
  cv::Mat mx, my;
  reference_maps(in.shape().width, in.shape().height, m.at("control_points").get<int>(),
                 m.at("dst").get<std::vector<float>>(), mx, my);
  return testing::geometry::remap_from_manifest(in, m, mx, my);
}

TEST(ThinPlateSpline, EqualsRemapWithAlbumentationsMapsOnPhotographs) {
  const auto photos = testing::sampled({"astronaut.jpg", "camera.png", "coffee_rgba.png", "chelsea.png"}, 2);
  std::size_t values = 0, diff = 0;
  for (const char* body : {R"("scale_range": [0.2, 0.4])", R"("scale_range": [0.3, 0.8], "num_control_points": 2)",
                           R"("scale_range": 0.5, "num_control_points": 6)"})
    for (const char* interp : {"nearest", "bilinear", "bicubic"})
      for (const char* border : {"constant", "replicate", "reflect101"}) {
        const Pipeline p = testing::one_stage(std::string(R"({"stage": "thin_plate_spline", "p": 1, )") + body +
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
  std::printf("[ vs OpenCV ] thin_plate_spline: cv::remap with Albumentations' maps, differing values: %zu of %zu\n",
              diff, values);
}

TEST(ThinPlateSpline, MapsEqualTheTranscriptionBitForBit) {
  // The float maps themselves, through the labels' view of the field (every output pixel's source).
  for (int n : {2, 3, 4, 7}) {
    const Pipeline p = testing::one_stage(R"({"stage": "thin_plate_spline", "p": 1, "scale_range": [0.2, 0.9], )"
                                          R"("num_control_points": )" +
                                          std::to_string(n) + "}");
    const Shape s{97, 61, 3, DType::U8};
    const Plan plan = p.plan(1, "maps.png", 0, s);
    ASSERT_EQ(plan.steps.size(), 1u);
    const auto motion = plan.steps[0].op->motion();
    ASSERT_TRUE(motion.has_value());
    const json m = plan.steps[0].op->params();
    cv::Mat mx, my;
    reference_maps(s.width, s.height, n, m.at("dst").get<std::vector<float>>(), mx, my);
    std::size_t differ = 0;
    for (int y = 0; y < s.height; ++y)
      for (int x = 0; x < s.width; ++x) {
        const float* src = motion->sources->data() + 2 * (static_cast<std::size_t>(y) * s.width + x);
        differ += src[0] != mx.at<float>(y, x) || src[1] != my.at<float>(y, x);
      }
    EXPECT_EQ(differ, 0u) << n;
  }
}

nlohmann::ordered_json import_one(const std::string& transform, const char* version = "2.0.8") {
  const json saved = json::parse(std::string(R"({"__version__": ")") + version +
                                 R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" + transform +
                                 "]}}");
  return import_albumentations(saved, "a.json").pipeline["stages"][0];
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

TEST(ThinPlateSpline, JitterIsNormalWithAlbumentationsDeviation) {
  const Shape s{300, 120, 3, DType::U8};
  const Pipeline p = testing::one_stage(R"({"stage": "thin_plate_spline", "p": 1, "scale_range": [0.1, 0.7]})");
  const cv::Mat grid = control_points(4);
  std::vector<double> z, scales;
  for (int i = 0; i < 300; ++i) {
    const json m = plan_params(p, s, "j" + std::to_string(i));
    const double sc = m.at("scale").get<double>();
    scales.push_back(sc);
    const auto dst = m.at("dst").get<std::vector<float>>();
    ASSERT_EQ(dst.size(), 32u);
    for (int k = 0; k < 16; ++k)
      for (int a = 0; a < 2; ++a) z.push_back((dst[2 * k + a] - grid.at<float>(k, a)) / (sc / 10));
  }
  std::sort(z.begin(), z.end());
  const double n = static_cast<double>(z.size());
  double d = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    const double f = normal_cdf(z[i]);
    d = std::max({d, f - i / n, (i + 1) / n - f});
  }
  EXPECT_LT(d, 1.95 / std::sqrt(n));
  EXPECT_LT(testing::ks_uniform(scales, 0.1, 0.7), 1.95 / std::sqrt(300.0));
}

TEST(ThinPlateSpline, ImportsAlbumentations) {
  const auto st = import_one(R"({"__class_fullname__": "ThinPlateSpline", "scale_range": [0.1, 0.3],
      "num_control_points": 5, "interpolation": 2, "border_mode": 1, "fill": 0, "fill_mask": 0, "p": 0.4})");
  EXPECT_EQ(st["stage"], "thin_plate_spline");
  EXPECT_EQ(st["scale_range"], nlohmann::ordered_json::array({0.1, 0.3}));
  EXPECT_EQ(st["num_control_points"], 5);
  EXPECT_EQ(st["interpolation"], "bicubic");
  EXPECT_EQ(st["border"], "replicate");
  EXPECT_EQ(st["p"], 0.4);
  const auto d = import_one(R"({"__class_fullname__": "ThinPlateSpline"})");
  EXPECT_EQ(d["scale_range"], nlohmann::ordered_json::array({0.2, 0.4}));
  EXPECT_EQ(d["num_control_points"], 4);
  EXPECT_EQ(d["border"], "constant");
  EXPECT_EQ(d["p"], 0.5);
}

TEST(ThinPlateSpline, ImportsPositionalPythonArguments) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "augment-test-thin-plate-spline";
  std::filesystem::create_directories(dir);
  const std::string py = (dir / "t.py").string();
  testing::write_text(py, "import albumentations as A\n"
                          "t = A.Compose([A.ThinPlateSpline((0.1, 0.2), 3, 0, border_mode=4, p=1)])\n");
  const auto imported = import_albumentations_python(py, "");
  const auto& st = imported.pipeline["stages"][0];
  EXPECT_EQ(st["stage"], "thin_plate_spline");
  EXPECT_EQ(st["scale_range"], nlohmann::ordered_json::array({0.1, 0.2}));
  EXPECT_EQ(st["num_control_points"], 3);
  EXPECT_EQ(st["interpolation"], "nearest");
  EXPECT_EQ(st["border"], "reflect101");
  std::filesystem::remove_all(dir);
}

TEST(ThinPlateSpline, ErrorsNameTheParameter) {
  testing::geometry::expect_errors_name_the_parameter(
      {{R"({"stage": "thin_plate_spline", "p": 1, "num_control_points": 1})", "num_control_points"},
       {R"({"stage": "thin_plate_spline", "p": 1, "scale_range": [0.2, 1.5]})", "scale_range"},
       {R"({"stage": "thin_plate_spline", "p": 1, "interpolation": "area"})", "interpolation"}});
}

}  // namespace
}  // namespace aug::test_thin_plate_spline
