// Each stage against a reference that does not use the code under test: OpenCV where the spec
// (docs/arithmetic.md) says our 8-bit arithmetic equals it bit for bit, the formulas re-derived here
// for the other sample types, and hand-computed values on tiny images.
#include <gtest/gtest.h>

#include <cmath>

#include <opencv2/imgproc.hpp>

#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::random_image;
using testing::run_cpu;

const DType kTypes[] = {DType::U8, DType::U16, DType::F32};
const int kChannels[] = {1, 3, 4};

std::string size_json(int w, int h) { return "[" + std::to_string(w) + ", " + std::to_string(h) + "]"; }

// ---------------------------------------------------------------------------------------------
// flip, crop

TEST(Flip, EqualsCvFlipForEveryTypeAndChannelCount) {
  for (DType t : kTypes)
    for (int c : kChannels) {
      const Image im = random_image({41, 39, c, t}, 1);
      cv::Mat h, v;
      cv::flip(mat(im), h, 1);
      cv::flip(mat(im), v, 0);
      EXPECT_EQ(compare(run_cpu(R"({"stage": "flip", "direction": "horizontal"})", im), from_mat(h)).count, 0u);
      EXPECT_EQ(compare(run_cpu(R"({"stage": "flip", "direction": "vertical"})", im), from_mat(v)).count, 0u);
    }
}

TEST(Crop, CentreAndRandomWindows) {
  const Image im = random_image({50, 40, 3, DType::U16}, 2);
  const Image centre = run_cpu(R"({"stage": "crop", "size": [21, 10]})", im);
  EXPECT_EQ(compare(centre, from_mat(mat(im)(cv::Rect(14, 15, 21, 10)))).count, 0u);  // (50-21)/2, (40-10)/2
  const testing::Both b = testing::run_both(testing::one_stage(R"({"stage": "crop", "size": [21, 10], "position": "random"})"), im);
  const int x = b.plan.record[0]["params"]["x"], y = b.plan.record[0]["params"]["y"];
  EXPECT_LE(x, 29);
  EXPECT_LE(y, 30);
  EXPECT_EQ(compare(b.cpu, from_mat(mat(im)(cv::Rect(x, y, 21, 10)))).count, 0u);
}

TEST(Crop, RandomPositionsCoverTheImage) {
  const Pipeline p = testing::one_stage(R"({"stage": "crop", "size": [2, 2], "position": "random"})");
  std::set<std::pair<int, int>> seen;
  for (int i = 0; i < 400; ++i) {
    const Plan plan = p.plan(3, "f" + std::to_string(i), 0, {5, 4, 1, DType::U8});
    seen.insert({plan.record[0]["params"]["x"].get<int>(), plan.record[0]["params"]["y"].get<int>()});
  }
  EXPECT_EQ(seen.size(), 12u);  // 4 x 3 positions, all reached
}

// ---------------------------------------------------------------------------------------------
// resize

struct SizeCase {
  int w, h, ow, oh;
};
const SizeCase kSizes[] = {{41, 39, 20, 19},  {41, 39, 97, 80},  {40, 38, 20, 19}, {257, 3, 100, 7},
                           {1, 1, 3, 2},      {2, 3, 1, 1},      {2, 3, 7, 5},     {100, 60, 33, 20},
                           {64, 64, 224, 224}, {17, 9, 16, 10},  {31, 31, 10, 10}, {480, 360, 341, 256}};

TEST(Resize, BilinearEightBitEqualsCvInterLinearExact) {
  for (const auto& s : kSizes)
    for (int c : kChannels) {
      const Image im = random_image({s.w, s.h, c, DType::U8}, 7);
      const Image ours = run_cpu(R"({"stage": "resize", "size": )" + size_json(s.ow, s.oh) + "}", im);
      cv::Mat theirs;
      cv::resize(mat(im), theirs, cv::Size(s.ow, s.oh), 0, 0, cv::INTER_LINEAR_EXACT);
      EXPECT_EQ(compare(ours, from_mat(theirs)).count, 0u) << s.w << "x" << s.h << "->" << s.ow << "x" << s.oh << " c" << c;
    }
}

