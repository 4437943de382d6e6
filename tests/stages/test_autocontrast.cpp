// autocontrast: torchvision v2's autocontrast written out here value by value (each colour channel
// stretched from its own min..max to the type's range in binary32, truncated for integers; constant
// channels unchanged) against the CPU backend on every sample type, and torchvision's rounding quirk
// on both backends.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <type_traits>

#include "kernels/core/reduce.hpp"
#include "tests/stages/color_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_autocontrast {
namespace {

using testing::run_both;
using testing::run_cpu;
using testing::color::at;
using testing::color::put;

template <class T>
void expect_autocontrast(const Image& in, const Image& out) {
  const Shape s = in.shape();
  const int cc = s.channels == 4 ? 3 : s.channels;
  const double bound_d = std::is_same_v<T, float> ? 1.0 : (std::is_same_v<T, std::uint8_t> ? 255.0 : 65535.0);
  const float bound = static_cast<float>(bound_d);
  for (int c = 0; c < s.channels; ++c) {
    float lo = static_cast<float>(at<T>(in, 0, 0, c)), hi = lo;
    for (int y = 0; y < s.height; ++y)
      for (int x = 0; x < s.width; ++x) {
        lo = std::min(lo, static_cast<float>(at<T>(in, x, y, c)));
        hi = std::max(hi, static_cast<float>(at<T>(in, x, y, c)));
      }
    // torchvision v2: inv_scale = (max - min) * (1.0 / bound); where max == min: min = 0, inv_scale = 1.
    float m = lo, inv_scale = (hi - lo) * static_cast<float>(1.0 / bound_d);
    if (hi == lo) m = 0.f, inv_scale = 1.f;
    for (int y = 0; y < s.height; ++y)
      for (int x = 0; x < s.width; ++x) {
        const T v = at<T>(in, x, y, c);
        T want = v;
        if (c < cc) {
          const float r = std::clamp((static_cast<float>(v) - m) / inv_scale, 0.f, bound);
          want = std::is_same_v<T, float> ? static_cast<T>(r) : static_cast<T>(std::trunc(r));
        }
        ASSERT_EQ(at<T>(out, x, y, c), want) << x << "," << y << "," << c;
      }
  }
}

constexpr const char* kAutocontrast = R"({"stage": "autocontrast", "p": 1})";

TEST(Autocontrast, IsTorchvisionsStretchOnEveryType) {
  for (int c : {1, 3, 4}) {
    for (DType t : {DType::U8, DType::U16, DType::F32}) {
      // A narrower range than the random images' full one, so that the stretch does something.
      Image im = testing::random_image({45, 19, c, t}, 8);
      for (int y = 0; y < 19; ++y)
        for (int x = 0; x < 45 * c; ++x) {
          if (t == DType::U8)
            reinterpret_cast<std::uint8_t*>(im.row(y))[x] = 40 + reinterpret_cast<std::uint8_t*>(im.row(y))[x] / 3;
          if (t == DType::U16)
            reinterpret_cast<std::uint16_t*>(im.row(y))[x] = 9000 + reinterpret_cast<std::uint16_t*>(im.row(y))[x] / 5;
          if (t == DType::F32)
            reinterpret_cast<float*>(im.row(y))[x] = 0.2f + reinterpret_cast<float*>(im.row(y))[x] * 0.37f;
        }
      const Image out = run_cpu(kAutocontrast, im);
      if (t == DType::U8) expect_autocontrast<std::uint8_t>(im, out);
      if (t == DType::U16) expect_autocontrast<std::uint16_t>(im, out);
      if (t == DType::F32) expect_autocontrast<float>(im, out);
    }
  }
}

TEST(Autocontrast, ConstantAndFullRangeChannelsAreUnchanged) {
  Image im({64, 4, 3, DType::U8});
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 64; ++x) {
      put<std::uint8_t>(im, x, y, 0, 77);                                        // constant
      put<std::uint8_t>(im, x, y, 1, static_cast<std::uint8_t>((x * 4 + y) & 255));  // 0..255
      put<std::uint8_t>(im, x, y, 2, static_cast<std::uint8_t>(50 + x));           // 50..113
    }
  const auto both = run_both(testing::one_stage(kAutocontrast), im);
  EXPECT_EQ(testing::compare(both.cpu, both.emulated).count, 0u);
  for (int x = 0; x < 64; ++x) {
    EXPECT_EQ(at<std::uint8_t>(both.cpu, x, 0, 0), 77);
    EXPECT_EQ(at<std::uint8_t>(both.cpu, x, 1, 1), at<std::uint8_t>(im, x, 1, 1));
  }
  EXPECT_EQ(at<std::uint8_t>(both.cpu, 0, 0, 2), 0);
  // torchvision's quirk, kept: s = 63 * (float)(1/255) rounds up, so 63 / s = 254.99998 truncates to 254.
  EXPECT_EQ(at<std::uint8_t>(both.cpu, 63, 0, 2), 254);
  EXPECT_EQ(at<std::uint8_t>(both.cpu, 62, 0, 2), 250);  // 62 / s = 250.95
  expect_autocontrast<std::uint8_t>(im, both.cpu);
}

// The ranges are atomic minima and maxima of order keys: keys order as the floats do, and a float
// image with -0 and +0 in every row gives the same bytes on both backends (the CPU runs the same
// reduction), wider than one run of 64 pixels so that runs meet in a row.
TEST(Autocontrast, OrderKeysOrderAsTheFloatsAndFloatRangesAgree) {
  const float values[] = {-std::numeric_limits<float>::infinity(), -3e38f, -1.f, -1e-45f, -0.f, 0.f, 1e-45f,
                          0.5f, 1.f, 3e38f, std::numeric_limits<float>::infinity()};
  for (std::size_t i = 0; i + 1 < std::size(values); ++i) {
    EXPECT_LT(k::order_key(values[i]), k::order_key(values[i + 1])) << values[i] << " and " << values[i + 1];
    const float back = k::order_value(k::order_key(values[i]));
    EXPECT_EQ(std::memcmp(&back, &values[i], sizeof back), 0) << values[i];
  }
  Image im = testing::random_image({150, 9, 3, DType::F32}, 3);
  for (int y = 0; y < 9; ++y) {
    auto* row = reinterpret_cast<float*>(im.row(y));
    row[3 * (70 + y) + 1] = -0.f;
    row[3 * (140 - y) + 2] = 0.f;
  }
  const auto both = run_both(testing::one_stage(kAutocontrast), im);
  EXPECT_EQ(testing::compare(both.cpu, both.emulated).count, 0u);
  expect_autocontrast<float>(im, both.cpu);
}

}  // namespace
}  // namespace aug::test_autocontrast
