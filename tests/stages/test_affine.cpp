// affine: the manifest's matrix reproduces the output with cv::warpAffine, the draws and the matrix
// follow torchvision v2's definitions (computed here independently), and error messages name the
// parameter. Parity, identity and bounds come from the declarations (test_catalog.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_affine {
namespace {

using nlohmann::json;
using testing::geometry::kPi;
using testing::geometry::M3;
using testing::geometry::plan_params;
using testing::geometry::Stats;

TEST(Affine, ManifestMatrixReproducesTheOutputWithOpenCV) {
  testing::geometry::expect_manifest_reproduces_output(
      "affine",
      {{"affine", R"("angle": [-30, 30], "translate": [0.2, 0.2], "scale": [0.7, 1.3], "shear": [-10, 10, -8, 8])"}});
}

// ---- draws against torchvision's definitions ---------------------------------------------------------

M3 mul(const M3& a, const M3& b) {
  M3 r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) r[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j];
  return r;
}
M3 translation(double x, double y) { return {1, 0, x, 0, 1, y, 0, 0, 1}; }

// torchvision's documented composition T · C · R · S · SHy · SHx · C⁻¹ (angle clockwise on screen, y down).
M3 torchvision_affine(double cx, double cy, double angle, double tx, double ty, double s, double shx, double shy) {
  const double r = angle * kPi / 180, sx = shx * kPi / 180, sy = shy * kPi / 180;
  const M3 R{std::cos(r), -std::sin(r), 0, std::sin(r), std::cos(r), 0, 0, 0, 1};
  const M3 S{s, 0, 0, 0, s, 0, 0, 0, 1};
  const M3 SHx{1, -std::tan(sx), 0, 0, 1, 0, 0, 0, 1};
  const M3 SHy{1, 0, 0, -std::tan(sy), 1, 0, 0, 0, 1};
  return mul(translation(tx, ty),
             mul(translation(cx, cy), mul(R, mul(S, mul(SHy, mul(SHx, translation(-cx, -cy)))))));
}

TEST(Affine, DrawsFollowTorchvision) {
  const Shape shape{101, 77, 3, DType::U8};
  const Pipeline p = testing::one_stage(
      R"({"stage": "affine", "angle": [-30, 10], "translate": [0.2, 0.1], "scale": [0.7, 1.3], "shear": [-10, 10, -5, 15]})");
  const int N = 3000;
  Stats angle, tx, ty, scale, shx, shy;
  std::set<long long> txs;
  for (int i = 0; i < N; ++i) {
    const json m = plan_params(p, shape, "img" + std::to_string(i) + ".png", static_cast<std::uint32_t>(i % 3));
    const double a = m.at("angle"), s = m.at("scale");
    const json t = m.at("translate"), sh = m.at("shear");
    ASSERT_TRUE(t[0].is_number_integer() && t[1].is_number_integer()) << m.dump();
    const double x = t[0].get<double>(), y = t[1].get<double>();
    angle.add(a), tx.add(x), ty.add(y), scale.add(s), shx.add(sh[0]), shy.add(sh[1]);
    txs.insert(t[0].get<long long>());
    // The matrix is torchvision's composition of the drawn values about the centre ((W-1)/2, (H-1)/2).
    const M3 want = torchvision_affine(50, 38, a, x, y, s, sh[0], sh[1]);
    const M3 got = m.at("matrix").get<M3>();
    for (int k = 0; k < 9; ++k) ASSERT_NEAR(got[k], want[k], 1e-9) << "entry " << k << " of " << m.dump();
  }
  // Ranges: angle, scale, shears uniform in [lo, hi); translations round(U(-f*W, f*W)), integers.
  EXPECT_GE(angle.lo, -30); EXPECT_LT(angle.hi, 10);
  EXPECT_GE(scale.lo, 0.7); EXPECT_LT(scale.hi, 1.3);
  EXPECT_GE(shx.lo, -10); EXPECT_LT(shx.hi, 10);
  EXPECT_GE(shy.lo, -5); EXPECT_LT(shy.hi, 15);
  // max_dx = 20.2 -> tx in [-20, 20]; max_dy = 7.7 -> ty in [-8, 8], every value reached.
  EXPECT_EQ(tx.lo, -20); EXPECT_EQ(tx.hi, 20);
  EXPECT_EQ(ty.lo, -8); EXPECT_EQ(ty.hi, 8);
  EXPECT_EQ(txs.size(), 41u);
  // Means of uniforms, within 4 standard errors: sd = (hi - lo) / sqrt(12).
  auto near_mean = [&](const Stats& s, double lo, double hi, const char* what) {
    const double se = (hi - lo) / std::sqrt(12.0) / std::sqrt(static_cast<double>(N));
    EXPECT_NEAR(s.mean(), (lo + hi) / 2, 4 * se) << what;
  };
  near_mean(angle, -30, 10, "angle");
  near_mean(scale, 0.7, 1.3, "scale");
  near_mean(shx, -10, 10, "shear x");
  near_mean(shy, -5, 15, "shear y");
  near_mean(tx, -20.2, 20.2, "tx");
  near_mean(ty, -7.7, 7.7, "ty");
}

