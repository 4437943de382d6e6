// The warp engine (kernels/engines/warp.*, lib/stages/engines/warp.*) against OpenCV 4.6:
// cv::warpAffine / cv::warpPerspective with the same matrix, interpolation, border mode and value.
// The kernel body runs as host loops through a HostKernelContext; the CUDA build runs the same body.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/stages/kernel_context.hpp"
#include "lib/stages/engines/warp.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_warp {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::random_image;

const Border kBorders[] = {Border::Constant, Border::Replicate, Border::Reflect,
                               Border::Reflect101, Border::Wrap};
const char* border_str(Border b) {
  switch (b) {
    case Border::Constant: return "constant";
    case Border::Replicate: return "replicate";
    case Border::Reflect: return "reflect";
    case Border::Reflect101: return "reflect101";
    case Border::Wrap: return "wrap";
  }
  return "?";
}
int cv_border(Border b) {
  switch (b) {
    case Border::Constant: return cv::BORDER_CONSTANT;
    case Border::Replicate: return cv::BORDER_REPLICATE;
    case Border::Reflect: return cv::BORDER_REFLECT;
    case Border::Reflect101: return cv::BORDER_REFLECT_101;
    case Border::Wrap: return cv::BORDER_WRAP;
  }
  return -1;
}
const char* interp_str(Interp i) {
  return i == Interp::Nearest ? "nearest" : (i == Interp::Bilinear ? "bilinear" : "bicubic");
}
int cv_interp(Interp i) {
  return i == Interp::Nearest ? cv::INTER_NEAREST : (i == Interp::Bilinear ? cv::INTER_LINEAR : cv::INTER_CUBIC);
}

Image ours(const Image& in, const Warp& w) {
  Image out(Shape{w.out_width, w.out_height, in.channels(), in.dtype()});
  HostKernelContext ctx;
  run_warp(ctx, in.ref(), out.ref(), w);
  return out;
}

Image theirs(const Image& in, const Warp& w) {
  cv::Mat dst;
  const cv::Scalar fill(w.fill[0], w.fill[1], w.fill[2], w.fill[3]);
  const cv::Size size(w.out_width, w.out_height);
  if (is_affine(w)) {
    const cv::Mat M(2, 3, CV_64F, const_cast<double*>(w.matrix.data()));
    cv::warpAffine(mat(in), dst, M, size, cv_interp(w.interp), cv_border(w.border), fill);
  } else {
    const cv::Mat M(3, 3, CV_64F, const_cast<double*>(w.matrix.data()));
    cv::warpPerspective(mat(in), dst, M, size, cv_interp(w.interp), cv_border(w.border), fill);
  }
  return from_mat(dst);
}

std::array<double, 9> affine(const cv::Mat& m23) {
  return {m23.at<double>(0, 0), m23.at<double>(0, 1), m23.at<double>(0, 2),
          m23.at<double>(1, 0), m23.at<double>(1, 1), m23.at<double>(1, 2), 0, 0, 1};
}

struct Case {
  std::string name;
  std::array<double, 9> matrix;
  int out_width, out_height;
};

// Forward matrices for an image of w x h: rotations about the centre, scale + shear +
// translation, a map that sends part of the output outside the input, a shrink and an enlargement.
std::vector<Case> affine_cases(int w, int h) {
  const cv::Point2f centre(static_cast<float>((w - 1) * 0.5), static_cast<float>((h - 1) * 0.5));
  std::vector<Case> cases;
  for (double angle : {30.0, 45.0, 90.0, -127.5, 180.0, 7.3})
    cases.push_back({"rotate " + std::to_string(angle), affine(cv::getRotationMatrix2D(centre, angle, 1.0)), w, h});
  cases.push_back({"rotate+scale", affine(cv::getRotationMatrix2D(centre, 13.0, 0.8)), w, h});
  cases.push_back({"scale+shear+shift", {1.3, 0.4, -7.25, -0.2, 0.9, 5.5, 0, 0, 1}, w, h});
  cases.push_back({"partly outside", {0.7, 0.1, w * 0.6, 0.05, 1.2, -h * 0.4, 0, 0, 1}, w + 3, h + 2});
  cases.push_back({"shrink", {0.45, 0, 0.3, 0, 0.55, -0.2, 0, 0, 1}, std::max(1, w / 2), std::max(1, h * 3 / 5)});
  cases.push_back({"enlarge", {3.7, 0.2, 1.1, -0.1, 2.9, 0.6, 0, 0, 1}, w + 1, h + 2});
  return cases;
}

// The photographs (3, 1, 4 and 3 channels), whole or as a crop (to keep the slower cases fast),
// and small odd sizes with 1, 3 and 4 channels.
Image crop(const Image& im, int x, int y, int w, int h) { return from_mat(mat(im)(cv::Rect(x, y, w, h)).clone()); }

