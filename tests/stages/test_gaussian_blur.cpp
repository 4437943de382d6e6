// gaussian_blur: 8-bit against cv::GaussianBlur for every border (random images and photographs, 0
// differing values), 16-bit and float against the blur re-derived here from OpenCV's kernel, the
// kernel size derived from sigma, the 8-bit CPU path against the kernels run on the host, and a
// constant image kept constant on every sample type and channel count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_gaussian_blur {
namespace {

using testing::compare;
using testing::from_mat;
using testing::geometry::kChannels;
using testing::mat;
using testing::random_image;
using testing::run_cpu;

struct BlurCase {
  int w, h;
  double sigma;
  int ksize;  // 0: derived
  const char* border;
  int cv_border;
};
const BlurCase kBlurs[] = {
    {41, 39, 1.0, 7, "reflect101", cv::BORDER_REFLECT_101}, {41, 39, 2.5, 0, "replicate", cv::BORDER_REPLICATE},
    {41, 39, 0.7, 0, "constant", cv::BORDER_CONSTANT},      {257, 3, 1.5, 0, "reflect101", cv::BORDER_REFLECT_101},
    {1, 1, 2.0, 0, "reflect101", cv::BORDER_REFLECT_101},   {2, 3, 1.0, 5, "constant", cv::BORDER_CONSTANT},
    {2, 3, 3.0, 0, "replicate", cv::BORDER_REPLICATE},      {60, 50, 8.0, 0, "reflect101", cv::BORDER_REFLECT_101},
    {30, 20, 12.0, 151, "reflect101", cv::BORDER_REFLECT_101}, {9, 9, 0.3, 3, "constant", cv::BORDER_CONSTANT},
    {41, 39, 1.8, 0, "reflect", cv::BORDER_REFLECT},       {2, 3, 2.2, 9, "reflect", cv::BORDER_REFLECT},
};

std::string blur_json(const BlurCase& b) {
  return R"({"stage": "gaussian_blur", "sigma": )" + std::to_string(b.sigma) +
         (b.ksize ? R"(, "kernel_size": )" + std::to_string(b.ksize) : std::string()) + R"(, "border": ")" + b.border +
         "\"}";
}

int derived_ksize(double sigma) { return static_cast<int>(std::nearbyint(sigma * 6 + 1)) | 1; }

TEST(GaussianBlur, EightBitEqualsCvGaussianBlur) {
  for (const auto& b : kBlurs)
    for (int c : kChannels) {
      const Image im = random_image({b.w, b.h, c, DType::U8}, 20);
      const int k = b.ksize ? b.ksize : derived_ksize(b.sigma);
      cv::Mat theirs;
      cv::GaussianBlur(mat(im), theirs, cv::Size(k, k), b.sigma, b.sigma, b.cv_border | cv::BORDER_ISOLATED);
      EXPECT_EQ(compare(run_cpu(blur_json(b), im), from_mat(theirs)).count, 0u)
          << b.w << "x" << b.h << " sigma " << b.sigma << " k " << k << " " << b.border << " c" << c;
    }
}

TEST(GaussianBlur, EightBitOnPhotographsEqualsOpenCV) {
  for (const char* name : {"rocket.jpg", "coffee.png", "camera.png", "coffee_rgba.png"}) {
    const Image im = testing::sample(name);
    cv::Mat theirs;
    cv::GaussianBlur(mat(im), theirs, cv::Size(9, 9), 1.6, 1.6, cv::BORDER_REFLECT_101 | cv::BORDER_ISOLATED);
    EXPECT_EQ(compare(run_cpu(R"({"stage": "gaussian_blur", "sigma": 1.6, "kernel_size": 9})", im), from_mat(theirs)).count, 0u) << name;
  }
}

