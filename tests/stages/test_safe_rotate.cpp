// safe_rotate: the output equals cv::warpAffine with Albumentations' SafeRotate matrix (built here
// from cv::getRotationMatrix2D, 2.x and 1.3) on the corpus photographs, the manifest's matrix
// reproduces the output with OpenCV under every interpolation and border, the angle is uniform over
// limit (a Kolmogorov-Smirnov test that can fail), and the importer tells 1.x from 2.x.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_safe_rotate {
namespace {

using nlohmann::json;
using testing::from_mat;
using testing::mat;
using testing::geometry::M3;
using testing::geometry::plan_params;

// Albumentations' _create_safe_rotate_matrix, written with OpenCV and numpy's steps: 2.x centres at
// ((W-1)/2, (H-1)/2) and truncates the enclosing size; 1.3 centres at (W/2, H/2) and rounds it up.
cv::Mat albumentations_safe_rotate(double angle, int W, int H, bool v13) {
  const cv::Point2f c = v13 ? cv::Point2f(W / 2.0f, H / 2.0f) : cv::Point2f((W - 1) / 2.0f, (H - 1) / 2.0f);
  cv::Mat r = cv::getRotationMatrix2D(c, angle, 1.0);
  const double cs = std::abs(r.at<double>(0, 0)), sn = std::abs(r.at<double>(0, 1));
  const double ew = H * sn + W * cs, eh = H * cs + W * sn;
  const double nw = v13 ? std::ceil(ew) : std::trunc(ew), nh = v13 ? std::ceil(eh) : std::trunc(eh);
  r.at<double>(0, 2) += nw / 2 - c.x;
  r.at<double>(1, 2) += nh / 2 - c.y;
  cv::Mat s = (cv::Mat_<double>(2, 2) << W / nw, 0, 0, H / nh);
  cv::Mat m = s * r;
  return m;
}

TEST(SafeRotate, EqualsWarpAffineWithAlbumentationsMatrixOnThePhotographs) {
  std::size_t values = 0, differing = 0;
  for (const char* photo : {"astronaut.jpg", "camera.png", "coffee_rgba.png", "chelsea.png"}) {
    const Image in = testing::sample(photo);
    for (const bool v13 : {false, true})
      for (const char* interp : {"nearest", "bilinear", "bicubic"}) {
        const std::string border = v13 ? "reflect101" : "constant";
        const Pipeline p = testing::one_stage(R"({"stage": "safe_rotate", "limit": [-90, 90], "interpolation": ")" +
                                              std::string(interp) + R"(", "border": ")" + border +
                                              R"(", "legacy_1x": )" + (v13 ? "true" : "false") + "}");
        for (std::uint32_t copy = 0; copy < 2; ++copy) {
          const testing::geometry::WarpRun r = testing::geometry::run_stage(p, in, photo, copy);
          const double angle = r.params.at("angle");
          const cv::Mat m = albumentations_safe_rotate(angle, in.width(), in.height(), v13);
          cv::Mat ref;
          cv::warpAffine(mat(in), ref, m, mat(in).size(), testing::geometry::cv_interp(interp),
                         testing::geometry::cv_border(border), cv::Scalar());
          const testing::Diff d = testing::compare(r.out, from_mat(ref));
          EXPECT_EQ(d.count, 0u) << photo << " " << interp << " angle " << angle << (v13 ? " 1.3" : " 2.x") << ": "
                                 << d.str();
          values += ref.total() * ref.channels();
          differing += d.count;
        }
      }
  }
  std::printf("[ vs OpenCV ] safe_rotate (Albumentations' matrix) differing values: %zu of %zu\n", differing, values);
}

TEST(SafeRotate, ManifestMatrixReproducesTheOutputWithOpenCV) {
  testing::geometry::expect_manifest_reproduces_output(
      "safe_rotate", {{"safe_rotate", R"("limit": [-80, 80])"}, {"safe_rotate 1.3", R"("limit": [-80, 80], "legacy_1x": true)"}});
}

TEST(SafeRotate, MatrixIsAlbumentationsAndKeepsTheWholeImage) {
  for (auto [W, H] : {std::pair{64, 48}, {451, 300}, {7, 100}})
    for (double a : {-90.0, -33.0, 0.0, 12.5, 45.0, 89.0})
      for (const bool v13 : {false, true}) {
        const Pipeline p = testing::one_stage(R"({"stage": "safe_rotate", "limit": )" + std::to_string(a) +
                                              R"(, "legacy_1x": )" + (v13 ? "true" : "false") + "}");
        const M3 got = plan_params(p, Shape{W, H, 3, DType::U8}, "m").at("matrix").get<M3>();
        const cv::Mat want = albumentations_safe_rotate(a, W, H, v13);
        for (int k = 0; k < 6; ++k) EXPECT_EQ(got[k], want.at<double>(k / 3, k % 3)) << W << "x" << H << " " << a;
        // The four corners (pixel edges, -0.5 and W - 0.5) land within the frame, give or take 2.x's
        // half-pixel shift and one and a half pixels of the scaled image (the enclosing size truncated
        // or rounded up); unscaled they would not.
        const double cs = std::abs(std::cos(a * testing::geometry::kPi / 180)), sn = std::abs(std::sin(a * testing::geometry::kPi / 180));
        const double tx = 1.5 * W / std::max(1.0, std::trunc(H * sn + W * cs));
        const double ty = 1.5 * H / std::max(1.0, std::trunc(H * cs + W * sn));
        for (double x : {-0.5, W - 0.5})
          for (double y : {-0.5, H - 0.5}) {
            const double ox = got[0] * x + got[1] * y + got[2], oy = got[3] * x + got[4] * y + got[5];
            EXPECT_GE(ox, -0.5 - tx) << W << "x" << H << " " << a;
            EXPECT_LE(ox, W + tx) << W << "x" << H << " " << a;
            EXPECT_GE(oy, -0.5 - ty) << W << "x" << H << " " << a;
            EXPECT_LE(oy, H + ty) << W << "x" << H << " " << a;
          }
      }
  // At 0 degrees 2.x moves the image half a pixel right and down; 1.3 leaves it alone.
  const Pipeline z2 = testing::one_stage(R"({"stage": "safe_rotate", "limit": 0})");
  EXPECT_EQ(plan_params(z2, Shape{40, 30, 1, DType::U8}, "z").at("matrix").get<M3>(), (M3{1, 0, 0.5, 0, 1, 0.5, 0, 0, 1}));
  const Pipeline z1 = testing::one_stage(R"({"stage": "safe_rotate", "limit": 0, "legacy_1x": true})");
  EXPECT_EQ(plan_params(z1, Shape{40, 30, 1, DType::U8}, "z").at("matrix").get<M3>(), (M3{1, 0, 0, 0, 1, 0, 0, 0, 1}));
}

