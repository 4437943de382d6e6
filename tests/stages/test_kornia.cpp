// The Kornia stages against values derived here from Kornia's formulas (docs/arithmetic.md) (and the
// values it documents), including the edge cases it lists, and jpeg's libjpeg mode against the
// real codec.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/core/philox.hpp"
#include "lib/core/error.hpp"
#include "lib/core/rng.hpp"
#include "lib/io/codec.hpp"
#include "lib/stages/codec/jpeg_tables.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using testing::compare;
using testing::random_image;

Image constant(const Shape& s, double v) {
  Image im(s);
  with_sample_type(s.dtype, [&](auto tag) {
    using T = decltype(tag);
    auto* p = reinterpret_cast<T*>(im.data());
    for (std::size_t i = 0; i < s.values(); ++i) p[i] = static_cast<T>(v);
  });
  return im;
}

float fval(const Image& im, int x, int y, int c) { return reinterpret_cast<const float*>(im.row(y))[x * im.channels() + c]; }

// ---------------------------------------------------------------------------------------------
// gaussian_illumination

// The pattern in double: profiles over pixel indices (+0.5 on even sizes), each divided by its
// sum, outer product, min-max normalised with 1e-6.
std::vector<double> pattern(int w, int h, double cx, double cy, double sx, double sy) {
  auto prof = [](int n, double c, double s) {
    std::vector<double> g(static_cast<std::size_t>(n));
    double sum = 0;
    for (int i = 0; i < n; ++i) {
      const double d = i - c + (n % 2 == 0 ? 0.5 : 0);
      sum += g[i] = std::exp(-d * d / (2 * s * s));
    }
    for (auto& v : g) v /= sum;
    return g;
  };
  const auto gx = prof(w, cx, sx), gy = prof(h, cy, sy);
  std::vector<double> G;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) G.push_back(gy[y] * gx[x]);
  const auto [mn, mx] = std::minmax_element(G.begin(), G.end());
  const double lo = *mn, hi = *mx;
  for (auto& v : G) v = (v - lo) / (hi - lo + 1e-6);
  return G;
}

TEST(GaussianIllumination, FollowsTheFormulaWithEvenSizeShift) {
  // 6x4: centre_x = RNE(6 * 0.5) = 3, sigma_x = 6 * 0.5 = 3; centre_y = RNE(4 * 0.5) = 2, sigma_y = 2.
  const Image in = constant({6, 4, 3, DType::F32}, 0.25);
  const Image out = testing::run_cpu(
      R"({"stage": "gaussian_illumination", "gain": 0.5, "center": 0.5, "sigma": 0.5, "sign": 1, "p": 1})", in);
  const auto N = pattern(6, 4, 3, 2, 3, 2);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 6; ++x)
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(fval(out, x, y, c), 0.25 + 0.5 * N[y * 6 + x], 2e-6) << x << "," << y;
  // Even sizes put the peak between pixels c - 1 and c.
  EXPECT_EQ(fval(out, 2, 1, 0), fval(out, 3, 1, 0));
  EXPECT_EQ(fval(out, 2, 1, 0), fval(out, 2, 2, 0));
  // The 1e-6 at the pattern's absolute scale keeps its maximum below 1.
  const double peak = *std::max_element(N.begin(), N.end());
  EXPECT_LT(peak, 1.0);
  EXPECT_GT(peak, 0.9999);
}

TEST(GaussianIllumination, OddSizesPeakOnTheCentreAndSignDarkens) {
  const Image in = constant({5, 5, 1, DType::F32}, 0.5);
  const Image out = testing::run_cpu(
      R"({"stage": "gaussian_illumination", "gain": 0.6, "center": 0.4, "sigma": 0.3, "sign": -1, "p": 1})", in);
  // centre RNE(5 * 0.4) = RNE(2.0) = 2; darkest there, clamped at 0: 0.5 - 0.6 * N
  const auto N = pattern(5, 5, 2, 2, 1.5, 1.5);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 5; ++x) EXPECT_NEAR(fval(out, x, y, 0), std::max(0.0, 0.5 - 0.6 * N[y * 5 + x]), 2e-6);
  EXPECT_EQ(fval(out, 2, 2, 0), 0.f);
}

