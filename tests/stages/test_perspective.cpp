// perspective: the manifest's matrix reproduces the output with cv::warpPerspective, the corners are
// drawn as torchvision v2 draws them (computed here independently) and the matrix is
// cv::getPerspectiveTransform's, and error messages name the parameter. Parity, identity and bounds
// come from the declarations (test_catalog.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using nlohmann::json;
using testing::geometry::M3;
using testing::geometry::plan_params;
using testing::geometry::Stats;

TEST(Perspective, ManifestMatrixReproducesTheOutputWithOpenCV) {
  testing::geometry::expect_manifest_reproduces_output("perspective",
                                                       {{"perspective", R"("distortion_scale": [0.2, 0.8])"}});
}

TEST(Perspective, CornersFollowTorchvision) {
  for (const auto& [W, H, d] : {std::tuple{101, 77, 0.5}, std::tuple{64, 33, 0.9}, std::tuple{10, 9, 0.2}}) {
    const Shape shape{W, H, 3, DType::U8};
    const Pipeline p = testing::one_stage(R"({"stage": "perspective", "distortion_scale": )" + std::to_string(d) + "}");
    // torchvision: bound = int(d * (size // 2)) + 1; randint(lo, hi) excludes hi.
    const int bw = static_cast<int>(d * (W / 2)) + 1, bh = static_cast<int>(d * (H / 2)) + 1;
    const int lo_x[4] = {0, W - bw, W - bw, 0}, lo_y[4] = {0, 0, H - bh, H - bh};
    const double start[4][2] = {{0, 0}, {W - 1.0, 0}, {W - 1.0, H - 1.0}, {0, H - 1.0}};
    Stats sx[4], sy[4];
    int degenerate = 0;
    const int N = 2000;
    for (int i = 0; i < N; ++i) {
      const json m = plan_params(p, shape, "p" + std::to_string(i));
      const json corners = m.at("corners");
      ASSERT_EQ(corners.size(), 4u);
      const M3 h = m.at("matrix").get<M3>();
      std::vector<cv::Point2f> src, dst;
      for (int c = 0; c < 4; ++c) {
        ASSERT_TRUE(corners[c][0].is_number_integer() && corners[c][1].is_number_integer());
        const double x = corners[c][0], y = corners[c][1];
        sx[c].add(x), sy[c].add(y);
        src.emplace_back(static_cast<float>(start[c][0]), static_cast<float>(start[c][1]));
        dst.emplace_back(static_cast<float>(x), static_cast<float>(y));
        // The forward matrix sends the input corner to the drawn one (unless three drawn corners are
        // on a line: the matrix is then singular, as cv::getPerspectiveTransform's, and one corner
        // has no image).
        const double w = h[6] * start[c][0] + h[7] * start[c][1] + h[8];
        if (std::fabs(w) < 1e-9) {
          ++degenerate;
          continue;
        }
        EXPECT_NEAR((h[0] * start[c][0] + h[1] * start[c][1] + h[2]) / w, x, 1e-6);
        EXPECT_NEAR((h[3] * start[c][0] + h[4] * start[c][1] + h[5]) / w, y, 1e-6);
      }
      const cv::Mat ref = cv::getPerspectiveTransform(src, dst);
      for (int k = 0; k < 9; ++k) ASSERT_NEAR(h[k], ref.at<double>(k / 3, k % 3), 1e-9) << m.dump();
    }
    EXPECT_LT(degenerate, N / 50) << W << "x" << H;
    for (int c = 0; c < 4; ++c) {
      EXPECT_EQ(sx[c].lo, lo_x[c]) << W << "x" << H << " corner " << c;
      EXPECT_EQ(sx[c].hi, lo_x[c] + bw - 1) << W << "x" << H << " corner " << c;
      EXPECT_EQ(sy[c].lo, lo_y[c]) << W << "x" << H << " corner " << c;
      EXPECT_EQ(sy[c].hi, lo_y[c] + bh - 1) << W << "x" << H << " corner " << c;
      // Discrete uniform over bw values: mean lo + (bw - 1) / 2, sd sqrt((bw^2 - 1) / 12).
      EXPECT_NEAR(sx[c].mean(), lo_x[c] + (bw - 1) / 2.0, 4 * std::sqrt((bw * bw - 1) / 12.0 / N) + 1e-12);
      EXPECT_NEAR(sy[c].mean(), lo_y[c] + (bh - 1) / 2.0, 4 * std::sqrt((bh * bh - 1) / 12.0 / N) + 1e-12);
    }
  }
}

// ---- errors name the parameter ----------------------------------------------------------------------

TEST(Perspective, ErrorsNameTheParameter) {
  testing::geometry::expect_errors_name_the_parameter({
      {R"({"stage": "perspective", "distortion_scale": 1.5})", "distortion_scale"},
      {R"({"stage": "perspective", "border": "mirror"})", "border"},
      {R"({"stage": "perspective", "fill": "white"})", "fill"},
  });
}

}  // namespace
}  // namespace aug
