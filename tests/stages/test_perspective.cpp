// perspective: the manifest's matrix reproduces the output with cv::warpPerspective, the corners are
// drawn as torchvision v2 draws them (computed here independently) and the matrix is
// cv::getPerspectiveTransform's; with `scale`, Albumentations 2.x's Perspective: the image equals
// cv::warpPerspective with the matrix rebuilt here from the recorded corners (keep_size, fit_output),
// the corner offsets follow |N(0, s)| mod 0.32 and s ~ U(scale); the imports of Perspective and
// IAAPerspective; error messages name the parameter. Parity, identity and bounds come from the
// declarations (test_catalog.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "lib/pipeline/python_import.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_perspective {
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

// ---- Albumentations' parametrisation (scale) ----------------------------------------------------------

TEST(Perspective, AlbumentationsManifestMatrixReproducesTheOutputWithOpenCV) {
  testing::geometry::expect_manifest_reproduces_output(
      "perspective", {{"albu", R"("scale": [0.05, 0.1])"},
                      {"albu-fit", R"("scale": [0.1, 0.2], "fit_output": true)"},
                      {"albu-raw", R"("scale": 0.15, "keep_size": false)"}});
}

// Albumentations 2.x's matrix and output size, rebuilt with OpenCV from the recorded (ordered,
// binary32) corners: compute_perspective_params, expand_transform, the keep_size scaling. The stage
// solves cv::getPerspectiveTransform's system as OpenCV does, so the matrices agree to the bit.
struct AlbuWarp {
  cv::Mat matrix;
  int width = 0, height = 0, max_w = 0, max_h = 0;
};
AlbuWarp albumentations_warp(const json& corners, int W, int H, bool keep_size, bool fit_output) {
  std::vector<cv::Point2f> quad;
  for (int c = 0; c < 4; ++c)
    quad.emplace_back(static_cast<float>(corners[c][0].get<double>()), static_cast<float>(corners[c][1].get<double>()));
  auto side = [&](int a, int b) { return std::sqrt((quad[a].x - quad[b].x) * (quad[a].x - quad[b].x) +
                                                   (quad[a].y - quad[b].y) * (quad[a].y - quad[b].y)); };
  AlbuWarp r;
  r.max_w = static_cast<int>(std::max(side(1, 0), side(2, 3)));
  r.max_h = static_cast<int>(std::max(side(2, 1), side(3, 0)));
  const std::vector<cv::Point2f> rect{{0.f, 0.f}, {float(W), 0.f}, {float(W), float(H)}, {0.f, float(H)}};
  cv::Mat m = cv::getPerspectiveTransform(quad, rect);
  if (fit_output) {
    std::vector<cv::Point2f> dst;
    cv::perspectiveTransform(rect, dst, m);
    float lx = dst[0].x, ly = dst[0].y;
    for (const auto& p : dst) lx = std::min(lx, p.x), ly = std::min(ly, p.y);
    float hx = 0, hy = 0;
    for (auto& p : dst) {
      p.x = std::nearbyint(p.x - lx), p.y = std::nearbyint(p.y - ly);  // np.around: half to even
      hx = std::max(hx, p.x), hy = std::max(hy, p.y);
    }
    m = cv::getPerspectiveTransform(rect, dst);
    r.max_w = static_cast<int>(hx), r.max_h = static_cast<int>(hy);
  }
  if (keep_size) {
    const cv::Mat scale = (cv::Mat_<double>(3, 3) << double(W) / r.max_w, 0, 0, 0, double(H) / r.max_h, 0, 0, 0, 1);
    m = scale * m;
    r.width = W, r.height = H;
  } else {
    r.width = r.max_w, r.height = r.max_h;
  }
  r.matrix = m;
  return r;
}

TEST(Perspective, AlbumentationsOutputEqualsOpenCVFromTheCorners) {
  const auto photos = testing::sampled({"astronaut.jpg", "camera.png", "coffee_rgba.png", "chelsea.png"}, 2);
  std::size_t values = 0, diff = 0;
  for (const auto& [keep, fit] : {std::pair{true, false}, std::pair{true, true}, std::pair{false, false},
                                  std::pair{false, true}}) {
    const std::string body = std::string(R"({"stage": "perspective", "scale": [0.05, 0.15], "keep_size": )") +
                             (keep ? "true" : "false") + R"(, "fit_output": )" + (fit ? "true" : "false") +
                             R"(, "border": "reflect101"})";
    const Pipeline p = testing::one_stage(body);
    std::uint32_t copy = 0;
    for (const char* photo : photos) {
      const Image in = testing::sample(photo);
      const auto r = testing::geometry::run_stage(p, in, photo, copy++);
      const int W = in.shape().width, H = in.shape().height;
      const AlbuWarp ref = albumentations_warp(r.params.at("corners"), W, H, keep, fit);
      EXPECT_EQ(r.params.at("max_width"), ref.max_w) << body << " " << photo;
      EXPECT_EQ(r.params.at("max_height"), ref.max_h) << body << " " << photo;
      const M3 h = r.params.at("matrix").get<M3>();
      for (int k = 0; k < 9; ++k)
        EXPECT_EQ(h[k], ref.matrix.at<double>(k / 3, k % 3)) << k << " " << body << " " << photo;  // to the bit
      cv::Mat out;
      cv::warpPerspective(testing::mat(in), out, ref.matrix, cv::Size(ref.width, ref.height), cv::INTER_LINEAR,
                          cv::BORDER_REFLECT_101);
      ASSERT_EQ(r.out.shape(), testing::from_mat(out).shape()) << body << " " << photo;
      const testing::Diff d = testing::compare(r.out, testing::from_mat(out));
      EXPECT_EQ(d.count, 0u) << body << " " << photo << ": " << d.str();
      values += r.out.shape().values();
      diff += d.count;
    }
  }
  std::printf("[ vs OpenCV ] perspective (scale) from the corners: differing values %zu of %zu\n", diff, values);
}