TEST(GaussianIllumination, IntegerImagesRoundHalfToEvenAndKeepAlpha) {
  Image in = constant({4, 4, 4, DType::U8}, 100);
  for (int i = 3; i < 64; i += 4) in.data()[i] = 77;
  const Image out = testing::run_cpu(
      R"({"stage": "gaussian_illumination", "gain": 0.3, "center": 0.5, "sigma": 0.4, "sign": 1, "p": 1})", in);
  const auto N = pattern(4, 4, 2, 2, 1.6, 1.6);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) {
      const double expected = std::nearbyint(std::min(1.0, 100 / 255.0 + 0.3 * N[y * 4 + x]) * 255);
      EXPECT_NEAR(out.row(y)[x * 4], expected, 1) << x << "," << y;  // binary32 vs double at .5 ties only
      EXPECT_EQ(out.row(y)[x * 4 + 3], 77);
    }
}

TEST(GaussianIllumination, SamplesCentresAsPixelIndicesAndRejectsZeroSigma) {
  const Pipeline p = testing::one_stage(R"({"stage": "gaussian_illumination", "p": 1})");
  for (int i = 0; i < 50; ++i) {
    const auto params = p.plan(1, std::to_string(i), 0, {200, 100, 3, DType::U8}).record[0]["params"];
    const double cx = params["center"][0], sx = params["sigma"][0], sy = params["sigma"][1];
    EXPECT_EQ(cx, std::floor(cx));
    EXPECT_GE(cx, 20);
    EXPECT_LE(cx, 180);
    EXPECT_GE(sx, 40);  // 200 * [0.2, 1.0]
    EXPECT_LE(sx, 200);
    EXPECT_GE(sy, 20);
    EXPECT_LE(sy, 100);
    EXPECT_GE(params["gain"].get<double>(), 0.01);
    EXPECT_LE(params["gain"].get<double>(), 0.15);
  }
  EXPECT_THROW(testing::one_stage(R"({"stage": "gaussian_illumination", "sigma": 0})"), PipelineError);
  EXPECT_THROW(testing::one_stage(R"({"stage": "gaussian_illumination", "sigma": [0, 0.5]})"), PipelineError);
}

TEST(GaussianIllumination, DefaultProbabilityIsKorniasHalf) {
  const Pipeline p = testing::one_stage(R"({"stage": "gaussian_illumination"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i) applied += p.plan(3, std::to_string(i), 0, {8, 8, 3, DType::U8}).steps[0].op != nullptr;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.04);
}

// ---------------------------------------------------------------------------------------------
// planckian_jitter

TEST(PlanckianJitter, MultipliesRedAndBlueByTheRowsRatios) {
  // Rows of Kornia's table with the float32 ratios Kornia computes from them.
  struct Row {
    const char* mode;
    int index;
    double r_g, b_g;
  };
  for (const Row& r : {Row{"blackbody", 0, 1.673616, 0.003227}, Row{"blackbody", 12, 0.908563, 1.257315},
                       Row{"blackbody", 24, 0.752848, 1.490006}, Row{"CIED", 5, 0.997215, 0.997215},
                       Row{"CIED", 22, 0.681712, 1.458360}}) {
    const std::string stage = std::string(R"({"stage": "planckian_jitter", "p": 1, "mode": ")") + r.mode +
                              R"(", "select_from": [)" + std::to_string(r.index) + "]}";
    Image in = constant({2, 1, 3, DType::F32}, 0.5);
    reinterpret_cast<float*>(in.data())[3] = 0.9f;   // second pixel: red 0.9, clamped at 1 by large ratios
    reinterpret_cast<float*>(in.data())[5] = -0.2f;  // and blue below 0: no lower clamp
    Image bright = constant({1, 1, 3, DType::F32}, 1.5);  // every channel, green too, is clamped at 1
    const Image clamped = testing::run_cpu(stage, bright);
    EXPECT_EQ(fval(clamped, 0, 0, 1), 1.f);
    const testing::Both b = testing::run_both(testing::one_stage(stage), in);
    EXPECT_EQ(b.plan.record[0]["params"]["row"], r.index);
    EXPECT_NEAR(fval(b.cpu, 0, 0, 0), 0.5 * r.r_g, 1e-6) << r.mode << " " << r.index;
    EXPECT_EQ(fval(b.cpu, 0, 0, 1), 0.5f);
    EXPECT_NEAR(fval(b.cpu, 0, 0, 2), 0.5 * r.b_g, 1e-6);
    EXPECT_NEAR(fval(b.cpu, 1, 0, 0), std::min(1.0, 0.9 * r.r_g), 1e-6);
    EXPECT_NEAR(fval(b.cpu, 1, 0, 2), -0.2 * r.b_g, 1e-6);
    EXPECT_EQ(fval(b.cpu, 1, 0, 1), 0.5f);
    EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
  }
}

