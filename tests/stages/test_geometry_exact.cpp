// The exact geometric stages (no interpolation): rotate90 against OpenCV's rotate/transpose/flip for
// the eight elements of D4, pad against cv::copyMakeBorder for every border, and crop's padding and
// pad_if_needed against torchvision RandomCrop's steps rebuilt here with copyMakeBorder.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include <opencv2/core.hpp>

#include "lib/core/error.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;

constexpr DType kTypes[] = {DType::U8, DType::U16, DType::F32};

// Runs a one-stage pipeline on both backends; checks they agree and returns the CPU result.
testing::Both both(const std::string& stage, const Image& in, const std::string& key = "img.png") {
  testing::Both b = testing::run_both(testing::one_stage(stage), in, key);
  EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << stage << ": cpu vs cuda-emulated";
  return b;
}

std::vector<Image> photographs(DType t) {
  return {testing::sample_as("chelsea.png", t, 3), testing::sample_as("camera.png", t, 1),
          testing::sample_as("coffee_rgba.png", t, 4)};
}

// ---- rotate90 ---------------------------------------------------------------------------------

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
    for (const Image& im : photographs(t))
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

// ---- pad --------------------------------------------------------------------------------------

const std::map<std::string, int> kCvBorders{{"constant", cv::BORDER_CONSTANT},
                                            {"replicate", cv::BORDER_REPLICATE},
                                            {"reflect", cv::BORDER_REFLECT},
                                            {"reflect101", cv::BORDER_REFLECT_101},
                                            {"wrap", cv::BORDER_WRAP}};

std::string fill_json(DType t) {
  return t == DType::F32 ? "[0.25, 0.75, 1.5, -0.5]" : (t == DType::U8 ? "[10, 200, 300, 12.5]" : "[1000, 65535, 70000, -3]");
}
cv::Scalar fill_scalar(DType t) {
  return t == DType::F32 ? cv::Scalar(0.25, 0.75, 1.5, -0.5)
                         : (t == DType::U8 ? cv::Scalar(10, 200, 300, 12.5) : cv::Scalar(1000, 65535, 70000, -3));
}

TEST(Pad, EqualsCopyMakeBorderForEveryBorderAndAFillPerChannel) {
  struct Sides { int l, t, r, b; };
  for (DType t : kTypes) {
    std::vector<Image> images = photographs(t);
    images.push_back(testing::random_image({2, 3, 3, t}, 3));  // paddings larger than the image
    images.push_back(testing::random_image({1, 1, 4, t}, 4));
    for (const Image& im : images)
      for (const auto& [name, cv_border] : kCvBorders)
        for (const Sides s : {Sides{3, 1, 0, 2}, Sides{7, 9, 11, 5}, Sides{0, 0, 0, 0}}) {
          SCOPED_TRACE(std::string(dtype_name(t)) + " " + to_string(im.shape()) + " " + name + " " +
                       std::to_string(s.l) + "," + std::to_string(s.t) + "," + std::to_string(s.r) + "," +
                       std::to_string(s.b));
          const std::string stage = R"({"stage": "pad", "padding": [)" + std::to_string(s.l) + "," +
                                    std::to_string(s.t) + "," + std::to_string(s.r) + "," + std::to_string(s.b) +
                                    R"(], "border": ")" + name + R"(", "fill": )" + fill_json(t) + "}";
          const testing::Both b = both(stage, im);
          cv::Mat theirs;
          cv::copyMakeBorder(mat(im), theirs, s.t, s.b, s.l, s.r, cv_border, fill_scalar(t));
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

// ---- crop: torchvision RandomCrop's padding and pad_if_needed ---------------------------------

// RandomCrop's steps, one after the other: pad by `padding` (l, t, r, b); then, with pad_if_needed,
// pad the width by (size - width) on the left and on the right, then the height likewise on the
// top and the bottom; then cut the window at (x, y).
cv::Mat torchvision_crop(const cv::Mat& in, int w, int h, const std::array<int, 4>& pad, bool pad_if_needed,
                         int border, const cv::Scalar& fill, int x, int y, int* padded_w, int* padded_h) {
  cv::Mat img = in.clone(), next;
  if (pad != std::array<int, 4>{0, 0, 0, 0}) {
    cv::copyMakeBorder(img, next, pad[1], pad[3], pad[0], pad[2], border, fill);
    img = next;
  }
  if (pad_if_needed && img.cols < w) {
    const int d = w - img.cols;
    cv::copyMakeBorder(img, next, 0, 0, d, d, border, fill);
    img = next;
  }
  if (pad_if_needed && img.rows < h) {
    const int d = h - img.rows;
    cv::copyMakeBorder(img, next, d, d, 0, 0, border, fill);
    img = next;
  }
  *padded_w = img.cols;
  *padded_h = img.rows;
  return img(cv::Rect(x, y, w, h)).clone();
}

TEST(Crop, PaddingAndPadIfNeededFollowTorchvisionRandomCrop) {
  struct Case {
    int w, h;
    std::array<int, 4> pad;
    bool pad_if_needed;
  };
  const Case cases[] = {{30, 20, {4, 2, 4, 2}, false}, {9, 9, {1, 2, 3, 4}, false}, {60, 50, {0, 0, 0, 0}, true},
                        {61, 8, {3, 3, 3, 3}, true},   {7, 70, {2, 0, 2, 0}, true},  {100, 90, {5, 1, 0, 2}, true}};
  for (DType t : kTypes)
    for (const Image& im : {testing::random_image({41, 39, 3, t}, 7), testing::random_image({5, 3, 4, t}, 8)})
      for (const auto& [name, cv_border] : kCvBorders)
        for (const Case& c : cases)
          for (const char* position : {"center", "random"}) {
            const std::string stage =
                R"({"stage": "crop", "size": [)" + std::to_string(c.w) + "," + std::to_string(c.h) +
                R"(], "padding": [)" + std::to_string(c.pad[0]) + "," + std::to_string(c.pad[1]) + "," +
                std::to_string(c.pad[2]) + "," + std::to_string(c.pad[3]) + R"(], "pad_if_needed": )" +
                (c.pad_if_needed ? "true" : "false") + R"(, "border": ")" + name + R"(", "position": ")" + position +
                R"(", "fill": )" + fill_json(t) + "}";
            SCOPED_TRACE(std::string(dtype_name(t)) + " " + to_string(im.shape()) + " " + stage);
            const int pw = im.shape().width + c.pad[0] + c.pad[2], ph = im.shape().height + c.pad[1] + c.pad[3];
            const bool fits = c.pad_if_needed || (c.w <= pw && c.h <= ph);
            if (!fits) {
              EXPECT_THROW(testing::run_both(testing::one_stage(stage), im), InputError);
              continue;
            }
            const testing::Both b = both(stage, im);
            const nlohmann::json& params = b.plan.record[0]["params"];
            const int x = params["x"], y = params["y"];
            int W = 0, H = 0;
            const cv::Mat theirs =
                torchvision_crop(mat(im), c.w, c.h, c.pad, c.pad_if_needed, cv_border, fill_scalar(t), x, y, &W, &H);
            ASSERT_LE(x, W - c.w);
            ASSERT_LE(y, H - c.h);
            if (std::string(position) == "center") {
              EXPECT_EQ(x, (W - c.w) / 2);
              EXPECT_EQ(y, (H - c.h) / 2);
            }
            EXPECT_EQ(compare(b.cpu, from_mat(theirs)).count, 0u);
            EXPECT_EQ(params["padding"], (nlohmann::json{c.pad[0], c.pad[1], c.pad[2], c.pad[3]}));
            EXPECT_EQ(params["pad_if_needed"],
                      (nlohmann::json{c.pad_if_needed ? std::max(0, c.w - pw) : 0,
                                      c.pad_if_needed ? std::max(0, c.h - ph) : 0}));
          }
}

