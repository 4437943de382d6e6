// The tables of the 8-bit sRGB <-> L*a*b* conversions. OpenCV builds them with its software floats
// (IEEE binary32 / binary64 operations, a fused multiply-add where it writes mulAdd, and its own
// pow and cube root); the same operations here, with OpenCV's exported cv::pow and cv::cbrt for the
// two functions (its binary32 cube root is not always correctly rounded: 324 / 2040 is one unit
// below), give the same tables, which tests/stages/test_clahe.cpp holds equal to OpenCV's conversions
// over every 8-bit RGB colour and every 8-bit Lab triple.
#include "lib/stages/color/lab8.hpp"

#include <climits>  // opencv2/core/softfloat.hpp uses UCHAR_MAX without it
#include <cmath>
#include <memory>

#include <opencv2/core/softfloat.hpp>

namespace aug {

namespace {

// sRGB companding, in double, the result rounded to binary32.
float srgb_to_linear(float x) {
  const double xd = x;
  if (xd <= 809.0 / 20000.0) return static_cast<float>(xd / (323.0 / 25.0));
  return static_cast<float>(static_cast<double>(
      cv::pow(cv::softdouble((xd + 11.0 / 200.0) / (1.0 + 11.0 / 200.0)), cv::softdouble(12.0 / 5.0))));
}
float linear_to_srgb(float x) {
  const double xd = x;
  if (xd <= 7827.0 / 2500000.0) return static_cast<float>(xd * (323.0 / 25.0));
  const double p = static_cast<double>(cv::pow(cv::softdouble(xd), cv::softdouble(1.0 / (12.0 / 5.0))));
  return static_cast<float>(p * (1.0 + 11.0 / 200.0) - 11.0 / 200.0);
}

int round_even(float v) { return static_cast<int>(std::nearbyint(v)); }
int round_even(double v) { return static_cast<int>(std::nearbyint(v)); }

std::unique_ptr<k::Lab8Tables> build() {
  auto t = std::make_unique<k::Lab8Tables>();
  for (int i = 0; i < 256; ++i) {
    const float x = static_cast<float>(i) / 255.f;
    t->gamma[i] = static_cast<std::uint16_t>(round_even(2040.f * srgb_to_linear(x)));
  }
  const float lthresh = 216.f / 24389.f, lscale = 841.f / 108.f, lbias = 16.f / 116.f;
  const float cb_scale = 1.f / 2040.f;
  for (int i = 0; i < k::Lab8Tables::kCbrtSize; ++i) {
    const float x = cb_scale * static_cast<float>(i);
    const float f = x < lthresh ? std::fma(x, lscale, lbias) : static_cast<float>(cv::cbrt(cv::softfloat(x)));
    t->cbrt[i] = static_cast<std::uint16_t>(round_even(32768.f * f));
  }
  const float inv_scale = 1.f / 4096.f;
  for (int i = 0; i < k::Lab8Tables::kInvGammaSize; ++i) {
    const float x = inv_scale * static_cast<float>(i);
    t->inv_gamma[i] = static_cast<std::uint16_t>(round_even(255.f * linear_to_srgb(x)));
  }
  constexpr int kBase = 16384;
  for (int i = 0; i < 256; ++i) {
    int y, fy;
    if (i <= 20) {
      y = round_even(static_cast<float>(i * kBase * 20 * 9) / static_cast<float>(17 * 29 * 29 * 29));
      fy = round_even(static_cast<float>(kBase) *
                      (16.f / 116.f + static_cast<float>(i * 5) / static_cast<float>(3 * 17 * 29)));
    } else {
      const float f = static_cast<float>(i * 100 * kBase) / static_cast<float>(255 * 116) +
                      static_cast<float>(16 * kBase) / 116.f;
      fy = round_even(f);
      y = round_even(f * f * f / static_cast<float>(kBase * kBase));
    }
    t->yf[2 * i] = static_cast<std::uint16_t>(y);
    t->yf[2 * i + 1] = static_cast<std::uint16_t>(fy);
  }
  for (int j = 0; j < k::Lab8Tables::kABSize; ++j) {
    const int i = j + k::Lab8Tables::kMinAB;
    t->ab_to_xz[j] = i <= 3390 ? i * 108 / 841 - kBase * 16 / 116 * 108 / 841 : i * i / kBase * i / kBase;
  }
  // sRGB (D65) primaries and white point.
  static const double to_xyz[9] = {0.412453, 0.357580, 0.180423, 0.212671, 0.715160,
                                   0.072169, 0.019334, 0.119193, 0.950227};
  static const double to_rgb[9] = {3.240479, -1.53715, -0.498535, -0.969256, 1.875991,
                                   0.041556, 0.055648, -0.204043, 1.057311};
  static const double white[3] = {0.950456, 1.0, 1.088754};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      t->to_xyz[i * 3 + j] = round_even(4096.0 * to_xyz[i * 3 + j] / white[i]);
      t->to_rgb[i * 3 + j] = round_even(4096.0 * to_rgb[i * 3 + j] * white[j]);
    }
  return t;
}

}  // namespace

const k::Lab8Tables& lab8_tables() {
  static const std::unique_ptr<k::Lab8Tables> t = build();
  return *t;
}

}  // namespace aug
