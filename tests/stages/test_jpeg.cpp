// jpeg: the libjpeg mode equal to the real codec (OpenCV's imencode/imdecode round trip) on both backends, alpha
// and deep images, the quality draws, libjpeg's and Kornia's scaled tables, and the kornia mode against Kornia's
// differentiable JPEG re-derived here in double (docs/stages/codec.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "lib/io/codec.hpp"
#include "lib/stages/codec/jpeg_tables.hpp"
#include "tests/stages/stage_runner.hpp"
#include "tests/stages/unit_range_support.hpp"

namespace aug::test_jpeg {
namespace {

using testing::compare;
using testing::random_image;
using testing::unit_range::fval;

// libjpeg mode: equal to the codec (OpenCV's imencode/imdecode round trip).
Image opencv_roundtrip(const Image& rgb, int quality) {
  cv::Mat bgr = testing::mat(rgb), back;
  if (rgb.channels() == 3) cv::cvtColor(bgr, bgr, cv::COLOR_RGB2BGR);
  std::vector<std::uint8_t> bytes;
  testing::imencode(".jpg", bgr, bytes, {cv::IMWRITE_JPEG_QUALITY, quality});
  back = testing::imdecode(bytes, rgb.channels() == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
  if (rgb.channels() == 3) cv::cvtColor(back, back, cv::COLOR_BGR2RGB);
  return testing::from_mat(back);
}

class JpegExact : public ::testing::TestWithParam<int> {};

TEST_P(JpegExact, CpuPathAndKernelsEqualOpenCVsRoundTrip) {
  const int q = GetParam();
  const Pipeline p = testing::one_stage(R"({"stage": "jpeg", "quality": )" + std::to_string(q) + "}");
  std::vector<std::pair<std::string, Image>> images;
  for (const char* name : {"astronaut.jpg", "chelsea.png", "rocket.jpg", "camera.png"})
    images.push_back({name, testing::sample(name)});
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{7, 5}, std::pair{17, 33}, std::pair{2, 2}, std::pair{3, 4}})
    for (int c : {1, 3})
      images.push_back({std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c),
                        random_image({w, h, c, DType::U8}, 7)});
  std::size_t values = 0;
  for (const auto& [name, im] : images) {
    const testing::Both b = testing::run_both(p, im);
    const Image reference = opencv_roundtrip(im, q);
    const auto cpu = compare(b.cpu, reference), kernels = compare(b.emulated, reference);
    EXPECT_EQ(cpu.count, 0u) << name << " q" << q << " CPU: " << cpu.str();
    EXPECT_EQ(kernels.count, 0u) << name << " q" << q << " kernels: " << kernels.str();
    values += im.shape().values();
  }
  RecordProperty("values_compared", static_cast<int>(values));
}

INSTANTIATE_TEST_SUITE_P(Qualities, JpegExact, ::testing::Values(1, 10, 50, 75, 90, 95, 100));

TEST(Jpeg, AlphaCarriedAndDeepImagesThroughEightBits) {
  const Image rgba = testing::sample("coffee_rgba.png");
  const testing::Both b = testing::run_both(testing::one_stage(R"({"stage": "jpeg", "quality": 60})"), rgba);
  EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
  cv::Mat alpha_in, alpha_out;
  cv::extractChannel(testing::mat(rgba), alpha_in, 3);
  cv::extractChannel(testing::mat(b.cpu), alpha_out, 3);
  EXPECT_EQ(cv::norm(alpha_in, alpha_out, cv::NORM_INF), 0);
  // 16-bit: the 8-bit round trip of RNE(v / 257), times 257.
  const Image deep = testing::sample_as("chelsea.png", DType::U16, 3);
  const Image out = testing::run_cpu(R"({"stage": "jpeg", "quality": 80})", deep);
  const Image expected = to_u16(opencv_roundtrip(testing::sample("chelsea.png"), 80));
  EXPECT_EQ(compare(out, expected).count, 0u);
}