TEST(PlanckianJitter, SelectFromOrderAndRepetitionWeight) {
  const Pipeline p = testing::one_stage(R"({"stage": "planckian_jitter", "p": 1, "select_from": [3, 3, 20]})");
  std::map<int, int> seen;
  for (int i = 0; i < 3000; ++i) ++seen[p.plan(1, std::to_string(i), 0, {4, 4, 3, DType::U8}).record[0]["params"]["row"].get<int>()];
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_NEAR(seen[3] / 3000.0, 2.0 / 3, 0.03);
  EXPECT_THROW(testing::one_stage(R"({"stage": "planckian_jitter", "mode": "CIED", "select_from": [23]})"), PipelineError);
}

TEST(PlanckianJitter, IntegerImagesAndGrayscale) {
  Image in({1, 1, 4, DType::U8});
  const std::uint8_t px[] = {100, 90, 200, 33};
  std::copy(px, px + 4, in.data());
  const Image out = testing::run_cpu(R"({"stage": "planckian_jitter", "p": 1, "select_from": [24]})", in);
  EXPECT_EQ(out.data()[0], std::nearbyint(100 / 255.0 * 0.752848 * 255));  // 75.28 -> 75
  EXPECT_EQ(out.data()[1], 90);
  EXPECT_EQ(out.data()[2], 255);  // 200 * 1.49 > 255: clamped
  EXPECT_EQ(out.data()[3], 33);
  const Pipeline p = testing::one_stage(R"({"stage": "planckian_jitter", "p": 1})");
  try {
    p.plan(0, "g.png", 0, {4, 4, 1, DType::U8});
    FAIL() << "a grayscale image must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("planckian_jitter (/stages/0) needs 3 or 4 channels"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// jpeg, libjpeg mode: equal to the codec (OpenCV's imencode/imdecode round trip)

Image opencv_roundtrip(const Image& rgb, int quality) {
  cv::Mat bgr = testing::mat(rgb), back;
  if (rgb.channels() == 3) cv::cvtColor(bgr, bgr, cv::COLOR_RGB2BGR);
  std::vector<std::uint8_t> bytes;
  cv::imencode(".jpg", bgr, bytes, {cv::IMWRITE_JPEG_QUALITY, quality});
  back = cv::imdecode(bytes, rgb.channels() == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
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
      images.push_back({std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c), random_image({w, h, c, DType::U8}, 7)});
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
      const Image out = testing::run_cpu(R"({"stage": "jpeg", "mode": "kornia", "quality": )" + std::to_string(q) + "}", in);
      // Reference: the luma plane's round trip in double, then Y + 1.403 (Cr - 0.5) etc. with Cb = Cr = 0.5.
      const int Wp = (w + 15) / 16 * 16, Hp = (h + 15) / 16 * 16;
      std::vector<double> Y(Wp * Hp);
      for (int y = 0; y < Hp; ++y)
        for (int x = 0; x < Wp; ++x) {
          const double v = fval(in, std::min(x, w - 1), std::min(y, h - 1), 0);
          Y[y * Wp + x] = (0.299 * v + 0.587 * v + 0.114 * v) * 255;
        }
      auto dfloor = [](double x) { const double f = std::floor(x); return f + std::pow(x - 0.5 - f, 3); };
      auto dround = [](double x) { const double r = std::nearbyint(x); return r + std::pow(x - r, 3); };
      auto softclip = [](double x) { return x > 255 ? -0.02 * (std::exp(255 - x) - 1) + 255 : (x < 1 ? 0.02 * (std::exp(x - 1) - 1) + 1 : x); };
      const int QY[64] = {16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
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

// ---------------------------------------------------------------------------------------------
// elastic

TEST(Elastic, ZeroDisplacementIsTheIdentity) {
  // The identity-preserving grid (Kornia #4382): alpha 0 changes nothing, whatever the padding,
  // interpolation, type or size (Kornia before it shifted images by up to 11.25 on a 4x4 ramp).
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (const char* interp : {"bilinear", "nearest"})
      for (const char* pad : {"zeros", "border", "reflection"})
        for (const auto& [w, h] : {std::pair{4, 4}, std::pair{41, 39}, std::pair{1, 1}}) {
          const Image im = random_image({w, h, 3, t}, 3);
          const Image out = testing::run_cpu(std::string(R"({"stage": "elastic", "p": 1, "alpha": [0, 0], "kernel_size": 5, "sigma": 2, "interpolation": ")") +
                                                 interp + R"(", "padding": ")" + pad + "\"}",
                                             im);
          EXPECT_EQ(compare(out, im).count, 0u) << dtype_name(t) << " " << interp << " " << pad << " " << w << "x" << h;
        }
}

TEST(Elastic, AlphaIsInXYOrder) {
  // An image constant along x is unchanged by horizontal displacement (border padding) and
  // changed by vertical displacement; alpha[0] must move along x only.
  Image rows({32, 24, 1, DType::F32});
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 32; ++x) reinterpret_cast<float*>(rows.row(y))[x] = y / 23.f;
  const std::string base = R"({"stage": "elastic", "p": 1, "kernel_size": 3, "sigma": 1, "padding": "border", "alpha": )";
  EXPECT_LT(compare(testing::run_cpu(base + "[20, 0]}", rows), rows).max, 1e-6);
  EXPECT_GT(compare(testing::run_cpu(base + "[0, 20]}", rows), rows).max, 0.01);
}

TEST(Elastic, PaddingIsKorniasNameForBorder) {
  // Kornia's padding words and the project's border words give the same pixels; both at once is an error.
  const Image im = random_image({23, 17, 3, DType::U8}, 8);
  const std::string base = R"({"stage": "elastic", "p": 1, "kernel_size": 5, "sigma": 1, "alpha": [9, 9], )";
  for (const auto& [kornia, ours] : {std::pair{"zeros", "constant"}, std::pair{"border", "replicate"},
                                     std::pair{"reflection", "reflect"}}) {
    const Image a = testing::run_cpu(base + R"("padding": ")" + kornia + "\"}", im);
    const Image b = testing::run_cpu(base + R"("border": ")" + ours + "\"}", im);
    EXPECT_EQ(compare(a, b).count, 0u) << kornia << " vs " << ours;
  }
  EXPECT_EQ(compare(testing::run_cpu(base + R"("border": "constant"})", im), testing::run_cpu(base.substr(0, base.size() - 2) + "}", im)).count, 0u)
      << "constant is the default";
  try {
    testing::one_stage(base + R"("padding": "zeros", "border": "constant"})");
    ADD_FAILURE() << "padding and border together were accepted";
  } catch (const PipelineError& e) {
    EXPECT_NE(std::string(e.what()).find("padding"), std::string::npos) << e.what();
  }
}

// The whole stage re-derived in double: the noise from the keyed Philox stream, Kornia's zero-padded
// separable smoothing with kernel_size/sigma in (y, x) order and alpha in (x, y) order, the
// identity-preserving grid and PyTorch's bilinear zeros-padded sampling.
TEST(Elastic, FollowsTheFormulasAndAxisOrders) {
  const int W = 13, H = 9;
  const Image im = random_image({W, H, 1, DType::F32}, 17);
  const std::string stage = R"({"stage": "elastic", "p": 1, "kernel_size": [3, 7], "sigma": [1.0, 2.5], "alpha": [0.3, 0.1]})";
  const testing::Both b = testing::run_both(testing::one_stage(stage), im, "field.png");
  EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);

  const k::KeyedStream stream = keyed_stream(11, "field.png", 0, 1);  // seed 11, copy 0, stage at position 1
  std::vector<double> nx(W * H), ny(W * H);
  for (int i = 0; i < W * H; ++i) {
    const auto r = k::philox4x32_10({{static_cast<std::uint32_t>(i), 1, stream.stage, stream.copy}}, stream.key0, stream.key1);
    nx[i] = 2.0 * ((r.v[0] >> 8) / 16777216.0) - 1;
    ny[i] = 2.0 * ((r.v[1] >> 8) / 16777216.0) - 1;
  }
  auto gaussian = [](int n, double s) {
    std::vector<double> g(n);
    double sum = 0;
    for (int k = 0; k < n; ++k) sum += g[k] = std::exp(-std::pow(k - n / 2, 2) / (2 * s * s));
    for (auto& v : g) v /= sum;
    return g;
  };
  const auto kx = gaussian(7, 2.5), ky = gaussian(3, 1.0);  // x: kernel_size[1], sigma[1]
  auto smooth = [&](const std::vector<double>& n) {
    std::vector<double> a(n.size()), out(n.size());
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        for (int k = 0; k < 7; ++k)
          if (x + k - 3 >= 0 && x + k - 3 < W) a[y * W + x] += kx[k] * n[y * W + x + k - 3];
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        for (int k = 0; k < 3; ++k)
          if (y + k - 1 >= 0 && y + k - 1 < H) out[y * W + x] += ky[k] * a[(y + k - 1) * W + x];
    return out;
  };
  const auto dx = smooth(nx), dy = smooth(ny);
  double worst = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const double gx = std::clamp((2.0 * x + 1) / W - 1 + 0.3 * dx[y * W + x], -1.0, 1.0);  // alpha[0] on x
      const double gy = std::clamp((2.0 * y + 1) / H - 1 + 0.1 * dy[y * W + x], -1.0, 1.0);
      const double px = ((gx + 1) * W - 1) / 2, py = ((gy + 1) * H - 1) / 2;
      const int x0 = static_cast<int>(std::floor(px)), y0 = static_cast<int>(std::floor(py));
      const double tx = px - x0, ty = py - y0;
      double v = 0;
      for (int a = 0; a < 2; ++a)
        for (int c = 0; c < 2; ++c) {
          const int xx = x0 + c, yy = y0 + a;
          if (xx >= 0 && xx < W && yy >= 0 && yy < H)
            v += (c ? tx : 1 - tx) * (a ? ty : 1 - ty) * fval(im, xx, yy, 0);
        }
      worst = std::max(worst, std::fabs(v - fval(b.cpu, x, y, 0)));
    }
  EXPECT_LT(worst, 2e-5);
}

TEST(Elastic, IntegerImagesUseFixedPointWeights) {
  const Image u8 = random_image({41, 39, 3, DType::U8}, 5);
  const std::string stage = R"({"stage": "elastic", "p": 1, "kernel_size": 9, "sigma": 2, "alpha": [2, 2]})";
  const Image via_float = testing::run_cpu(stage, to_f32(u8));
  const Image direct = testing::run_cpu(stage, u8);
  // The same field; coordinates in 1/32 pixel move a sample by at most 1/64 pixel, so on this
  // noise (neighbours up to 255 apart) the fixed-point result is within 255/64 + 1 of the float one.
  EXPECT_LE(compare(direct, to_u8(via_float)).max, 5);
}

}  // namespace
}  // namespace aug