// The blur re-derived for 16-bit and float images: OpenCV's double kernel; 16-bit images quantise it
// to 14 fractional bits by error diffusion from the outside in, the centre taking the remainder.
template <class T>
Image reference_blur(const Image& in, double sigma, int k, int border) {
  const cv::Mat kd = cv::getGaussianKernel(k, sigma, CV_64F);
  std::vector<double> w(kd.begin<double>(), kd.end<double>());
  if constexpr (!std::is_same_v<T, float>) {
    double err = 0, sum = 0;
    for (int i = 0; i < k / 2; ++i) {
      const double adj = w[i] * 16384 + err, v = std::nearbyint(adj);
      err = adj - v;
      w[i] = w[k - 1 - i] = v / 16384;
      sum += 2 * v;
    }
    w[k / 2] = (16384 - sum) / 16384;
  }
  const int C = in.channels(), r = k / 2;
  auto at = [&](int p, int n) { return cv::borderInterpolate(p, n, border); };
  std::vector<double> mid(static_cast<std::size_t>(in.width()) * in.height() * C);
  for (int y = 0; y < in.height(); ++y)
    for (int x = 0; x < in.width(); ++x)
      for (int c = 0; c < C; ++c) {
        double s = 0;
        for (int i = 0; i < k; ++i) {
          const int xx = at(x + i - r, in.width());
          if (xx >= 0) s += w[i] * reinterpret_cast<const T*>(in.row(y))[xx * C + c];
        }
        mid[(static_cast<std::size_t>(y) * in.width() + x) * C + c] = s;
      }
  Image out(in.shape());
  for (int y = 0; y < in.height(); ++y)
    for (int x = 0; x < in.width(); ++x)
      for (int c = 0; c < C; ++c) {
        double s = 0;
        for (int i = 0; i < k; ++i) {
          const int yy = at(y + i - r, in.height());
          if (yy >= 0) s += w[i] * mid[(static_cast<std::size_t>(yy) * in.width() + x) * C + c];
        }
        T& o = reinterpret_cast<T*>(out.row(y))[x * C + c];
        if constexpr (std::is_same_v<T, float>) o = static_cast<float>(s);
        else o = static_cast<T>(std::clamp(std::floor(s + 0.5), 0.0, 65535.0));
      }
  return out;
}

TEST(GaussianBlur, SixteenBitAndFloatFollowTheFormula) {
  for (const auto& b : kBlurs) {
    const int k = b.ksize ? b.ksize : derived_ksize(b.sigma);
    const Image u16 = random_image({b.w, b.h, 3, DType::U16}, 21);
    const auto d16 = compare(run_cpu(blur_json(b), u16), reference_blur<std::uint16_t>(u16, b.sigma, k, b.cv_border));
    // The double-precision reference rounds once from exact sums of the same fixed-point taps.
    EXPECT_EQ(d16.count, 0u) << b.w << "x" << b.h << " sigma " << b.sigma << " " << b.border << ": " << d16.str();
    const Image f32 = random_image({b.w, b.h, 3, DType::F32}, 22);
    EXPECT_LE(compare(run_cpu(blur_json(b), f32), reference_blur<float>(f32, b.sigma, k, b.cv_border)).max, 2e-6);
  }
}

TEST(GaussianBlur, KernelSizeDerivedFromSigma) {
  const Pipeline p = testing::one_stage(R"({"stage": "gaussian_blur", "sigma": [0.1, 3]})");
  for (int i = 0; i < 50; ++i) {
    const auto params = p.plan(1, std::to_string(i), 0, {8, 8, 1, DType::U8}).record[0]["params"];
    EXPECT_EQ(params["kernel_size"].get<int>(), derived_ksize(params["sigma"].get<double>()));
  }
}

// ---- the CPU path against the kernels ------------------------------------------------------------

TEST(GaussianBlur, EightBitEqualsTheKernelsForEveryBorder) {
  for (const char* border : {"reflect101", "replicate", "reflect", "constant"})
    for (const char* blur : {R"("sigma": 1.0, "kernel_size": 7)", R"("sigma": 0.6)", R"("sigma": 3.0)",
                             R"("sigma": 2.0, "kernel_size": 3)", R"("sigma": 9.0)"})
      testing::expect_parity(std::string(R"({"stage": "gaussian_blur", )") + blur + R"(, "border": ")" + border + "\"}",
                             {DType::U8}, kChannels);
}

// ---- properties on every sample type and channel count -------------------------------------------

class GaussianBlurIdentities : public testing::geometry::TypesAndChannels {};

TEST_P(GaussianBlurIdentities, BlurKeepsAConstantImageConstant) {
  Image im = image();
  with_sample_type(im.dtype(), [&](auto tag) {
    using T = decltype(tag);
    auto* p = reinterpret_cast<T*>(im.data());
    for (std::size_t i = 0; i < im.shape().values(); ++i) p[i] = std::is_same_v<T, float> ? T(0.7f) : T(200);
  });
  for (const char* b : {"reflect101", "replicate"})
    EXPECT_EQ(compare(run_cpu(std::string(R"({"stage": "gaussian_blur", "sigma": 2.3, "border": ")") + b + "\"}", im), im, im.dtype() == DType::F32 ? 1e-6 : 0).count, 0u) << b;
}

INSTANTIATE_TEST_SUITE_P(TypesAndChannels, GaussianBlurIdentities, testing::geometry::types_and_channels(),
                         testing::geometry::type_and_channels_name);

}  // namespace
}  // namespace aug::test_gaussian_blur
