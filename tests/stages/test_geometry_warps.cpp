// rotate, affine and perspective (lib/stages/geometry/): the manifest's matrix reproduces the
// output with cv::warpAffine / cv::warpPerspective, the draws follow torchvision v2's definitions
// (computed here independently), expand's size and the exact 90-degree turn, and error messages.
// Parity, identity and bounds come from the declarations (test_catalog.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/run/devices.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using nlohmann::json;
using testing::from_mat;
using testing::mat;

constexpr double kPi = 3.14159265358979323846;

int cv_border(const std::string& b) {
  if (b == "constant") return cv::BORDER_CONSTANT;
  if (b == "replicate") return cv::BORDER_REPLICATE;
  if (b == "reflect") return cv::BORDER_REFLECT;
  if (b == "reflect101") return cv::BORDER_REFLECT_101;
  if (b == "wrap") return cv::BORDER_WRAP;
  return -1;
}
int cv_interp(const std::string& i) {
  return i == "nearest" ? cv::INTER_NEAREST : (i == "bilinear" ? cv::INTER_LINEAR : cv::INTER_CUBIC);
}

struct WarpRun {
  json params;
  Image out;
};

WarpRun run_stage(const Pipeline& p, const Image& in, const std::string& key, std::uint32_t copy = 0) {
  static auto cpu = make_cpu_backend(1);
  Plan plan = p.plan(5, key, copy, in.shape());
  WarpRun r;
  r.params = plan.steps.at(0).op->params();
  r.out = cpu->run(plan, in, 0);
  return r;
}

json plan_params(const Pipeline& p, const Shape& s, const std::string& key, std::uint32_t copy = 0) {
  return p.plan(5, key, copy, s).steps.at(0).op->params();
}

// cv::warpAffine / cv::warpPerspective with what the manifest records.
Image opencv_from_manifest(const Image& in, const json& m) {
  std::array<double, 9> a = m.at("matrix").get<std::array<double, 9>>();
  const cv::Size size(m.at("width").get<int>(), m.at("height").get<int>());
  const std::vector<double> f = m.at("fill").get<std::vector<double>>();
  cv::Scalar fill;
  for (std::size_t c = 0; c < f.size() && c < 4; ++c) fill[static_cast<int>(c)] = f[c];
  const int interp = cv_interp(m.at("interpolation").get<std::string>());
  const int border = cv_border(m.at("border").get<std::string>());
  cv::Mat dst;
  if (a[6] == 0 && a[7] == 0 && a[8] == 1)
    cv::warpAffine(mat(in), dst, cv::Mat(2, 3, CV_64F, a.data()), size, interp, border, fill);
  else
    cv::warpPerspective(mat(in), dst, cv::Mat(3, 3, CV_64F, a.data()), size, interp, border, fill);
  return from_mat(dst);
}

// ---- (1) The manifest reproduces the output with OpenCV ---------------------------------------------

TEST(GeometryWarps, ManifestMatrixReproducesTheOutputWithOpenCV) {
  const char* photos[] = {"astronaut.jpg", "camera.png", "coffee_rgba.png", "chelsea.png"};
  const std::map<std::string, std::string> configs = {
      {"rotate", R"("angle": [-40, 40])"},
      {"rotate expand", R"("angle": [-170, 170], "expand": true)"},
      {"affine", R"("angle": [-30, 30], "translate": [0.2, 0.2], "scale": [0.7, 1.3], "shear": [-10, 10, -8, 8])"},
      {"perspective", R"("distortion_scale": [0.2, 0.8])"}};
  std::size_t total_values = 0, total_diff = 0;
  for (const auto& [name, body] : configs) {
    const std::string stage = name.substr(0, name.find(' '));
    for (const char* interp : {"nearest", "bilinear", "bicubic"})
      for (const char* border : {"constant", "replicate", "reflect", "reflect101", "wrap"}) {
        const Pipeline p = testing::one_stage(R"({"stage": ")" + stage + R"(", )" + body + R"(, "interpolation": ")" +
                                              interp + R"(", "border": ")" + border +
                                              R"(", "fill": [17, 200, 3, 99]})");
        std::size_t values = 0, diff = 0;
        std::uint32_t copy = 0;
        for (const char* photo : photos) {
          const Image in = testing::sample(photo);
          const WarpRun r = run_stage(p, in, photo, copy++);
          const Image ref = opencv_from_manifest(in, r.params);
          ASSERT_EQ(r.out.shape(), ref.shape()) << name << " " << photo;
          const testing::Diff d = testing::compare(r.out, ref);
          EXPECT_EQ(d.count, 0u) << name << " " << interp << " " << border << " " << photo << ": " << d.str()
                                 << " params " << r.params.dump();
          values += ref.shape().values();
          diff += d.count;
        }
        std::printf("[ vs OpenCV ] %-12s %-8s %-10s differing values: %zu of %zu\n", name.c_str(), interp, border,
                    diff, values);
        total_values += values;
        total_diff += diff;
      }
  }
  std::printf("[ vs OpenCV ] total differing values: %zu of %zu\n", total_diff, total_values);
}

// ---- (2) Draws against torchvision's definitions -----------------------------------------------------

using M3 = std::array<double, 9>;
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

struct Stats {
  double sum = 0, lo = INFINITY, hi = -INFINITY;
  int n = 0;
  void add(double v) {
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    ++n;
  }
  double mean() const { return sum / n; }
};

TEST(GeometryWarps, AffineDrawsFollowTorchvision) {
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

TEST(GeometryWarps, AffineOneShearNumberIsSymmetricXOnlyAndTranslationRoundsHalfToEven) {
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

TEST(GeometryWarps, RotateMatrixIsOpenCVsCounterClockwiseRotation) {
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

TEST(GeometryWarps, PerspectiveCornersFollowTorchvision) {
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

// ---- (3) expand -----------------------------------------------------------------------------------

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

TEST(GeometryWarps, ExpandSizeIsTorchvisionsFormula) {
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

TEST(GeometryWarps, Rotate90WithExpandIsTheExactTurn) {
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
      const WarpRun r = run_stage(p, in, photo);
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

// ---- (4) errors name the parameter ---------------------------------------------------------------

TEST(GeometryWarps, ErrorsNameTheParameter) {
  const std::pair<const char*, const char*> bad[] = {
      {R"({"stage": "affine", "shear": [1, 2, 3]})", "shear"},
      {R"({"stage": "affine", "shear": [5, -5]})", "shear"},
      {R"({"stage": "affine", "shear": [0, 90]})", "shear"},
      {R"({"stage": "affine", "translate": [1.5, 0]})", "translate"},
      {R"({"stage": "affine", "scale": [1.2, 0.8]})", "scale"},
      {R"({"stage": "rotate", "angle": 400})", "angle"},
      {R"({"stage": "rotate"})", "angle"},
      {R"({"stage": "rotate", "angle": 3, "expand": 1})", "expand"},
      {R"({"stage": "rotate", "angle": 3, "interpolation": "area"})", "interpolation"},
      {R"({"stage": "rotate", "angle": 3, "center": [1, 2, 3]})", "center"},
      {R"({"stage": "perspective", "distortion_scale": 1.5})", "distortion_scale"},
      {R"({"stage": "perspective", "border": "mirror"})", "border"},
      {R"({"stage": "perspective", "fill": "white"})", "fill"},
  };
  for (const auto& [text, param] : bad) {
    try {
      testing::one_stage(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(param), std::string::npos) << text << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace aug