TEST(Resize, BilinearOnPhotographsEqualsOpenCV) {
  for (const char* name : {"astronaut.jpg", "chelsea.png", "coffee_rgba.png", "camera.png"}) {
    const Image im = testing::sample(name);
    const Image ours = run_cpu(R"({"stage": "resize", "short_side": 131})", im);
    cv::Mat theirs;
    cv::resize(mat(im), theirs, cv::Size(ours.width(), ours.height()), 0, 0, cv::INTER_LINEAR_EXACT);
    EXPECT_EQ(compare(ours, from_mat(theirs)).count, 0u) << name;
  }
}

TEST(Resize, NearestEightBitEqualsCvInterNearest) {
  for (const auto& s : kSizes) {
    const Image im = random_image({s.w, s.h, 3, DType::U8}, 8);
    const Image ours = run_cpu(R"({"stage": "resize", "interpolation": "nearest", "size": )" + size_json(s.ow, s.oh) + "}", im);
    cv::Mat theirs;
    cv::resize(mat(im), theirs, cv::Size(s.ow, s.oh), 0, 0, cv::INTER_NEAREST);
    EXPECT_EQ(compare(ours, from_mat(theirs)).count, 0u) << s.w << "x" << s.h << "->" << s.ow << "x" << s.oh;
  }
}

