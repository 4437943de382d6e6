// invert: the formula in every sample type, computed here value by value, OpenCV's bitwise_not on
// photographs, and the CPU path against the kernels run on the host.
#include <gtest/gtest.h>

#include <opencv2/core.hpp>

#include "tests/stages/stage_runner.hpp"

namespace aug::test_invert {
namespace {

using testing::compare;
using testing::expect_parity;
using testing::run_cpu;

constexpr const char* kInvert = R"({"stage": "invert"})";

template <class T>
void expect_formula(const Image& in, const Image& out, double max) {
  const int C = in.shape().channels;
  const int colour = C == 4 ? 3 : C;
  for (int y = 0; y < in.shape().height; ++y) {
    const T* s = reinterpret_cast<const T*>(in.row(y));
    const T* d = reinterpret_cast<const T*>(out.row(y));
    for (int i = 0; i < in.shape().width * C; ++i) {
      const double want = i % C < colour ? max - static_cast<double>(s[i]) : static_cast<double>(s[i]);
      ASSERT_EQ(static_cast<double>(d[i]), static_cast<double>(static_cast<T>(want))) << "value " << i << " row " << y;
    }
  }
}

TEST(Invert, IsMaxMinusValueAndLeavesAlpha) {
  for (int c : {1, 3, 4}) {
    const Image u8 = testing::random_image({37, 11, c, DType::U8}, 1);
    expect_formula<std::uint8_t>(u8, run_cpu(kInvert, u8), 255);
    const Image u16 = testing::random_image({37, 11, c, DType::U16}, 2);
    expect_formula<std::uint16_t>(u16, run_cpu(kInvert, u16), 65535);
    const Image f32 = testing::random_image({37, 11, c, DType::F32}, 3);
    expect_formula<float>(f32, run_cpu(kInvert, f32), 1.0);
  }
}

TEST(Invert, EveryEightBitValue) {
  Image ramp({256, 1, 1, DType::U8});
  for (int v = 0; v < 256; ++v) ramp.row(0)[v] = static_cast<std::uint8_t>(v);
  const Image out = run_cpu(kInvert, ramp);
  for (int v = 0; v < 256; ++v) EXPECT_EQ(out.row(0)[v], 255 - v);
}

TEST(Invert, EqualsBitwiseNotOnPhotographs) {
  for (const char* name : {"astronaut.jpg", "camera.png"}) {
    const Image im = testing::sample(name);
    cv::Mat theirs;
    cv::bitwise_not(testing::mat(im), theirs);
    EXPECT_EQ(compare(run_cpu(kInvert, im), testing::from_mat(theirs)).count, 0u) << name;
  }
}

TEST(Invert, TwiceIsTheIdentity) {
  // Exact for integers; 1 - (1 - v) rounds twice in binary32, so floats come back within an ulp of 1.
  for (DType t : {DType::U8, DType::U16, DType::F32}) {
    const Image im = testing::random_image({41, 39, 3, t}, 4);
    const Image twice = run_cpu(kInvert, run_cpu(kInvert, im));
    EXPECT_EQ(compare(twice, im, t == DType::F32 ? 6e-8 : 0).count, 0u) << dtype_name(t);
  }
}

TEST(Invert, CpuDriverEqualsTheKernels) { expect_parity(kInvert, {DType::U8, DType::U16, DType::F32}, {1, 3, 4}); }

}  // namespace
}  // namespace aug::test_invert