std::vector<std::pair<std::string, Image>> images(DType t, bool whole_photos) {
  std::vector<std::pair<std::string, Image>> v;
  const std::pair<const char*, int> photos[] = {
      {"astronaut.jpg", 3}, {"camera.png", 1}, {"coffee_rgba.png", 4}, {"chelsea.png", 3}};
  for (const auto& [file, channels] : photos) {
    Image im = testing::sample_as(file, t, channels);
    if (!whole_photos) im = crop(im, im.width() / 3, im.height() / 3, 97, 71);
    v.emplace_back(file, std::move(im));
  }
  std::uint32_t seed = 1;
  for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {41, 39}})
    for (int c : {1, 3, 4})
      v.emplace_back(std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c),
                     random_image({w, h, c, t}, seed++));
  return v;
}

const std::array<double, 4> kFill{17, 200, 3, 99};

// Differing values per "interp border" over every image and case.
using Tally = std::map<std::string, std::size_t>;

void report(const char* title, const Tally& t, std::size_t values) {
  std::printf("[ warp vs OpenCV ] %s (%zu values per row)\n", title, values);
  for (const auto& [k, n] : t) std::printf("[ warp vs OpenCV ]   %-22s differing values: %zu\n", k.c_str(), n);
}

// Every image x case x interpolation x border; `expected_max` differing values per warp at most.
// Returns the largest absolute difference seen.
double affine_vs_opencv(DType t, bool whole_photos, const std::vector<Interp>& interps, std::size_t expected_max,
                        const char* title) {
  Tally tally;
  std::size_t values = 0;
  double max_diff = 0;
  const auto imgs = images(t, whole_photos);
  for (Interp interp : interps)
    for (Border border : kBorders) {
      const std::string key = std::string(interp_str(interp)) + " " + border_str(border);
      tally[key] = 0;
      values = 0;
      for (const auto& [name, im] : imgs)
        for (const Case& c : affine_cases(im.width(), im.height())) {
          const Warp w{c.matrix, c.out_width, c.out_height, interp, border, kFill};
          const testing::Diff d = compare(ours(im, w), theirs(im, w));
          tally[key] += d.count;
          max_diff = std::max(max_diff, d.max);
          values += static_cast<std::size_t>(c.out_width) * c.out_height * im.channels();
          EXPECT_LE(d.count, expected_max) << name << " " << c.name << " " << key << ": " << d.str();
        }
    }
  report(title, tally, values);
  std::printf("[ warp vs OpenCV ]   largest difference: %g\n", max_diff);
  return max_diff;
}

// ---------------------------------------------------------------------------------------------

TEST(WarpEngine, BorderIndexEqualsCvBorderInterpolate) {
  const std::pair<Border, int> modes[] = {{Border::Replicate, k::kBorderReplicate},
                                              {Border::Reflect, k::kBorderReflect},
                                              {Border::Reflect101, k::kBorderReflect101},
                                              {Border::Wrap, k::kBorderWrap},
                                              {Border::Constant, k::kBorderConstant}};
  for (const auto& [b, code] : modes)
    for (int len : {1, 2, 3, 4, 7, 41})
      for (int p = -300; p <= 300; ++p)
        ASSERT_EQ(k::border_index(p, len, code), cv::borderInterpolate(p, len, cv_border(b)))
            << border_str(b) << " p=" << p << " len=" << len;
  // The ends of the int16 coordinate range.
  for (int len : {3, 41, 512})
    for (int p : {-32768, 32767})
      for (const auto& [b, code] : modes)
        EXPECT_EQ(k::border_index(p, len, code), cv::borderInterpolate(p, len, cv_border(b)));
}