// Bicubic and area use their own fixed-point weights (resize's describe says so): within 1 of OpenCV.
TEST(Resize, BicubicAndAreaEightBitWithinOneOfOpenCV) {
  for (const auto& s : kSizes) {
    const Image im = random_image({s.w, s.h, 3, DType::U8}, 9);
    for (const auto& [name, flag] : {std::pair{"bicubic", cv::INTER_CUBIC}, std::pair{"area", cv::INTER_AREA}}) {
      if (std::string(name) == "area" && (s.ow > s.w) != (s.oh > s.h)) continue;  // OpenCV mixes modes there
      const Image ours = run_cpu(std::string(R"({"stage": "resize", "interpolation": ")") + name + R"(", "size": )" +
                                     size_json(s.ow, s.oh) + "}",
                                 im);
      cv::Mat theirs;
      cv::resize(mat(im), theirs, cv::Size(s.ow, s.oh), 0, 0, flag);
      const auto d = compare(ours, from_mat(theirs));
      EXPECT_LE(d.max, 1) << name << " " << s.w << "x" << s.h << "->" << s.ow << "x" << s.oh << ": " << d.str();
      EXPECT_LT(d.count, ours.shape().values() / 10 + 3) << name;
    }
  }
}

// The resize formula re-derived: half-pixel centres, clamped at the edges, weights in fixed point
// with `bits` fractional bits (c1 = RNE(t 2^bits), c0 = 2^bits - c1), one rounding at the end.
template <class T>
Image reference_bilinear(const Image& in, int ow, int oh, int bits) {
  Image out({ow, oh, in.channels(), in.dtype()});
  struct Tap {
    int i0, i1;
    double w0, w1;
  };
  auto taps = [&](int d, int src, int dst) {
    const double f = (d + 0.5) * (static_cast<double>(src) / dst) - 0.5;
    int i = static_cast<int>(std::floor(f));
    if (i < 0 || src == 1) return Tap{0, 0, 1, 0};
    if (i >= src - 1) return Tap{src - 1, src - 1, 1, 0};
    double t = f - i;
    if (bits) {
      const double one = std::ldexp(1.0, bits);
      t = std::nearbyint(t * one) / one;
    }
    return Tap{i, i + 1, 1 - t, t};
  };
  const int C = in.channels();
  for (int y = 0; y < oh; ++y) {
    const Tap ty = taps(y, in.height(), oh);
    for (int x = 0; x < ow; ++x) {
      const Tap tx = taps(x, in.width(), ow);
      for (int c = 0; c < C; ++c) {
        auto px = [&](int xx, int yy) {
          return static_cast<double>(reinterpret_cast<const T*>(in.row(yy))[xx * C + c]);
        };
        const double v = ty.w0 * (tx.w0 * px(tx.i0, ty.i0) + tx.w1 * px(tx.i1, ty.i0)) +
                         ty.w1 * (tx.w0 * px(tx.i0, ty.i1) + tx.w1 * px(tx.i1, ty.i1));
        T& o = reinterpret_cast<T*>(out.row(y))[x * C + c];
        if constexpr (std::is_same_v<T, float>) o = static_cast<float>(v);
        else o = static_cast<T>(std::floor(v + 0.5));  // exact: the fixed-point sum plus half, shifted
      }
    }
  }
  return out;
}

TEST(Resize, BilinearSixteenBitAndFloatFollowTheFormula) {
  for (const auto& s : kSizes)
    for (int c : {1, 3}) {
      const std::string stage = R"({"stage": "resize", "size": )" + size_json(s.ow, s.oh) + "}";
      const Image u16 = random_image({s.w, s.h, c, DType::U16}, 10);
      EXPECT_EQ(compare(run_cpu(stage, u16), reference_bilinear<std::uint16_t>(u16, s.ow, s.oh, 14)).count, 0u)
          << s.w << "x" << s.h << "->" << s.ow << "x" << s.oh;
      const Image f32 = random_image({s.w, s.h, c, DType::F32}, 11);
      // binary32 weights and sums against double: a few units in the last place.
      EXPECT_LE(compare(run_cpu(stage, f32), reference_bilinear<float>(f32, s.ow, s.oh, 0)).max, 2e-6)
          << s.w << "x" << s.h << "->" << s.ow << "x" << s.oh;
    }
}

TEST(Resize, SidesFromShortSideLongSideAndScale) {
  const Image im = random_image({500, 375, 3, DType::U8}, 12);
  EXPECT_EQ(run_cpu(R"({"stage": "resize", "short_side": 256})", im).shape(), (Shape{341, 256, 3, DType::U8}));
  EXPECT_EQ(run_cpu(R"({"stage": "resize", "long_side": 100})", im).shape(), (Shape{100, 75, 3, DType::U8}));
  EXPECT_EQ(run_cpu(R"({"stage": "resize", "scale": 0.5})", im).shape(), (Shape{250, 188, 3, DType::U8}));  // 187.5: even
  const Image tall = random_image({300, 600, 1, DType::U8}, 13);
  EXPECT_EQ(run_cpu(R"({"stage": "resize", "short_side": 256})", tall).shape(), (Shape{256, 512, 1, DType::U8}));
}

// ---------------------------------------------------------------------------------------------
// gaussian_blur

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

// ---------------------------------------------------------------------------------------------
// channel_gain

TEST(ChannelGain, HandComputedValues) {
  Image im({3, 1, 3, DType::U8});
  const std::uint8_t px[] = {100, 100, 100, 250, 10, 0, 1, 2, 255};
  std::copy(px, px + 9, im.data());
  const Image out = run_cpu(R"({"stage": "channel_gain", "r": 1.1, "g": 0.5, "b": 2})", im);
  // 100*1.1 = 110; 100*0.5 = 50; 100*2 = 200; 250*1.1 = 275 -> 255; 10*0.5 = 5; 1*1.1 = 1.1 -> 1;
  // 2*0.5 = 1; 255*2 -> 255
  const std::uint8_t expected[] = {110, 50, 200, 255, 5, 0, 1, 1, 255};
  EXPECT_TRUE(std::equal(expected, expected + 9, out.data()));

  Image half({1, 1, 1, DType::U8});  // gray: 0.299*2 + 0.587*0 + 0.114*0 = 0.598; 100 * 0.598 = 59.8 -> 60
  half.data()[0] = 100;
  EXPECT_EQ(run_cpu(R"({"stage": "channel_gain", "r": 2, "g": 0, "b": 0})", half).data()[0], 60);
}

TEST(ChannelGain, AlphaUntouchedAndFloatClamped) {
  Image rgba({1, 1, 4, DType::U16});
  auto* p = reinterpret_cast<std::uint16_t*>(rgba.data());
  p[0] = 40000, p[1] = 1000, p[2] = 3, p[3] = 12345;
  const Image out = run_cpu(R"({"stage": "channel_gain", "r": 2, "g": 1.5, "b": 0.5})", rgba);
  const auto* q = reinterpret_cast<const std::uint16_t*>(out.data());
  EXPECT_EQ(q[0], 65535);
  EXPECT_EQ(q[1], 1500);
  EXPECT_EQ(q[2], 2);  // 1.5 rounds half up in the fixed-point formula: (3*32768 + 32768) >> 16 = 2
  EXPECT_EQ(q[3], 12345);

  Image f({1, 1, 4, DType::F32});
  auto* fp = reinterpret_cast<float*>(f.data());
  fp[0] = 0.8f, fp[1] = 0.2f, fp[2] = 0.5f, fp[3] = 1.7f;  // alpha out of range stays as it is
  const Image fo = run_cpu(R"({"stage": "channel_gain", "r": 2, "g": 1.5, "b": 0.5})", f);
  const auto* fq = reinterpret_cast<const float*>(fo.data());
  EXPECT_EQ(fq[0], 1.0f);
  EXPECT_FLOAT_EQ(fq[1], 0.3f);
  EXPECT_EQ(fq[2], 0.25f);
  EXPECT_EQ(fq[3], 1.7f);
}

// ---------------------------------------------------------------------------------------------
// random_resized_crop

TEST(RandomResizedCrop, WindowsFollowScaleAndRatioAndOutputIsTheResizedWindow) {
  const Image im = random_image({300, 200, 3, DType::U8}, 30);
  const Pipeline p = testing::one_stage(R"({"stage": "random_resized_crop", "size": [64, 48], "scale": [0.2, 0.6], "ratio": [0.5, 2]})");
  for (int i = 0; i < 40; ++i) {
    const testing::Both b = testing::run_both(p, im, "k" + std::to_string(i));
    const auto crop = b.plan.record[0]["params"]["crop"];
    const int x = crop[0], y = crop[1], w = crop[2], h = crop[3];
    ASSERT_GE(x, 0);
    ASSERT_GE(y, 0);
    ASSERT_LE(x + w, 300);
    ASSERT_LE(y + h, 200);
    const double area = static_cast<double>(w) * h / (300.0 * 200.0), ratio = static_cast<double>(w) / h;
    EXPECT_GE(area, 0.2 - 0.01);  // rounding of w and h moves the area a little
    EXPECT_LE(area, 0.6 + 0.01);
    EXPECT_GE(ratio, 0.5 - 0.02);
    EXPECT_LE(ratio, 2.0 + 0.02);
    cv::Mat theirs;
    cv::resize(mat(im)(cv::Rect(x, y, w, h)), theirs, cv::Size(64, 48), 0, 0, cv::INTER_LINEAR_EXACT);
    EXPECT_EQ(compare(b.cpu, from_mat(theirs)).count, 0u);
  }
}

TEST(RandomResizedCrop, FallsBackToTheLargestCentredWindow) {
  // No window with area >= 99% and ratio 4 fits a square image: the fallback takes the full width.
  const Pipeline p = testing::one_stage(R"({"stage": "random_resized_crop", "size": [10, 10], "scale": [0.99, 1], "ratio": [4, 5]})");
  const auto crop = p.plan(1, "x", 0, {100, 100, 3, DType::U8}).record[0]["params"]["crop"];
  EXPECT_EQ(crop, nlohmann::json::parse("[0, 37, 100, 25]"));  // h = round(100 / 4) = 25, y = (100 - 25) // 2
}

}  // namespace
}  // namespace aug
