// sharpness: torchvision's adjust_sharpness (v2) written out here, the binary32 convolution rounded
// for integer images, against both backends; the border, small images and constant images.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/stages/stage_runner.hpp"

namespace aug::test_sharpness {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

// conv2d with [[a, a, a], [a, b, a], [a, a, a]] (a = 1/13, b = 5/13 in binary32) on the interior, the
// blurred image rounded for integer images, then x + (1 - f) * (d - x), clamp, truncate; the
// border keeps x (clamped for float images).
template <class T>
Image reference(const Image& in, double factor) {
  const int W = in.shape().width, H = in.shape().height, C = in.shape().channels;
  const int cc = C == 4 ? 3 : C;
  constexpr bool fp = std::is_same_v<T, float>;
  double max = 1.0;
  if constexpr (!fp) max = static_cast<double>(k::SampleTraits<T>::max);
  Image out = in.clone();
  if (W <= 2 || H <= 2) return out;
  const float a = static_cast<float>(1.0 / 13.0), b = static_cast<float>(5.0 / 13.0);
  const float alpha = static_cast<float>(1.0 - factor);
  auto at = [&](int x, int y, int c) { return static_cast<float>(reinterpret_cast<const T*>(in.row(y))[x * C + c]); };
  for (int y = 0; y < H; ++y) {
    T* d = reinterpret_cast<T*>(out.row(y));
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < cc; ++c) {
        const float v = at(x, y, c);
        float o = v;
        if (x > 0 && y > 0 && x < W - 1 && y < H - 1) {
          // a double sum: far closer than the distance of n / 13 to a half-integer, so rounding it
          // gives torch's rounded binary32 convolution for integer images
          double conv = 0;
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) conv += static_cast<double>(dx == 0 && dy == 0 ? b : a) * at(x + dx, y + dy, c);
          float deg = static_cast<float>(conv);
          if (!fp) deg = std::nearbyint(deg);
          o = v + alpha * (deg - v);
        }
        o = std::min(std::max(o, 0.f), static_cast<float>(max));
        d[x * C + c] = fp ? static_cast<T>(o) : static_cast<T>(std::trunc(o));
      }
  }
  return out;
}

Image reference_any(const Image& in, double factor) {
  switch (in.dtype()) {
    case DType::U8: return reference<std::uint8_t>(in, factor);
    case DType::U16: return reference<std::uint16_t>(in, factor);
    case DType::F32: break;
  }
  return reference<float>(in, factor);
}

TEST(Sharpness, IntegerImagesEqualTorchvisionsFormula) {
  for (double factor : {0.0, 0.3, 2.0, 3.7}) {
    const Pipeline pipe = one_stage(R"({"stage": "sharpness", "p": 1, "factor": )" + std::to_string(factor) + "}");
    for (DType t : {DType::U8, DType::U16})
      for (int c : {1, 3, 4}) {
        const Image in = testing::random_image({41, 29, c, t}, 13);
        const auto b = run_both(pipe, in);
        const Image want = reference_any(in, b.plan.steps.at(0).op->params().at("factor").get<double>());
        SCOPED_TRACE(std::to_string(factor) + " " + dtype_name(t) + " c=" + std::to_string(c));
        EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
        EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
      }
  }
}

TEST(Sharpness, FloatImagesAreWithinAnUlpOrTwoOfTheFormula) {
  // The binary32 convolution's order of sums is torch's own; a double reference is within a few ulp.
  const Pipeline pipe = one_stage(R"({"stage": "sharpness", "p": 1, "factor": 2.5})");
  for (int c : {1, 3, 4}) {
    const Image in = testing::random_image({41, 29, c, DType::F32}, 17);
    const auto b = run_both(pipe, in);
    const Image want = reference_any(in, 2.5);
    EXPECT_EQ(compare(b.cpu, want, 1e-6).count, 0u) << compare(b.cpu, want).str();
    EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
  }
}

TEST(Sharpness, PhotographEqualsTheFormula) {
  const Image in = testing::sample_as("astronaut.jpg", DType::U8, 3);
  const auto b = run_both(one_stage(R"({"stage": "sharpness", "p": 1, "factor": [0.0, 4.0]})"), in);
  const Image want = reference_any(in, b.plan.steps.at(0).op->params().at("factor").get<double>());
  EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
  EXPECT_EQ(compare(b.emulated, want).count, 0u);
}

TEST(Sharpness, FactorZeroIsTheRoundedBlurInsideAndTheBorderIsKept) {
  Image in({5, 4, 1, DType::U8});
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 5; ++x) in.row(y)[x] = static_cast<std::uint8_t>(x * 40 + y * 17 + (x * y) % 7);
  const Image out = testing::run_cpu(R"({"stage": "sharpness", "p": 1, "factor": 0})", in);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 5; ++x) {
      if (x == 0 || y == 0 || x == 4 || y == 3) {
        EXPECT_EQ(out.row(y)[x], in.row(y)[x]);
        continue;
      }
      int n = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) n += in.row(y + dy)[x + dx] * (dx == 0 && dy == 0 ? 5 : 1);
      EXPECT_EQ(out.row(y)[x], static_cast<int>(std::lround(n / 13.0))) << x << "," << y;
    }
}

TEST(Sharpness, ConstantImagesAndSmallImagesAreUnchanged) {
  Image flat({9, 7, 3, DType::U8});
  for (int y = 0; y < 7; ++y)
    for (int i = 0; i < 27; ++i) flat.row(y)[i] = 201;
  EXPECT_EQ(compare(testing::run_cpu(R"({"stage": "sharpness", "p": 1, "factor": 3.3})", flat), flat).count, 0u);
  for (auto [w, h] : {std::pair{2, 9}, std::pair{9, 2}, std::pair{1, 1}}) {
    const Image small = testing::random_image({w, h, 3, DType::U8}, 3);
    const auto b = run_both(one_stage(R"({"stage": "sharpness", "p": 1, "factor": 0})"), small);
    EXPECT_EQ(compare(b.cpu, small).count, 0u);
    EXPECT_EQ(compare(b.emulated, small).count, 0u);
  }
}

TEST(Sharpness, DefaultProbabilityIsAHalfAsTorchvisions) {
  const Pipeline pipe = one_stage(R"({"stage": "sharpness", "factor": 2})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i)
    applied += pipe.plan(3, "k" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8}).steps.at(0).op != nullptr;
  EXPECT_NEAR(applied, 1000, 4 * std::sqrt(500.0));
}

TEST(Sharpness, RangesAreDrawnUniformly) {
  const Pipeline pipe = one_stage(R"({"stage": "sharpness", "p": 1, "factor": [0.5, 3.0]})");
  double lo = 9, hi = -9, sum = 0;
  for (int i = 0; i < 2000; ++i) {
    const double f = pipe.plan(3, "k" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8})
                         .steps.at(0).op->params().at("factor").get<double>();
    lo = std::min(lo, f);
    hi = std::max(hi, f);
    sum += f;
  }
  EXPECT_GE(lo, 0.5);
  EXPECT_LT(hi, 3.0);
  EXPECT_LT(lo, 0.52);
  EXPECT_GT(hi, 2.98);
  EXPECT_NEAR(sum / 2000, 1.75, 0.05);
}

}  // namespace
}  // namespace aug::test_sharpness