TEST(WarpEngine, InverseMatrixIsOpenCvs) {
  // Affine: the closed form of cv::warpAffine, which cv::invertAffineTransform shares.
  const std::vector<std::array<double, 9>> affines = {
      affine(cv::getRotationMatrix2D(cv::Point2f(255.5f, 255.5f), 30.0, 1.0)),
      affine(cv::getRotationMatrix2D(cv::Point2f(20.f, 19.f), -127.5, 0.8)),
      {1.3, 0.4, -7.25, -0.2, 0.9, 5.5, 0, 0, 1},
      {0.1, 0.0, 3.0, 0.0, 1e-3, -2.0, 0, 0, 1}};
  for (const auto& m : affines) {
    const std::array<double, 9> inv = invert_warp_matrix(m);
    cv::Mat cvinv;
    cv::invertAffineTransform(cv::Mat(2, 3, CV_64F, const_cast<double*>(m.data())), cvinv);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(inv[i], cvinv.at<double>(i / 3, i % 3)) << i;
    EXPECT_EQ(inv[6], 0.0);
    EXPECT_EQ(inv[7], 0.0);
    EXPECT_EQ(inv[8], 1.0);
  }
  // Perspective: cv::invert (DECOMP_LU, as cv::warpPerspective uses).
  const std::vector<std::array<double, 9>> perspectives = {
      {1.1, 0.2, -3.0, 0.05, 0.9, 4.0, 1e-4, -2e-4, 1.0},
      {0.8, -0.3, 40.0, 0.25, 1.2, -10.0, 8e-4, 5e-4, 1.2}};
  for (const auto& m : perspectives) {
    const std::array<double, 9> inv = invert_warp_matrix(m);
    cv::Mat cvinv;
    cv::invert(cv::Mat(3, 3, CV_64F, const_cast<double*>(m.data())), cvinv, cv::DECOMP_LU);
    for (int i = 0; i < 9; ++i) EXPECT_EQ(inv[i], cvinv.at<double>(i / 3, i % 3)) << i;
  }
  // Both are inverses: m * inv = identity.
  for (const auto& list : {affines, perspectives})
    for (const auto& m : list) {
      const std::array<double, 9> inv = invert_warp_matrix(m);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          double s = 0;
          for (int q = 0; q < 3; ++q) s += m[i * 3 + q] * inv[q * 3 + j];
          EXPECT_NEAR(s, i == j ? 1.0 : 0.0, 1e-12);
        }
    }
  // Singular: zeros, as OpenCV.
  const std::array<double, 9> singular = invert_warp_matrix({1, 2, 3, 2, 4, 6, 0, 0, 1});
  for (int i = 0; i < 6; ++i) EXPECT_EQ(singular[i], 0.0);
  for (double v : invert_warp_matrix({1, 2, 3, 2, 4, 6, 3, 6, 9})) EXPECT_EQ(v, 0.0);
}

TEST(WarpEngine, BicubicTableRowsSumToOne) {
  const auto& t = warp_bicubic_table_fixed();
  ASSERT_EQ(t.size(), 1024u * 16u);
  for (int f = 0; f < 1024; ++f) {
    int s = 0;
    for (int k = 0; k < 16; ++k) s += t[f * 16 + k];
    EXPECT_EQ(s, 1 << 15) << f;
  }
}

TEST(WarpEngine, IdentityReturnsTheInputForEveryTypeBorderAndInterpolation) {
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int c : {1, 3, 4})
      for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {41, 39}}) {
        const Image im = random_image({w, h, c, t}, 5);
        for (Interp interp : {Interp::Nearest, Interp::Bilinear, Interp::Bicubic})
          for (Border border : kBorders) {
            const Warp warp{{1, 0, 0, 0, 1, 0, 0, 0, 1}, w, h, interp, border, kFill};
            EXPECT_EQ(compare(ours(im, warp), im).count, 0u)
                << dtype_name(t) << " " << w << "x" << h << "x" << c << " " << interp_str(interp) << " "
                << border_str(border);
          }
      }
}

TEST(WarpEngine, RejectsAMismatchedOutput) {
  const Image im = random_image({8, 6, 3, DType::U8}, 1);
  Image out(Shape{8, 6, 1, DType::U8});
  HostKernelContext ctx;
  EXPECT_THROW(run_warp(ctx, im.ref(), out.ref(), Warp{{1, 0, 0, 0, 1, 0, 0, 0, 1}, 8, 6}), std::invalid_argument);
  Image out2(Shape{8, 6, 3, DType::U8});
  EXPECT_THROW(run_warp(ctx, im.ref(), out2.ref(), Warp{{NAN, 0, 0, 0, 1, 0, 0, 0, 1}, 8, 6}), std::invalid_argument);
}

TEST(WarpEngine, EightBitAffineEqualsCvWarpAffine) {
  affine_vs_opencv(DType::U8, true, {Interp::Nearest, Interp::Bilinear}, 0, "u8 affine, whole photos");
}

TEST(WarpEngine, EightBitAffineBicubicEqualsCvWarpAffine) {
  affine_vs_opencv(DType::U8, false, {Interp::Bicubic}, 0, "u8 affine bicubic, photo crops");
}