TEST(Affine, OneShearNumberIsSymmetricXOnlyAndTranslationRoundsHalfToEven) {
  const Shape shape{40, 30, 1, DType::U8};
  const Pipeline p = testing::one_stage(R"({"stage": "affine", "shear": 12, "translate": [0.0125, 0]})");
  bool neg = false, pos = false;
  std::set<long long> txs;
  for (int i = 0; i < 500; ++i) {
    const json m = plan_params(p, shape, "k" + std::to_string(i));
    const double sx = m.at("shear")[0], sy = m.at("shear")[1];
    EXPECT_GE(sx, -12); EXPECT_LT(sx, 12);
    EXPECT_EQ(sy, 0.0);
    neg |= sx < 0, pos |= sx > 0;
    // max_dx = 0.5: round(U(-0.5, 0.5)) is 0 (half to even), never +-1.
    txs.insert(m.at("translate")[0].get<long long>());
    EXPECT_EQ(m.at("translate")[1].get<long long>(), 0);
  }
  EXPECT_TRUE(neg && pos);
  EXPECT_EQ(txs, std::set<long long>{0});
}

// round_translate false (Albumentations' ShiftScaleRotate, translate_percent): the shift keeps its
// fraction, uniform over the range, and the matrix moves by it.
TEST(Affine, UnroundedTranslationKeepsTheFraction) {
  const Shape shape{40, 30, 1, DType::U8};
  const Pipeline p = testing::one_stage(R"({"stage": "affine", "translate": [0.1, 0.05], "round_translate": false})");
  double sum_abs = 0;
  int fractional = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    const json m = plan_params(p, shape, "f" + std::to_string(i));
    const double tx = m.at("translate")[0].get<double>(), ty = m.at("translate")[1].get<double>();
    ASSERT_LE(std::abs(tx), 4.0);
    ASSERT_LE(std::abs(ty), 1.5);
    fractional += tx != std::nearbyint(tx);
    sum_abs += std::abs(tx);
    const auto mat = m.at("matrix").get<std::vector<double>>();
    EXPECT_NEAR(mat[2], tx, 1e-9);  // no rotation, scale or shear: the shift itself
    EXPECT_NEAR(mat[5], ty, 1e-9);
  }
  EXPECT_GT(fractional, n - 5);
  EXPECT_NEAR(sum_abs / n, 2.0, 0.1);  // |U(-4, 4)| has mean 2
}