TEST(Crop, NeverFailsOnASmallImageWithPadIfNeeded) {
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{2, 3}, std::pair{40, 1}})
    for (const char* border : {"constant", "reflect", "reflect101", "wrap", "replicate"}) {
      const Image im = testing::random_image({w, h, 3, DType::U8}, 9);
      const std::string stage = std::string(R"({"stage": "crop", "size": [17, 9], "position": "random", "pad_if_needed": true, "border": ")") + border + "\"}";
      const Image out = both(stage, im).cpu;
      EXPECT_EQ(out.shape().width, 17);
      EXPECT_EQ(out.shape().height, 9);
      EXPECT_THROW(testing::run_both(testing::one_stage(R"({"stage": "crop", "size": [17, 9]})"), im), InputError);
    }
}

// ---- errors -------------------------------------------------------------------------------------

std::string parse_error(const std::string& stage) {
  try {
    testing::one_stage(stage);
  } catch (const PipelineError& e) {
    return e.what();
  }
  return "";
}

TEST(GeometryErrors, NameTheParameter) {
  const std::string three = parse_error(R"({"stage": "pad", "padding": [1, 2, 3]})");
  EXPECT_NE(three.find("/stages/0/padding"), std::string::npos) << three;
  EXPECT_NE(three.find("1, 2 or 4 values"), std::string::npos) << three;
  const std::string crop3 = parse_error(R"({"stage": "crop", "size": 4, "padding": [1, 2, 3, 4, 5]})");
  EXPECT_NE(crop3.find("/stages/0/padding"), std::string::npos) << crop3;
  const std::string both_given = parse_error(R"({"stage": "pad", "padding": 1, "min_size": [4, 4]})");
  EXPECT_NE(both_given.find("exactly one of \"padding\", \"min_size\""), std::string::npos) << both_given;
  const std::string placed = parse_error(R"({"stage": "pad", "padding": 2, "position": "random"})");
  EXPECT_NE(placed.find("/stages/0/position"), std::string::npos) << placed;
  const std::string none = parse_error(R"({"stage": "pad"})");
  EXPECT_NE(none.find("exactly one of"), std::string::npos) << none;
  const std::string k = parse_error(R"({"stage": "rotate90", "k": [0, 4]})");
  EXPECT_NE(k.find("/stages/0/k"), std::string::npos) << k;
  const std::string negative = parse_error(R"({"stage": "pad", "padding": -1})");
  EXPECT_NE(negative.find("/stages/0/padding"), std::string::npos) << negative;
  const std::string border = parse_error(R"({"stage": "pad", "padding": 1, "border": "mirror"})");
  EXPECT_NE(border.find("/stages/0/border"), std::string::npos) << border;
}

}  // namespace
}  // namespace aug
