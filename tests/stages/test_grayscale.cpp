// grayscale: torchvision's rgb_to_grayscale written out here value by value (the luma in binary32,
// truncated for integers, in every colour channel, alpha kept) against the CPU backend, known values
// of the primaries, and the CPU path against the kernels run on the host.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include <opencv2/imgproc.hpp>
#include <vector>

#include "tests/stages/color_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_grayscale {
namespace {

using testing::expect_parity;
using testing::run_cpu;
using testing::color::at;
using testing::color::put;

template <class T>
void expect_gray(const Image& in, const Image& out) {
  const Shape s = in.shape();
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) {
      // torch: r.mul(0.2989).add_(g, alpha=0.587).add_(b, alpha=0.114), in float32, then .to(dtype).
      const float r = static_cast<float>(at<T>(in, x, y, 0)), g = static_cast<float>(at<T>(in, x, y, 1)),
                  b = static_cast<float>(at<T>(in, x, y, 2));
      const float pr = r * 0.2989f;
      const float pg = g * 0.587f;
      const float pb = b * 0.114f;
      const float l = (pr + pg) + pb;
      const T want = std::is_same_v<T, float> ? static_cast<T>(l) : static_cast<T>(std::trunc(l));
      for (int c = 0; c < 3; ++c) ASSERT_EQ(at<T>(out, x, y, c), want) << x << "," << y << "," << c;
      if (s.channels == 4) {
        ASSERT_EQ(at<T>(out, x, y, 3), at<T>(in, x, y, 3));
      }
    }
}

TEST(Grayscale, IsTorchvisionsLumaTruncatedInEveryChannel) {
  const std::string js = R"({"stage": "grayscale"})";
  for (int c : {3, 4}) {
    const Image u8 = testing::random_image({53, 17, c, DType::U8}, 1);
    expect_gray<std::uint8_t>(u8, run_cpu(js, u8));
    const Image u16 = testing::random_image({53, 17, c, DType::U16}, 2);
    expect_gray<std::uint16_t>(u16, run_cpu(js, u16));
    const Image f32 = testing::random_image({53, 17, c, DType::F32}, 3);
    expect_gray<float>(f32, run_cpu(js, f32));
  }
}

TEST(Grayscale, PrimariesAndGrayImages) {
  Image im({3, 1, 3, DType::U8});
  for (int x = 0; x < 3; ++x)
    for (int c = 0; c < 3; ++c) put<std::uint8_t>(im, x, 0, c, c == x ? 255 : 0);
  const Image out = run_cpu(R"({"stage": "grayscale"})", im);
  EXPECT_EQ(at<std::uint8_t>(out, 0, 0, 0), 76);   // 255 * 0.2989 = 76.22
  EXPECT_EQ(at<std::uint8_t>(out, 1, 0, 0), 149);  // 255 * 0.587 = 149.69
  EXPECT_EQ(at<std::uint8_t>(out, 2, 0, 0), 29);   // 255 * 0.114 = 29.07
  const Image gray = testing::random_image({31, 7, 1, DType::U8}, 4);
  EXPECT_EQ(testing::compare(run_cpu(R"({"stage": "grayscale"})", gray), gray).count, 0u);
  // White stays below 255: the weights sum to 0.9999.
  Image white({1, 1, 3, DType::U8});
  for (int c = 0; c < 3; ++c) put<std::uint8_t>(white, 0, 0, c, 255);
  EXPECT_EQ(at<std::uint8_t>(run_cpu(R"({"stage": "grayscale"})", white), 0, 0, 0), 254);
}

TEST(Grayscale, CpuDriverEqualsTheKernels) {
  expect_parity(R"({"stage": "grayscale"})", {DType::U8, DType::U16, DType::F32}, {3, 4});
}

// method opencv: cv::cvtColor(RGB2GRAY)'s values (Albumentations' ToGray), to the bit for 8 and
// 16 bits, within a binary32 rounding for float.
TEST(Grayscale, OpencvMethodEqualsCvtColor) {
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int c : {3, 4}) {
      const Image in = testing::random_image({67, 29, c, t}, 4 + c);
      const auto b = testing::run_both(testing::one_stage(R"({"stage": "grayscale", "method": "opencv"})"), in);
      cv::Mat gray, want;
      cv::cvtColor(testing::mat(in), gray, c == 4 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGB2GRAY);
      std::vector<cv::Mat> planes(static_cast<std::size_t>(c), gray);
      if (c == 4) {
        std::vector<cv::Mat> src;
        cv::split(testing::mat(in), src);
        planes[3] = src[3];
      }
      cv::merge(planes, want);
      const double tol = t == DType::F32 ? 1e-6 : 0;
      EXPECT_EQ(testing::compare(b.cpu, testing::from_mat(want), tol).count, 0u) << to_string(in.shape());
      EXPECT_EQ(testing::compare(b.emulated, testing::from_mat(want), tol).count, 0u) << to_string(in.shape());
      EXPECT_EQ(testing::compare(b.cpu, b.emulated).count, 0u);
    }
  for (const char* name : {"astronaut.jpg", "coffee_rgba.png"}) {
    const Image in = testing::sample(name);
    const auto b = testing::run_both(testing::one_stage(R"({"stage": "grayscale", "method": "opencv"})"), in);
    cv::Mat gray;
    cv::cvtColor(testing::mat(in), gray, in.shape().channels == 4 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGB2GRAY);
    for (int y = 0; y < in.shape().height; ++y)
      for (int x = 0; x < in.shape().width; ++x)
        ASSERT_EQ(b.emulated.row(y)[x * in.shape().channels], gray.at<std::uint8_t>(y, x)) << name;
  }
}

}  // namespace
}  // namespace aug::test_grayscale