// 16-bit and float use OpenCV's float weights and sums: nearest and bilinear are equal to
// OpenCV; bicubic differs only at pixels whose 4x4 taps leave the image, where OpenCV's float path
// computes fill + sum (p - fill) * w instead of sum p * w (a rounding difference).
TEST(WarpEngine, SixteenBitAndFloatAffineEqualCvWarpAffine) {
  for (DType t : {DType::U16, DType::F32})
    affine_vs_opencv(t, false, {Interp::Nearest, Interp::Bilinear}, 0,
                     t == DType::U16 ? "u16 affine, photo crops" : "f32 affine, photo crops");
  EXPECT_LE(affine_vs_opencv(DType::U16, false, {Interp::Bicubic}, 1000000, "u16 affine bicubic, photo crops"), 1.0);
  EXPECT_LE(affine_vs_opencv(DType::F32, false, {Interp::Bicubic}, 1000000, "f32 affine bicubic, photo crops"), 1e-4);
}

// Maps far outside the int16 coordinate range and beyond the int32 fixed point (where OpenCV's
// cvRound gives INT_MIN and the sums wrap): still OpenCV's pixels under every border.
TEST(WarpEngine, FarOutsideCoordinatesAsOpenCv) {
  const Image im = random_image({41, 39, 3, DType::U8}, 9);
  const std::array<double, 9> far[] = {{1, 0, 40000.5, 0, 1, -40000.25, 0, 0, 1},
                                       {0.9, 0.1, -3e6, -0.1, 0.9, 3e6, 0, 0, 1},
                                       {1, 0, 2.2e6, 0, 1, 1e9, 0, 0, 1},
                                       {1e-7, 0, 0, 0, 1e-7, 0, 0, 0, 1},
                                       {1, 0.2, 3e4, 0.1, 1, -5e4, 1e-4, 1e-5, 1}};
  for (const auto& m : far)
    for (Interp interp : {Interp::Nearest, Interp::Bilinear, Interp::Bicubic})
      for (Border border : kBorders) {
        const Warp w{m, 23, 17, interp, border, kFill};
        EXPECT_EQ(compare(ours(im, w), theirs(im, w)).count, 0u)
            << m[2] << " " << m[5] << " " << interp_str(interp) << " " << border_str(border);
      }
}

// Two perspective maps per image (one inside, one sending part of the output outside).
void perspective_vs_opencv(DType t, bool whole_photos, const std::vector<Interp>& interps, const char* title) {
  Tally tally;
  std::size_t values = 0;
  const auto imgs = images(t, whole_photos);
  for (Interp interp : interps)
    for (Border border : kBorders) {
      const std::string key = std::string(interp_str(interp)) + " " + border_str(border);
      tally[key] = 0;
      values = 0;
      for (const auto& [name, im] : imgs) {
        const float W = static_cast<float>(im.width()), H = static_cast<float>(im.height());
        const cv::Point2f src[4] = {{0, 0}, {W - 1, 0}, {W - 1, H - 1}, {0, H - 1}};
        const cv::Point2f dst1[4] = {{W * 0.1f, H * 0.05f}, {W * 0.85f, H * 0.12f}, {W * 0.95f, H * 0.9f}, {W * 0.02f, H * 0.8f}};
        const cv::Point2f dst2[4] = {{-W * 0.2f, 0}, {W * 1.1f, H * 0.1f}, {W * 0.7f, H * 1.2f}, {W * 0.1f, H * 0.7f}};
        for (const auto* dst : {dst1, dst2}) {
          const cv::Mat P = cv::getPerspectiveTransform(src, dst);
          std::array<double, 9> m{};
          for (int i = 0; i < 9; ++i) m[i] = P.at<double>(i / 3, i % 3);
          // Degenerate corners (a 1-pixel side) give no projective map: use a fixed one.
          if (im.width() < 2 || im.height() < 2) m = {1.1, 0.2, -0.3, 0.05, 0.9, 0.4, 0.01, -0.02, 1};
          const Warp w{m, im.width() + 5, im.height() + 3, interp, border, kFill};
          ASSERT_FALSE(is_affine(w)) << name;
          const testing::Diff d = compare(ours(im, w), theirs(im, w));
          tally[key] += d.count;
          values += static_cast<std::size_t>(w.out_width) * w.out_height * im.channels();
          EXPECT_EQ(d.count, 0u) << name << " " << key << ": " << d.str();
        }
      }
    }
  report(title, tally, values);
}

TEST(WarpEngine, EightBitPerspectiveEqualsCvWarpPerspective) {
  perspective_vs_opencv(DType::U8, true, {Interp::Nearest, Interp::Bilinear, Interp::Bicubic},
                        "u8 perspective, whole photos");
}

TEST(WarpEngine, SixteenBitAndFloatPerspectiveEqualCvWarpPerspective) {
  perspective_vs_opencv(DType::U16, false, {Interp::Nearest, Interp::Bilinear}, "u16 perspective, photo crops");
  perspective_vs_opencv(DType::F32, false, {Interp::Nearest, Interp::Bilinear}, "f32 perspective, photo crops");
}

}  // namespace
}  // namespace aug::test_warp