TEST(Jpeg, QualitiesAreIntegersInLibjpegModeAndRealInKorniaMode) {
  EXPECT_THROW(testing::one_stage(R"({"stage": "jpeg", "quality": 37.5})"), PipelineError);
  EXPECT_NO_THROW(testing::one_stage(R"({"stage": "jpeg", "quality": 37.5, "mode": "kornia"})"));
  const Pipeline lib = testing::one_stage(R"({"stage": "jpeg", "quality": [40.5, 42.5]})");
  const Pipeline kor = testing::one_stage(R"({"stage": "jpeg", "quality": [40.5, 42.5], "mode": "kornia"})");
  std::set<int> ints;
  bool fractional = false;
  for (int i = 0; i < 60; ++i) {
    ints.insert(lib.plan(1, std::to_string(i), 0, {8, 8, 3, DType::U8}).record[0]["params"]["quality"].get<int>());
    const double q = kor.plan(1, std::to_string(i), 0, {8, 8, 3, DType::U8}).record[0]["params"]["quality"];
    fractional = fractional || q != std::floor(q);
  }
  EXPECT_EQ(ints, (std::set<int>{41, 42}));
  EXPECT_TRUE(fractional);
  EXPECT_THROW(kor.plan(1, "g", 0, {8, 8, 1, DType::U8}), InputError);  // kornia mode needs RGB
}

TEST(Jpeg, LibjpegTablesScaleTheStandardOnes) {
  const auto q50 = libjpeg_tables(50);
  EXPECT_EQ(q50.luma[0], 16);
  EXPECT_EQ(q50.chroma[63], 99);
  const auto q95 = libjpeg_tables(95);  // s = 10: (16 * 10 + 50) / 100 = 2
  const std::uint16_t row0[] = {2, 1, 1, 2, 2, 4, 5, 6}, last[] = {7, 9, 10, 10, 11, 10, 10, 10};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(q95.luma[i], row0[i]);
    EXPECT_EQ(q95.luma[56 + i], last[i]);
  }
  const auto q1 = libjpeg_tables(1);  // s = 5000: clamped to 255 (baseline)
  EXPECT_EQ(q1.luma[0], 255);
}

TEST(Jpeg, KorniaTablesHaveTheDocumentedQuirks) {
  // Kornia's scaled tables: Q' row 0 at q = 90 and at q = 99.5, and saturation at q = 2.
  const float q90[] = {3.006f, 2.006f, 2.000f, 3.006f, 4.988f, 8.000f, 10.003f, 12.002f};
  const float q995[] = {0.121f, 0.120f, 0.120f, 0.121f, 0.121f, 0.123f, 0.124f, 0.899f};
  const auto t90 = kornia_tables(90), t995 = kornia_tables(99.5f), t2 = kornia_tables(2);
  for (int i = 0; i < 8; ++i) {
    EXPECT_NEAR(t90.q_luma[i], q90[i], 0.0015) << i;
    EXPECT_NEAR(t995.q_luma[i], q995[i], 0.0015) << i;
  }
  EXPECT_NEAR(t2.q_luma[0], 254.889, 0.001);  // QT 16: saturates near 255
  EXPECT_NEAR(t2.q_luma[2], 250.0, 0.001);    // QT 10: 10 * 2499.875 + 50 = 25048.75 / 100 -> dfloor(250.4875)
  EXPECT_NEAR(kornia_tables(50).q_luma[0], 16.0, 0.13);
  // The chroma blur taps: exp(-2 x^2), normalised.
  EXPECT_NEAR(t90.blur[0], 0.106507, 1e-6);
  EXPECT_NEAR(t90.blur[1], 0.786986, 1e-6);
}

