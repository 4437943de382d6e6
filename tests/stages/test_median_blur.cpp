// median_blur: against cv::medianBlur (8-bit: every size; 16-bit and float: 3 and 5), against a plain
// sort of the window elsewhere, the odd sizes a range draws, and the parameter's errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_median_blur {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

std::string stage(int k) { return R"({"stage": "median_blur", "p": 1, "kernel_size": )" + std::to_string(k) + "}"; }

Image opencv_median(const Image& in, int k) {
  cv::Mat out;
  cv::medianBlur(testing::mat(in), out, k);
  return testing::from_mat(out);
}

// The median of each window written out: gather with replicated edges, sort, take the middle.
template <class T>
Image sorted_median(const Image& in, int k) {
  const int W = in.shape().width, H = in.shape().height, C = in.shape().channels, r = k / 2;
  Image out = in.clone();
  std::vector<T> window;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) {
        window.clear();
        for (int dy = -r; dy <= r; ++dy)
          for (int dx = -r; dx <= r; ++dx) {
            const int yy = std::clamp(y + dy, 0, H - 1), xx = std::clamp(x + dx, 0, W - 1);
            window.push_back(reinterpret_cast<const T*>(in.row(yy))[xx * C + c]);
          }
        std::sort(window.begin(), window.end());
        reinterpret_cast<T*>(out.row(y))[x * C + c] = window[window.size() / 2];
      }
  return out;
}

TEST(MedianBlur, EightBitEqualsOpenCVForEverySize) {
  for (int k = 3; k <= 21; k += 2)
    for (int c : {1, 3, 4})
      for (const auto& [w, h] : std::vector<std::pair<int, int>>{{37, 23}, {5, 4}, {1, 1}, {2, 9}}) {
        const Image in = testing::random_image({w, h, c, DType::U8}, 100 + k + c);
        const Image want = opencv_median(in, k);
        const auto b = run_both(one_stage(stage(k)), in);
        SCOPED_TRACE("k=" + std::to_string(k) + " c=" + std::to_string(c) + " " + std::to_string(w) + "x" +
                     std::to_string(h));
        EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
        EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
      }
}

TEST(MedianBlur, PhotographsEqualOpenCV) {
  for (const char* name : {"astronaut.jpg", "coffee_rgba.png", "camera.png"}) {
    const Image in = testing::sample(name);
    for (int k : {3, 7}) {
      const auto b = run_both(one_stage(stage(k)), in);
      const Image want = opencv_median(in, k);
      EXPECT_EQ(compare(b.cpu, want).count, 0u) << name << " " << compare(b.cpu, want).str();
      EXPECT_EQ(compare(b.emulated, want).count, 0u) << name << " " << compare(b.emulated, want).str();
    }
  }
}

TEST(MedianBlur, SixteenBitAndFloatEqualOpenCVAtThreeAndFive) {
  for (DType t : {DType::U16, DType::F32})
    for (int k : {3, 5})
      for (int c : {1, 3, 4}) {
        const Image in = testing::random_image({31, 17, c, t}, 7 + k + c);
        const Image want = opencv_median(in, k);
        const auto b = run_both(one_stage(stage(k)), in);
        SCOPED_TRACE(std::string(dtype_name(t)) + " k=" + std::to_string(k) + " c=" + std::to_string(c));
        EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
        EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
      }
}

TEST(MedianBlur, EverySizeAndTypeIsTheTrueMedian) {
  // Where OpenCV has no median (16-bit and float beyond 5), a sort of every window; 8-bit too.
  for (int k : {7, 9, 13})
    for (int c : {1, 4}) {
      const Image u8 = testing::random_image({19, 14, c, DType::U8}, 3 + k);
      const Image u16 = testing::random_image({19, 14, c, DType::U16}, 5 + k);
      Image f32 = testing::random_image({19, 14, c, DType::F32}, 9 + k);
      reinterpret_cast<float*>(f32.row(3))[0] = -0.5f;  // a negative value: the order of the float keys
      reinterpret_cast<float*>(f32.row(4))[c] = 2.5f;
      const auto a = run_both(one_stage(stage(k)), u8);
      const auto b = run_both(one_stage(stage(k)), u16);
      const auto f = run_both(one_stage(stage(k)), f32);
      SCOPED_TRACE("k=" + std::to_string(k) + " c=" + std::to_string(c));
      EXPECT_EQ(compare(a.emulated, sorted_median<std::uint8_t>(u8, k)).count, 0u);
      EXPECT_EQ(compare(b.cpu, sorted_median<std::uint16_t>(u16, k)).count, 0u);
      EXPECT_EQ(compare(b.emulated, sorted_median<std::uint16_t>(u16, k)).count, 0u);
      EXPECT_EQ(compare(f.cpu, sorted_median<float>(f32, k)).count, 0u);
      EXPECT_EQ(compare(f.emulated, sorted_median<float>(f32, k)).count, 0u);
    }
}

TEST(MedianBlur, ALonelyOutlierIsRemovedAndAnEdgeIsKept) {
  Image in({9, 9, 1, DType::U8});
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 9; ++x) in.row(y)[x] = x < 4 ? 10 : 200;
  in.row(6)[1] = 255;  // salt
  const Image out = testing::run_cpu(stage(3), in);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 9; ++x) EXPECT_EQ(out.row(y)[x], x < 4 ? 10 : 200) << x << "," << y;
}

TEST(MedianBlur, ARangeDrawsEveryOddSizeAlike) {
  constexpr int kN = 5000;
  const Pipeline pipe = one_stage(R"({"stage": "median_blur", "p": 1, "kernel_size": [3, 11]})");
  std::map<int, int> seen;
  for (int i = 0; i < kN; ++i)
    ++seen[pipe.plan(5, "img" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8})
               .steps.at(0)
               .op->params()
               .at("kernel_size")
               .get<int>()];
  ASSERT_EQ(seen.size(), 5u);
  for (const auto& [k, n] : seen) {
    EXPECT_EQ(k % 2, 1) << k;
    EXPECT_NEAR(n, kN / 5, 5 * std::sqrt(kN / 5.0)) << k;  // 5 sigma
  }
  // the default is [3, 7]: 3, 5 and 7
  std::map<int, int> defaults;
  const Pipeline def = one_stage(R"({"stage": "median_blur", "p": 1})");
  for (int i = 0; i < 300; ++i)
    ++defaults[def.plan(5, "d" + std::to_string(i), 0, {8, 8, 3, DType::U8})
                   .steps.at(0)
                   .op->params()
                   .at("kernel_size")
                   .get<int>()];
  EXPECT_EQ(defaults.size(), 3u);
  EXPECT_TRUE(defaults.count(3) && defaults.count(5) && defaults.count(7));
}

TEST(MedianBlur, ParameterErrorsNameTheParameter) {
  for (const char* bad :
       {R"({"stage": "median_blur", "kernel_size": 4})", R"({"stage": "median_blur", "kernel_size": 1})",
        R"({"stage": "median_blur", "kernel_size": [3, 8]})", R"({"stage": "median_blur", "kernel_size": 101})"}) {
    try {
      one_stage(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const PipelineError& e) {
      EXPECT_NE(std::string(e.what()).find("kernel_size"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace aug::test_median_blur