// Albumentations' forms: an asymmetric translate range, a shift in pixels, a scale per axis (diag(sx, sy)
// applied first, before the shears).
TEST(Affine, AsymmetricTranslationPixelShiftsAndScalePerAxis) {
  const Shape shape{200, 100, 3, DType::U8};
  const Pipeline p = testing::one_stage(
      R"({"stage": "affine", "translate": [-0.1, 0.3, 0.05, 0.2], "scale": [0.5, 0.9, 1.2, 1.6], "shear": [-5, 5, 0, 8]})");
  const int N = 3000;
  Stats tx, ty, sx, sy;
  for (int i = 0; i < N; ++i) {
    const json m = plan_params(p, shape, "a" + std::to_string(i) + ".jpg");
    const double x = m.at("translate")[0].get<double>(), y = m.at("translate")[1].get<double>();
    const double s0 = m.at("scale")[0], s1 = m.at("scale")[1];
    tx.add(x), ty.add(y), sx.add(s0), sy.add(s1);
    const double a = m.at("angle"), shx = m.at("shear")[0], shy = m.at("shear")[1];
    const M3 S{s0, 0, 0, 0, s1, 0, 0, 0, 1};
    const double cx = 99.5, cy = 49.5;
    // T · C · (R · SHy · SHx) · S · C⁻¹, R · SHy · SHx being torchvision's matrix about 0 at scale 1.
    const M3 rsh = torchvision_affine(0, 0, a, 0, 0, 1, shx, shy);
    const M3 want = mul(translation(x + cx, y + cy), mul(rsh, mul(S, translation(-cx, -cy))));
    const M3 got = m.at("matrix").get<M3>();
    for (int k = 0; k < 9; ++k) ASSERT_NEAR(got[k], want[k], 1e-9) << "entry " << k << " of " << m.dump();
  }
  // tx = round(U(-20, 60)), ty = round(U(5, 20)); every integer reached.
  EXPECT_EQ(tx.lo, -20); EXPECT_EQ(tx.hi, 60);
  EXPECT_EQ(ty.lo, 5); EXPECT_EQ(ty.hi, 20);
  EXPECT_GE(sx.lo, 0.5); EXPECT_LT(sx.hi, 0.9);
  EXPECT_GE(sy.lo, 1.2); EXPECT_LT(sy.hi, 1.6);
  auto near_mean = [&](const Stats& s, double lo, double hi, const char* what) {
    const double se = (hi - lo) / std::sqrt(12.0) / std::sqrt(static_cast<double>(N));
    EXPECT_NEAR(s.mean(), (lo + hi) / 2, 4 * se) << what;
  };
  near_mean(tx, -20, 60, "tx");
  near_mean(ty, 5, 20, "ty");
  near_mean(sx, 0.5, 0.9, "scale x");
  near_mean(sy, 1.2, 1.6, "scale y");

  // translate_px: each integer of the range about as often (chi-square, 14 degrees of freedom for x).
  const Pipeline q = testing::one_stage(R"({"stage": "affine", "translate_px": [-7, 7, 3, 3]})");
  std::vector<int> count(15, 0);
  const int M = 3000;
  for (int i = 0; i < M; ++i) {
    const json m = plan_params(q, shape, "b" + std::to_string(i) + ".jpg");
    const long long x = m.at("translate")[0].get<long long>();
    ASSERT_GE(x, -7); ASSERT_LE(x, 7);
    EXPECT_EQ(m.at("translate")[1].get<long long>(), 3);
    ++count[static_cast<std::size_t>(x + 7)];
  }
  double chi2 = 0;
  for (int c : count) chi2 += (c - M / 15.0) * (c - M / 15.0) / (M / 15.0);
  EXPECT_LT(chi2, 36.1) << "chi-square of the x shifts (p = 0.001 at 14 dof)";
}