// P(|N(0, s)| mod m <= x) for x in [0, m): the folded normal wrapped onto [0, m).
double folded_mod_cdf(double x, double s, double m) {
  auto phi = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  double f = 0;
  for (int k = 0; k * m < 12 * s; ++k) f += 2 * (phi((k * m + x) / s) - phi(k * m / s));
  return f;
}

TEST(Perspective, AlbumentationsCornerOffsetsAreFoldedNormalsModulo032) {
  const int W = 1000, H = 800, N = 1500;
  const double s = 0.2;  // P(|N(0, s)| > 0.32) = 11%: the wrap shows
  const Pipeline p = testing::one_stage(R"({"stage": "perspective", "scale": 0.2})");
  std::vector<double> off;
  for (int i = 0; i < N; ++i) {
    const json c = plan_params(p, Shape{W, H, 3, DType::U8}, "a" + std::to_string(i)).at("corners");
    // The offsets of tl, tr, br, bl (ordering keeps them: they stay in their own third of the image).
    const double o[8] = {c[0][0].get<double>() / W,     c[0][1].get<double>() / H, 1 - c[1][0].get<double>() / W,
                         c[1][1].get<double>() / H,     1 - c[2][0].get<double>() / W, 1 - c[2][1].get<double>() / H,
                         c[3][0].get<double>() / W,     1 - c[3][1].get<double>() / H};
    for (double v : o) {
      ASSERT_GE(v, -1e-6);
      ASSERT_LT(v, 0.32 + 1e-6);
      off.push_back(v);
    }
  }
  std::sort(off.begin(), off.end());
  const double n = static_cast<double>(off.size());
  double ks = 0, ks_unwrapped = 0;
  for (std::size_t i = 0; i < off.size(); ++i) {
    const double f = folded_mod_cdf(off[i], s, 0.32), g = folded_mod_cdf(off[i], s, 1.0);
    ks = std::max({ks, f - i / n, (i + 1) / n - f});
    ks_unwrapped = std::max({ks_unwrapped, g - i / n, (i + 1) / n - g});
  }
  const double crit = 1.95 / std::sqrt(n);  // 0.1% level
  EXPECT_LT(ks, crit);
  // The test can fail: the same offsets without the wrap at 0.32 (Albumentations 1.x's mod 1) are far.
  EXPECT_GT(ks_unwrapped, crit);

  // s ~ U(scale), one per image.
  const Pipeline q = testing::one_stage(R"({"stage": "perspective", "scale": [0.05, 0.3]})");
  std::vector<double> scales;
  for (int i = 0; i < N; ++i) scales.push_back(plan_params(q, Shape{64, 48, 3, DType::U8}, "b" + std::to_string(i)).at("scale"));
  const double crit_s = 1.95 / std::sqrt(static_cast<double>(N));
  EXPECT_LT(testing::ks_uniform(scales, 0.05, 0.3), crit_s);
  // The test can fail: a range a fifth wider is far outside.
  EXPECT_GT(testing::ks_uniform(scales, 0.05, 0.35), crit_s);
}

TEST(Perspective, AlbumentationsTinyImagesKeepSidesOfTwoPixels) {
  for (const auto& [W, H] : {std::pair{1, 1}, std::pair{2, 3}, std::pair{5, 2}}) {
    const Pipeline p = testing::one_stage(R"({"stage": "perspective", "scale": 0.3, "keep_size": false})");
    for (int i = 0; i < 50; ++i) {
      const json m = plan_params(p, Shape{W, H, 1, DType::U8}, "t" + std::to_string(i));
      EXPECT_GE(m.at("width").get<int>(), 2) << m.dump();
      EXPECT_GE(m.at("height").get<int>(), 2) << m.dump();
      for (double v : m.at("matrix").get<M3>()) EXPECT_TRUE(std::isfinite(v)) << m.dump();
    }
  }
}

