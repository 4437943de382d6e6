// pad (no interpolation): against cv::copyMakeBorder for every border and a fill per channel, on both
// backends, the forms of "padding", where "min_size" puts the image, and the errors that name the
// parameter.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_pad {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::geometry::both;
using testing::geometry::parse_error;

TEST(Pad, EqualsCopyMakeBorderForEveryBorderAndAFillPerChannel) {
  struct Sides { int l, t, r, b; };
  for (DType t : testing::geometry::kTypes) {
    std::vector<Image> images = testing::geometry::photographs(t);
    images.push_back(testing::random_image({2, 3, 3, t}, 3));  // paddings larger than the image
    images.push_back(testing::random_image({1, 1, 4, t}, 4));
    for (const Image& im : images)
      for (const auto& [name, cv_border] : testing::geometry::kCvBorders)
        for (const Sides s : {Sides{3, 1, 0, 2}, Sides{7, 9, 11, 5}, Sides{0, 0, 0, 0}}) {
          SCOPED_TRACE(std::string(dtype_name(t)) + " " + to_string(im.shape()) + " " + name + " " +
                       std::to_string(s.l) + "," + std::to_string(s.t) + "," + std::to_string(s.r) + "," +
                       std::to_string(s.b));
          const std::string stage = R"({"stage": "pad", "padding": [)" + std::to_string(s.l) + "," +
                                    std::to_string(s.t) + "," + std::to_string(s.r) + "," + std::to_string(s.b) +
                                    R"(], "border": ")" + name + R"(", "fill": )" + testing::geometry::fill_json(t) +
                                    "}";
          const testing::Both b = both(stage, im);
          cv::Mat theirs;
          cv::copyMakeBorder(mat(im), theirs, s.t, s.b, s.l, s.r, cv_border, testing::geometry::fill_scalar(t));
          EXPECT_EQ(compare(b.cpu, from_mat(theirs)).count, 0u);
          EXPECT_EQ(b.plan.record[0]["params"]["padding"], (nlohmann::json{s.l, s.t, s.r, s.b}));
        }
  }
}

TEST(Pad, PaddingFormsAreOneNumberLeftRightTopBottomOrFourSides) {
  const Image im = testing::random_image({5, 4, 1, DType::U8}, 5);
  const auto sides = [&](const std::string& padding) {
    return both(R"({"stage": "pad", "padding": )" + padding + "}", im).plan.record[0]["params"]["padding"];
  };
  EXPECT_EQ(sides("3"), nlohmann::json::parse("[3, 3, 3, 3]"));
  EXPECT_EQ(sides("[2, 5]"), nlohmann::json::parse("[2, 5, 2, 5]"));
  EXPECT_EQ(sides("[1, 2, 3, 4]"), nlohmann::json::parse("[1, 2, 3, 4]"));
}

TEST(Pad, MinSizePositions) {
  const Image im = testing::random_image({5, 4, 3, DType::U8}, 6);
  const auto sides = [&](const std::string& rest, const std::string& key = "img.png") {
    return both(R"({"stage": "pad", "min_size": [10, 7])" + rest + "}", im, key).plan.record[0]["params"]["padding"];
  };
  // 5 columns and 3 rows to add: center puts the odd pixel right and bottom.
  EXPECT_EQ(sides(""), nlohmann::json::parse("[2, 1, 3, 2]"));
  EXPECT_EQ(sides(R"(, "position": "top-left")"), nlohmann::json::parse("[0, 0, 5, 3]"));
  // A side already as large is left alone.
  EXPECT_EQ(both(R"({"stage": "pad", "min_size": [3, 9]})", im).plan.record[0]["params"]["padding"],
            nlohmann::json::parse("[0, 2, 0, 3]"));
  std::set<std::pair<int, int>> seen;
  for (int i = 0; i < 300; ++i) {
    const nlohmann::json s = sides(R"(, "position": "random")", "k" + std::to_string(i));
    EXPECT_EQ(s[0].get<int>() + s[2].get<int>(), 5);
    EXPECT_EQ(s[1].get<int>() + s[3].get<int>(), 3);
    seen.insert({s[0].get<int>(), s[1].get<int>()});
  }
  EXPECT_EQ(seen.size(), 24u);  // left 0-5 x top 0-3, all drawn
  // The result is copyMakeBorder with those sides.
  cv::Mat theirs;
  cv::copyMakeBorder(mat(im), theirs, 1, 2, 2, 3, cv::BORDER_REFLECT_101);
  EXPECT_EQ(compare(both(R"({"stage": "pad", "min_size": [10, 7], "border": "reflect101"})", im).cpu, from_mat(theirs))
                .count,
            0u);
}

// divisor: each side up to its next multiple (PadIfNeeded's pad_width_divisor, pad_height_divisor),
// placed as min_size places it; a side already a multiple is left alone.
TEST(Pad, DivisorPadsToTheNextMultiple) {
  const Image im = testing::random_image({37, 32, 3, DType::U8}, 7);
  const auto run = [&](const std::string& params) { return both(R"({"stage": "pad", )" + params + "}", im); };
  const auto padded = run(R"("divisor": [32, 32], "border": "reflect101")");
  EXPECT_EQ(padded.plan.record[0]["params"]["padding"], nlohmann::json::parse("[13, 0, 14, 0]"));
  EXPECT_EQ(padded.cpu.shape(), (Shape{64, 32, 3, DType::U8}));
  cv::Mat theirs;
  cv::copyMakeBorder(mat(im), theirs, 0, 0, 13, 14, cv::BORDER_REFLECT_101);
  EXPECT_EQ(compare(padded.cpu, from_mat(theirs)).count, 0u);
  EXPECT_EQ(compare(padded.emulated, from_mat(theirs)).count, 0u);
  EXPECT_EQ(run(R"("divisor": 5, "position": "top-left")").plan.record[0]["params"]["padding"],
            nlohmann::json::parse("[0, 0, 3, 3]"));
  EXPECT_EQ(run(R"("divisor": [1, 1])").cpu.shape(), im.shape());
}

TEST(Pad, ErrorsNameTheParameter) {
  const std::string three = parse_error(R"({"stage": "pad", "padding": [1, 2, 3]})");
  EXPECT_NE(three.find("/stages/0/padding"), std::string::npos) << three;
  EXPECT_NE(three.find("1, 2 or 4 values"), std::string::npos) << three;
  const std::string both_given = parse_error(R"({"stage": "pad", "padding": 1, "min_size": [4, 4]})");
  EXPECT_NE(both_given.find("exactly one of \"padding\", \"min_size\""), std::string::npos) << both_given;
  const std::string placed = parse_error(R"({"stage": "pad", "padding": 2, "position": "random"})");
  EXPECT_NE(placed.find("/stages/0/position"), std::string::npos) << placed;
  const std::string none = parse_error(R"({"stage": "pad"})");
  EXPECT_NE(none.find("exactly one of"), std::string::npos) << none;
  const std::string negative = parse_error(R"({"stage": "pad", "padding": -1})");
  EXPECT_NE(negative.find("/stages/0/padding"), std::string::npos) << negative;
  const std::string border = parse_error(R"({"stage": "pad", "padding": 1, "border": "mirror"})");
  EXPECT_NE(border.find("/stages/0/border"), std::string::npos) << border;
}

}  // namespace
}  // namespace aug::test_pad