TEST(Affine, OneScaleRangeGivesTheSameDrawsAsBefore) {
  // [lo, hi] draws one scale for both axes and the manifest records one number.
  const Shape shape{64, 48, 3, DType::U8};
  const Pipeline p = testing::one_stage(R"({"stage": "affine", "scale": [0.8, 1.2], "translate": [0.1, 0.1]})");
  for (int i = 0; i < 50; ++i) {
    const json m = plan_params(p, shape, "c" + std::to_string(i) + ".jpg");
    ASSERT_TRUE(m.at("scale").is_number()) << m.dump();
    const M3 got = m.at("matrix").get<M3>();
    const M3 want = torchvision_affine(31.5, 23.5, m.at("angle"), m.at("translate")[0].get<double>(),
                                       m.at("translate")[1].get<double>(), m.at("scale"), m.at("shear")[0],
                                       m.at("shear")[1]);
    for (int k = 0; k < 9; ++k) ASSERT_NEAR(got[k], want[k], 1e-9) << m.dump();
  }
}

// ---- errors name the parameter ----------------------------------------------------------------------

// ---- fit_output (Albumentations' Affine) ---------------------------------------------------------------

TEST(Affine, FitOutputEqualsWarpAffineWithAlbumentationsMatrixAndSize) {
  // The same draws with and without fit_output: the plain matrix M, then Albumentations'
  // compute_affine_warp_output_shape written out here, then cv::warpAffine with that matrix and size.
  const auto photos = testing::sampled({"astronaut.jpg", "camera.png", "coffee_rgba.png", "chelsea.png"}, 2);
  std::size_t values = 0, diff = 0;
  int grown = 0, runs = 0;
  for (const char* body : {R"("angle": [-45, 45], "scale": [0.6, 1.4], "shear": [-10, 10, -5, 5])",
                           R"("angle": 90, "translate": [0.2, 0.2])", R"("scale": [0.5, 0.8, 1.1, 1.3], "translate_px": [-30, 30])"})
    for (const char* interp : {"nearest", "bilinear", "bicubic"}) {
      const std::string common = std::string(R"({"stage": "affine", "p": 1, )") + body + R"(, "interpolation": ")" + interp +
                                 R"(", "border": "constant", "fill": [17, 200, 3, 99])";
      const Pipeline fit = testing::one_stage(common + R"(, "fit_output": true})");
      const Pipeline plain = testing::one_stage(common + "}");
      std::uint32_t copy = 0;
      for (const char* photo : photos) {
        const Image in = testing::sample(photo);
        const int W = in.shape().width, H = in.shape().height;
        const json m0 = plan_params(plain, in.shape(), photo, copy);
        const auto r = testing::geometry::run_stage(fit, in, photo, copy++);
        M3 m = m0.at("matrix").get<M3>();
        const double cs[4][2] = {{0, 0}, {0, H - 1.0}, {W - 1.0, H - 1.0}, {W - 1.0, 0}};
        double minc = 1e300, minr = 1e300, maxc = -1e300, maxr = -1e300;
        for (const auto& c : cs) {
          const double x = m[0] * c[0] + m[1] * c[1] + m[2], y = m[3] * c[0] + m[4] * c[1] + m[5];
          minc = std::min(minc, x), maxc = std::max(maxc, x), minr = std::min(minr, y), maxr = std::max(maxr, y);
        }
        const int out_w = static_cast<int>(std::ceil(maxc - minc + 1)), out_h = static_cast<int>(std::ceil(maxr - minr + 1));
        m[2] -= minc;
        m[5] -= minr;
        EXPECT_EQ(r.params.at("width").get<int>(), out_w) << body << " " << photo;
        EXPECT_EQ(r.params.at("height").get<int>(), out_h) << body << " " << photo;
        EXPECT_EQ(r.params.at("matrix").get<M3>(), m) << body << " " << photo;
        grown += out_w != W || out_h != H;
        ++runs;
        const cv::Mat a = (cv::Mat_<double>(2, 3) << m[0], m[1], m[2], m[3], m[4], m[5]);
        cv::Mat dst;
        cv::warpAffine(testing::mat(in), dst, a, cv::Size(out_w, out_h), testing::geometry::cv_interp(interp),
                       cv::BORDER_CONSTANT, cv::Scalar(17, 200, 3, 99));
        const Image ref = testing::from_mat(dst);
        const testing::Diff d = testing::compare(r.out, ref);
        EXPECT_EQ(d.count, 0u) << body << " " << interp << " " << photo << ": " << d.str();
        values += ref.shape().values();
        diff += d.count;
      }
    }
  EXPECT_GT(2 * grown, runs);  // most outputs grew (21 of 36 with every photograph)
  std::printf("[ vs OpenCV ] affine fit_output: cv::warpAffine with Albumentations' matrix and size, differing values: "
              "%zu of %zu\n", diff, values);
}