TEST(Jpeg, KorniaModeMatchesTheFormulas) {
  // Gray input (R = G = B) makes Cb = Cr = 127.5 everywhere, so the chroma path reduces to one
  // constant block: DC = 8 * (127.5 - 128) = -4 (Kornia shifts chroma by 128 too), quantised and
  // back, 128 + 0.125 * dround(-4 / Q'c) Q'c. The luma path is re-derived in full, in double:
  // 16x16 and a padded 12x20.
  for (const auto& [w, h] : {std::pair{16, 16}, std::pair{12, 20}}) {
    Image in({w, h, 3, DType::F32});
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const float v = 0.5f + 0.3f * std::sin(0.7f * x) * std::cos(0.4f * y);
        for (int c = 0; c < 3; ++c) reinterpret_cast<float*>(in.row(y))[x * 3 + c] = v;
      }
    for (double q : {10.0, 50.0, 90.0}) {
      const Image out =
          testing::run_cpu(R"({"stage": "jpeg", "mode": "kornia", "quality": )" + std::to_string(q) + "}", in);
      // Reference: the luma plane's round trip in double, then Y + 1.403 (Cr - 0.5) etc. with Cb = Cr = 0.5.
      const int Wp = (w + 15) / 16 * 16, Hp = (h + 15) / 16 * 16;
      std::vector<double> Y(Wp * Hp);
      for (int y = 0; y < Hp; ++y)
        for (int x = 0; x < Wp; ++x) {
          const double v = fval(in, std::min(x, w - 1), std::min(y, h - 1), 0);
          Y[y * Wp + x] = (0.299 * v + 0.587 * v + 0.114 * v) * 255;
        }
      auto dfloor = [](double x) {
        const double f = std::floor(x);
        return f + std::pow(x - 0.5 - f, 3);
      };
      auto dround = [](double x) {
        const double r = std::nearbyint(x);
        return r + std::pow(x - r, 3);
      };
      auto softclip = [](double x) {
        return x > 255 ? -0.02 * (std::exp(255 - x) - 1) + 255 : (x < 1 ? 0.02 * (std::exp(x - 1) - 1) + 1 : x);
      };
      const int QY[64] = {16, 11, 10, 16, 24, 40, 51, 61,
                          12, 12, 14, 19, 26, 58, 60, 55,
                          14, 13, 16, 24, 40, 57, 69, 56,
                          14, 17, 22, 29, 51, 87, 80, 62,
                          18, 22, 37, 56, 68, 109, 103, 77,
                          24, 35, 55, 64, 81, 104, 113, 92,
                          49, 64, 78, 87, 103, 121, 120, 101,
                          72, 92, 95, 98, 112, 100, 103, 99};
      const double s = dfloor(q < 50 ? 5000 / q : 200 - 2 * q), pi = static_cast<float>(M_PI);
      auto alpha = [](int u) { return u ? 1.0 : 1 / std::sqrt(2.0); };
      for (int by0 = 0; by0 < Hp; by0 += 8)
        for (int bx0 = 0; bx0 < Wp; bx0 += 8) {
          double F[8][8];
          for (int u = 0; u < 8; ++u)
            for (int v = 0; v < 8; ++v) {
              double acc = 0;
              for (int x = 0; x < 8; ++x)
                for (int y = 0; y < 8; ++y)
                  acc += (Y[(by0 + x) * Wp + bx0 + y] - 128) * std::cos((2 * x + 1) * u * pi / 16) *
                         std::cos((2 * y + 1) * v * pi / 16);
              const double Q = dfloor(softclip((QY[u * 8 + v] * s + 50) / 100));
              F[u][v] = dround(0.25 * alpha(u) * alpha(v) * acc / Q) * Q;
            }
          for (int x = 0; x < 8; ++x)
            for (int y = 0; y < 8; ++y) {
              double acc = 0;
              for (int u = 0; u < 8; ++u)
                for (int v = 0; v < 8; ++v)
                  acc += 0.25 * alpha(u) * alpha(v) * F[u][v] * std::cos((2 * x + 1) * u * pi / 16) *
                         std::cos((2 * y + 1) * v * pi / 16);
              Y[(by0 + x) * Wp + bx0 + y] = acc + 128;
            }
        }
      const double qc = dfloor(softclip((17 * s + 50) / 100));  // QT_c[0] = 17
      const double chroma = (128 + 0.125 * dround(-4 / qc) * qc) / 255 - 0.5;
      const double shift[3] = {1.403 * chroma, -0.714 * chroma - 0.344 * chroma, 1.773 * chroma};
      std::size_t close = 0, total = 0;
      double worst = 0;
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          for (int c = 0; c < 3; ++c) {
            const double expected = std::clamp(Y[y * Wp + x] / 255 + shift[c], 0.0, 1.0);
            const double d = std::fabs(fval(out, x, y, c) - expected);
            worst = std::max(worst, d);
            close += d < 2e-4;
            ++total;
          }
        }
      // dround jumps at half steps, where binary32 and double may fall on different sides.
      EXPECT_GE(close, total * 99 / 100) << w << "x" << h << " q" << q << " worst " << worst;
      EXPECT_LT(worst, 0.02) << w << "x" << h << " q" << q;
    }
  }
}

}  // namespace
}  // namespace aug::test_jpeg
