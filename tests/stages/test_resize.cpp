// resize: 8-bit bilinear against cv::resize INTER_LINEAR_EXACT and nearest against INTER_NEAREST
// and lanczos against INTER_LANCZOS4 (0 differing values, random images and photographs), bicubic and
// area within 1 of OpenCV, 16-bit and
// float bilinear against the formula re-derived here, the output size from short_side, long_side and
// scale, and the CPU path (OpenCV or the resize driver) against the kernels run on the host.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <opencv2/imgproc.hpp>

#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_resize {
namespace {

using testing::compare;
using testing::expect_parity;
using testing::from_mat;
using testing::geometry::kChannels;
using testing::geometry::kTypes;
using testing::mat;
using testing::random_image;
using testing::run_cpu;

std::string size_json(int w, int h) { return "[" + std::to_string(w) + ", " + std::to_string(h) + "]"; }

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

// Lanczos-4 is cv::resize's generic path: binary32 weights, each rounded to 11 bits on its own,
// exact integer sums (its 8-bit vertical pass has no float variant).
TEST(Resize, LanczosEightBitEqualsCvInterLanczos4) {
  for (const auto& s : kSizes)
    for (int c : kChannels) {
      const Image im = random_image({s.w, s.h, c, DType::U8}, 9);
      const Image ours =
          run_cpu(R"({"stage": "resize", "interpolation": "lanczos", "size": )" + size_json(s.ow, s.oh) + "}", im);
      cv::Mat theirs;
      cv::resize(mat(im), theirs, cv::Size(s.ow, s.oh), 0, 0, cv::INTER_LANCZOS4);
      EXPECT_EQ(compare(ours, from_mat(theirs)).count, 0u) << s.w << "x" << s.h << "->" << s.ow << "x" << s.oh << " c" << c;
    }
  for (const char* name : {"astronaut.jpg", "chelsea.png", "coffee_rgba.png", "camera.png"})
    for (const char* size : {R"("short_side": 131)", R"("scale": 0.37)", R"("scale": 1.7)"}) {
      const Image im = testing::sample(name);
      const Image ours = run_cpu(std::string(R"({"stage": "resize", "interpolation": "lanczos", )") + size + "}", im);
      cv::Mat theirs;
      cv::resize(mat(im), theirs, cv::Size(ours.width(), ours.height()), 0, 0, cv::INTER_LANCZOS4);
      EXPECT_EQ(compare(ours, from_mat(theirs)).count, 0u) << name << " " << size;
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

// ---- the CPU path against the kernels ------------------------------------------------------------

TEST(Resize, AreaHalvingEqualsTheKernels) {
  expect_parity(R"({"stage": "resize", "scale": 0.5, "interpolation": "area"})", kTypes, kChannels);
}

// Shrinking runs the vertical pass first, enlarging the horizontal one (each source row once); 8-bit
// bicubic sums in int32, 16-bit in int64.
TEST(Resize, BicubicAreaAndLanczosEqualTheKernels) {
  for (const char* interp : {"bicubic", "area", "lanczos"})
    for (const char* size : {R"("scale": 0.75)", R"("scale": 0.37)", R"("scale": 1.6)", R"("size": [31, 7])",
                             R"("size": [3, 40])", R"("scale": 0.25)"})
      expect_parity(std::string(R"({"stage": "resize", )") + size + R"(, "interpolation": ")" + interp + "\"}", kTypes,
                    kChannels);
}

TEST(Resize, BilinearEqualsTheKernels) {
  for (const char* size : {R"("scale": 0.75)", R"("scale": 0.5)", R"("scale": 2.3)", R"("size": [31, 7])",
                           R"("short_side": 20)"})
    expect_parity(std::string(R"({"stage": "resize", )") + size + R"(, "interpolation": "bilinear"})", kTypes,
                  kChannels);
}

TEST(Resize, NearestEqualsTheKernels) {
  for (const char* size : {R"("scale": 0.5)", R"("scale": 1.5)", R"("scale": 0.37)", R"("size": [31, 7])"})
    expect_parity(std::string(R"({"stage": "resize", )") + size + R"(, "interpolation": "nearest"})", kTypes,
                  kChannels);
}

}  // namespace
}  // namespace aug::test_resize