TEST(SafeRotate, AngleIsUniformOverLimit) {
  // Albumentations draws uniform(limit); KS distance at the 99.9% level is 1.95 / sqrt(n).
  const Pipeline p = testing::one_stage(R"({"stage": "safe_rotate", "limit": [-45, 30]})");
  std::vector<double> angles;
  for (int i = 0; i < 4000; ++i) {
    angles.push_back(plan_params(p, Shape{64, 48, 3, DType::U8}, "a" + std::to_string(i)).at("angle"));
    ASSERT_GE(angles.back(), -45);
    ASSERT_LT(angles.back(), 30);
  }
  EXPECT_LT(testing::ks_uniform(angles, -45, 30), 1.95 / std::sqrt(4000.0));
}

json import_safe_rotate(const std::string& transform, const std::string& version = "x") {
  const std::string text =
      R"({"__version__": ")" + version + R"(", "transform": {"__class_fullname__": "Compose", "p": 1.0, "transforms": [)" + transform + "]}}";
  return json::parse(import_albumentations(json::parse(text), "t.json").pipeline["stages"][0].dump());
}

TEST(SafeRotate, ImportTellsAlbumentations13From2x) {
  // 1.3's saved form: value / mask_value, no border_mode given -> reflect101 and the 1.3 matrix.
  const json a = import_safe_rotate(R"({"__class_fullname__": "SafeRotate", "limit": [-45, 45], "interpolation": 0, "value": [1, 2, 3], "mask_value": null, "p": 0.4})");
  EXPECT_EQ(a["stage"], "safe_rotate");
  EXPECT_EQ(a["limit"], json::parse("[-45.0, 45.0]"));
  EXPECT_EQ(a["interpolation"], "nearest");
  EXPECT_EQ(a["border"], "reflect101");
  EXPECT_EQ(a["fill"], json::parse("[1, 2, 3]"));
  EXPECT_EQ(a["legacy_1x"], true);
  // 1.3's limit=30 is [-30, 30].
  EXPECT_EQ(import_safe_rotate(R"({"__class_fullname__": "SafeRotate", "limit": 30})")["limit"], json::parse("[-30.0, 30.0]"));
  // 1.4 (rotate_method, mask_interpolation): the 2.x matrix, border still reflect101 by default.
  const json b = import_safe_rotate(R"({"__class_fullname__": "SafeRotate", "limit": [-10, 10], "rotate_method": "largest_box", "mask_interpolation": 0})");
  EXPECT_FALSE(b.contains("legacy_1x"));
  EXPECT_EQ(b["border"], "reflect101");
  // 2.x (fill, fill_mask): constant border by default.
  const json c = import_safe_rotate(R"({"__class_fullname__": "SafeRotate", "limit": [-10, 10], "fill": 7, "fill_mask": 0})");
  EXPECT_FALSE(c.contains("legacy_1x"));
  EXPECT_EQ(c["border"], "constant");
  EXPECT_EQ(c["fill"], 7);
  // A border_mode given is kept.
  EXPECT_EQ(import_safe_rotate(R"({"__class_fullname__": "SafeRotate", "border_mode": 1})")["border"], "replicate");
  // The file's release decides where the parameters do not: the same bare transform is 1.3's, 1.4's
  // or 2.x's by __version__ (a Python script gives "1.x", "2.x" or "1.x or 2.x").
  const std::string bare = R"({"__class_fullname__": "SafeRotate", "limit": [-10, 10]})";
  EXPECT_EQ(import_safe_rotate(bare, "1.3.1")["legacy_1x"], true);
  EXPECT_EQ(import_safe_rotate(bare, "1.x or 2.x")["legacy_1x"], true);
  const json v14 = import_safe_rotate(bare, "1.4.18");
  EXPECT_FALSE(v14.contains("legacy_1x"));
  EXPECT_EQ(v14["border"], "reflect101");
  const json v2 = import_safe_rotate(bare, "2.x");
  EXPECT_FALSE(v2.contains("legacy_1x"));
  EXPECT_EQ(v2["border"], "constant");
  EXPECT_EQ(import_safe_rotate(bare, "2.0.8")["border"], "constant");
}

TEST(SafeRotate, ErrorsNameTheParameter) {
  testing::geometry::expect_errors_name_the_parameter({
      {R"({"stage": "safe_rotate", "limit": 400})", "limit"},
      {R"({"stage": "safe_rotate", "interpolation": "area"})", "interpolation"},
      {R"({"stage": "safe_rotate", "legacy_1x": 1})", "legacy_1x"},
  });
}

}  // namespace
}  // namespace aug::test_safe_rotate