TEST(Affine, FitOutputKeepsEveryCornerInside) {
  const Pipeline p = testing::one_stage(R"({"stage": "affine", "p": 1, "angle": [-60, 60], "scale": [0.5, 2], "fit_output": true})");
  for (int i = 0; i < 50; ++i) {
    const json m = plan_params(p, Shape{64, 40, 3, DType::U8}, "c" + std::to_string(i));
    const M3 a = m.at("matrix").get<M3>();
    const int w = m.at("width").get<int>(), h = m.at("height").get<int>();
    double minx = 1e9, miny = 1e9;
    for (const auto& c : {std::array<double, 2>{0, 0}, {0, 39}, {63, 39}, {63, 0}}) {
      const double x = a[0] * c[0] + a[1] * c[1] + a[2], y = a[3] * c[0] + a[4] * c[1] + a[5];
      EXPECT_GE(x, -1e-9);
      EXPECT_GE(y, -1e-9);
      EXPECT_LE(x, w - 1 + 1e-9);
      EXPECT_LE(y, h - 1 + 1e-9);
      minx = std::min(minx, x), miny = std::min(miny, y);
    }
    EXPECT_NEAR(minx, 0, 1e-9);
    EXPECT_NEAR(miny, 0, 1e-9);
  }
}

TEST(Affine, ImportsFitOutput) {
  const json saved = json::parse(R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [
      {"__class_fullname__": "Affine", "rotate": [-20, 20], "fit_output": true, "p": 0.5}]}})");
  const auto st = import_albumentations(saved, "a.json").pipeline["stages"][0];
  EXPECT_EQ(st["stage"], "affine");
  EXPECT_EQ(st["fit_output"], true);
  const json off = json::parse(R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [
      {"__class_fullname__": "Affine", "rotate": [-20, 20], "fit_output": false, "p": 0.5}]}})");
  EXPECT_FALSE(import_albumentations(off, "a.json").pipeline["stages"][0].contains("fit_output"));
}

TEST(Affine, ErrorsNameTheParameter) {
  testing::geometry::expect_errors_name_the_parameter({
      {R"({"stage": "affine", "shear": [1, 2, 3]})", "shear"},
      {R"({"stage": "affine", "shear": [5, -5]})", "shear"},
      {R"({"stage": "affine", "shear": [0, 90]})", "shear"},
      {R"({"stage": "affine", "translate": [1.5, 0]})", "translate"},
      {R"({"stage": "affine", "scale": [1.2, 0.8]})", "scale"},
      {R"({"stage": "affine", "scale": [1, 1.2, 0.9]})", "scale"},
      {R"({"stage": "affine", "scale": [1, 1.2, 0.9, 0.8]})", "scale"},
      {R"({"stage": "affine", "translate": [-0.1, 0.1]})", "translate"},
      {R"({"stage": "affine", "translate": [0.2, -0.1, 0, 0]})", "translate"},
      {R"({"stage": "affine", "translate_px": [1, 2, 3]})", "translate_px"},
      {R"({"stage": "affine", "translate_px": [3, 1]})", "translate_px"},
      {R"({"stage": "affine", "translate_px": [1, 3], "translate": [0.1, 0.1]})", "translate_px"},
  });
}

}  // namespace
}  // namespace aug::test_affine
