// rotate90 (no interpolation): each of the eight elements of D4 against OpenCV's rotate/transpose/flip,
// on both backends, the turned size, four turns and two transposes as the identity, the values a list
// draws, and the error that names the parameter.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <opencv2/core.hpp>

#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_rotate90 {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::geometry::both;
using testing::geometry::kTypes;

cv::Mat opencv_d4(const cv::Mat& in, int k, bool transpose) {
  cv::Mat a = in.clone(), b;
  if (transpose) {
    cv::transpose(in, a);
  }
  switch (k) {
    case 1: cv::rotate(a, b, cv::ROTATE_90_COUNTERCLOCKWISE); return b;
    case 2: cv::rotate(a, b, cv::ROTATE_180); return b;
    case 3: cv::rotate(a, b, cv::ROTATE_90_CLOCKWISE); return b;
    default: return a;
  }
}

std::string rotate90(int k, bool transpose) {
  return R"({"stage": "rotate90", "k": )" + std::to_string(k) + R"(, "transpose": )" + (transpose ? "true" : "false") +
         "}";
}

TEST(Rotate90, EachOfTheEightElementsEqualsOpenCVOnPhotographs) {
  for (DType t : kTypes)
    for (const Image& im : testing::geometry::photographs(t))
      for (bool transpose : {false, true})
        for (int k = 0; k < 4; ++k) {
          SCOPED_TRACE(std::string(dtype_name(t)) + " c" + std::to_string(im.shape().channels) + " k " +
                       std::to_string(k) + (transpose ? " transposed" : ""));
          const testing::Both b = both(rotate90(k, transpose), im);
          const Image theirs = from_mat(opencv_d4(mat(im), k, transpose));
          EXPECT_EQ(compare(b.cpu, theirs).count, 0u);
          EXPECT_EQ(b.plan.record[0]["params"], (nlohmann::json{{"k", k}, {"transpose", transpose}}));
        }
}

TEST(Rotate90, TransposedTurnsAreFlipsAndTheAntiTranspose) {
  const Image im = testing::sample_as("astronaut.jpg", DType::U8, 3);
  cv::Mat v, h, hv;
  cv::flip(mat(im), v, 0);
  cv::flip(mat(im), h, 1);
  cv::flip(mat(im), hv, -1);
  EXPECT_EQ(compare(both(rotate90(1, true), im).cpu, from_mat(v)).count, 0u);
  EXPECT_EQ(compare(both(rotate90(3, true), im).cpu, from_mat(h)).count, 0u);
  EXPECT_EQ(compare(both(rotate90(2, false), im).cpu, from_mat(hv)).count, 0u);
  cv::Mat anti;
  cv::transpose(hv, anti);  // the transpose about the other diagonal
  EXPECT_EQ(compare(both(rotate90(2, true), im).cpu, from_mat(anti)).count, 0u);
}

TEST(Rotate90, OddTurnsAndTheTransposeSwapTheSize) {
  const Image im = testing::random_image({7, 3, 3, DType::U8}, 1);
  for (bool transpose : {false, true})
    for (int k = 0; k < 4; ++k) {
      const Shape s = both(rotate90(k, transpose), im).cpu.shape();
      const bool swapped = (k % 2 == 1) != transpose;
      EXPECT_EQ(s.width, swapped ? 3 : 7) << k << transpose;
      EXPECT_EQ(s.height, swapped ? 7 : 3) << k << transpose;
    }
}

TEST(Rotate90, FourQuarterTurnsAreTheIdentity) {
  for (DType t : kTypes) {
    const Image im = testing::random_image({41, 39, 3, t}, 2);
    Image x = im;
    for (int i = 0; i < 4; ++i) x = both(rotate90(1, false), x).cpu;
    EXPECT_EQ(compare(x, im).count, 0u) << dtype_name(t);
    Image y = both(rotate90(0, true), both(rotate90(0, true), im).cpu).cpu;  // the transpose is an involution
    EXPECT_EQ(compare(y, im).count, 0u) << dtype_name(t);
  }
}

TEST(Rotate90, AListDrawsEveryValueOverManyImages) {
  const Pipeline all = testing::one_stage(R"({"stage": "rotate90"})");  // default [0, 1, 2, 3]
  const Pipeline odd = testing::one_stage(R"({"stage": "rotate90", "k": [1, 3]})");
  std::map<int, int> seen_all, seen_odd;
  for (int i = 0; i < 400; ++i) {
    const std::string key = "dir/img" + std::to_string(i) + ".png";
    ++seen_all[all.plan(5, key, 0, {9, 4, 3, DType::U8}).record[0]["params"]["k"].get<int>()];
    const Plan p = odd.plan(5, key, 0, {9, 4, 3, DType::U8});
    ++seen_odd[p.record[0]["params"]["k"].get<int>()];
    EXPECT_EQ(p.out.width, 4);
  }
  ASSERT_EQ(seen_all.size(), 4u);
  for (const auto& [k, n] : seen_all) EXPECT_GT(n, 60) << "k " << k << " drawn " << n << " times of 400";
  EXPECT_EQ(seen_odd.size(), 2u);
  EXPECT_EQ(seen_odd.count(1) + seen_odd.count(3), 2u);
}

TEST(Rotate90, ErrorsNameTheParameter) {
  const std::string k = testing::geometry::parse_error(R"({"stage": "rotate90", "k": [0, 4]})");
  EXPECT_NE(k.find("/stages/0/k"), std::string::npos) << k;
}

}  // namespace
}  // namespace aug::test_rotate90