// ---- import ----------------------------------------------------------------------------------------

nlohmann::ordered_json import_one(const std::string& transform, const char* version = "2.0.8") {
  const json saved = json::parse(std::string(R"({"__version__": ")") + version +
                                 R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" + transform +
                                 "]}}");
  return import_albumentations(saved, "a.json").pipeline["stages"][0];
}

TEST(Perspective, ImportsPerspectiveAndIAAPerspective) {
  using oj = nlohmann::ordered_json;
  const auto two = import_one(R"({"__class_fullname__": "Perspective", "scale": [0.1, 0.2], "keep_size": false,
      "fit_output": true, "interpolation": 0, "border_mode": 1, "fill": 9, "fill_mask": 0, "p": 0.4})");
  EXPECT_EQ(two["stage"], "perspective");
  EXPECT_EQ(two["scale"], oj::array({0.1, 0.2}));
  EXPECT_EQ(two["keep_size"], false);
  EXPECT_EQ(two["fit_output"], true);
  EXPECT_EQ(two["interpolation"], "nearest");
  EXPECT_EQ(two["border"], "replicate");
  EXPECT_EQ(two["fill"], 9);
  EXPECT_EQ(two["p"], 0.4);
  EXPECT_FALSE(two.contains("distortion_scale"));
  // 1.x names; a number s is [0, s]; defaults.
  const auto one = import_one(R"({"__class_fullname__": "albumentations.augmentations.geometric.transforms.Perspective",
      "scale": 0.3, "pad_mode": 4, "pad_val": [1, 2, 3], "mask_pad_val": 0})", "1.3.1");
  EXPECT_EQ(one["scale"], oj::array({0.0, 0.3}));
  EXPECT_EQ(one["keep_size"], true);
  EXPECT_EQ(one["fit_output"], false);
  EXPECT_EQ(one["border"], "reflect101");
  EXPECT_EQ(one["fill"], oj::array({1, 2, 3}));
  EXPECT_EQ(one["p"], 0.5);
  // IAAPerspective: imgaug's PerspectiveTransform(scale=(0.05, 0.1), keep_size=True).
  const auto iaa = import_one(R"({"__class_fullname__": "albumentations.imgaug.transforms.IAAPerspective", "p": 0.5})",
                              "0.5.2");
  EXPECT_EQ(iaa["stage"], "perspective");
  EXPECT_EQ(iaa["scale"], oj::array({0.05, 0.1}));
  EXPECT_EQ(iaa["keep_size"], true);
  // The imported stages load.
  EXPECT_NO_THROW(testing::one_stage(two.dump()));
  EXPECT_NO_THROW(testing::one_stage(one.dump()));
  EXPECT_NO_THROW(testing::one_stage(iaa.dump()));
  EXPECT_THROW(import_one(R"({"__class_fullname__": "Perspective", "pad_mode": 7})", "1.3.1"), std::exception);
}

TEST(Perspective, ImportsPositionalPythonArguments) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "augment-test-perspective";
  std::filesystem::create_directories(dir);
  const std::string py = (dir / "t.py").string();
  testing::write_text(py, "import albumentations as A\n"
                          "t = A.Compose([A.Perspective((0.02, 0.04), False, fit_output=True, interpolation=2, border_mode=0, "
                          "fill=7, p=1)])\n");
  const auto imported = import_albumentations_python(py, "");
  const auto& st = imported.pipeline["stages"][0];
  EXPECT_EQ(st["stage"], "perspective");
  EXPECT_EQ(st["scale"], nlohmann::ordered_json::array({0.02, 0.04}));
  EXPECT_EQ(st["keep_size"], false);
  EXPECT_EQ(st["fit_output"], true);
  EXPECT_EQ(st["interpolation"], "bicubic");
  EXPECT_EQ(st["fill"], 7);
  std::filesystem::remove_all(dir);
}

// ---- errors name the parameter ----------------------------------------------------------------------

TEST(Perspective, ErrorsNameTheParameter) {
  testing::geometry::expect_errors_name_the_parameter({
      {R"({"stage": "perspective", "distortion_scale": 1.5})", "distortion_scale"},
      {R"({"stage": "perspective", "border": "mirror"})", "border"},
      {R"({"stage": "perspective", "fill": "white"})", "fill"},
      {R"({"stage": "perspective", "scale": 1.5})", "scale"},
      {R"({"stage": "perspective", "distortion_scale": 0.5, "scale": 0.1})", "distortion_scale"},
      {R"({"stage": "perspective", "scale": 0.1, "distortion_scale": 0.5})", "scale"},
      {R"({"stage": "perspective", "keep_size": false})", "keep_size"},
      {R"({"stage": "perspective", "distortion_scale": 0.2, "fit_output": true})", "fit_output"},
  });
}

}  // namespace
}  // namespace aug::test_perspective
