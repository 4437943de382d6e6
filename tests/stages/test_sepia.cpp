// sepia: Albumentations' ToSepia. 8-bit images against OpenCV's cv::transform with Albumentations'
// float64 matrix (what ToSepia calls), every 8-bit colour and the sample photographs; 16-bit images
// against the exact decimal matrix rounded to nearest, written here with doubles (and within 1 of
// cv::transform's 16-bit path); float images against the documented binary32 sums to the bit, and
// near the matrix in double and cv::transform; gray images unchanged, alpha kept; both the CPU path
// and the kernels run on the host; the import.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/color_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_sepia {
namespace {

using testing::color::at;
using testing::compare;
using testing::run_both;

const char* const kStage = R"({"stage": "sepia", "p": 1})";

// ToSepia's matrix as Albumentations holds it (float64), one row per output channel, RGB order.
const cv::Matx33d kSepia(0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131);

// cv::transform of the RGB channels, alpha copied from the input.
Image opencv_sepia(const Image& in) {
  cv::Mat src = testing::mat(in), rgb, alpha;
  if (in.channels() == 4) {
    std::vector<cv::Mat> planes;
    cv::split(src, planes);
    alpha = planes[3];
    planes.pop_back();
    cv::merge(planes, rgb);
  } else {
    rgb = src;
  }
  cv::Mat out;
  cv::transform(rgb, out, kSepia);
  if (in.channels() == 4) {
    std::vector<cv::Mat> planes;
    cv::split(out, planes);
    planes.push_back(alpha);
    cv::merge(planes, out);
  }
  return testing::from_mat(out);
}

void expect_both_equal(const Image& in, const Image& want, const std::string& what, double tolerance = 0) {
  const testing::Both b = run_both(testing::one_stage(kStage), in);
  const auto cpu = compare(b.cpu, want, tolerance), emu = compare(b.emulated, want, tolerance);
  EXPECT_EQ(cpu.count, 0u) << what << " (CPU): " << cpu.str();
  EXPECT_EQ(emu.count, 0u) << what << " (kernels on the host): " << emu.str();
}

TEST(Sepia, EveryEightBitColourEqualsCvTransform) {
  // 4096 x 4096 pixels: every (r, g, b) once (the CPU backend's 32-pixel vector loop; its per-pixel
  // tail is the kernels' formula, and the widths below run it on the CPU backend too).
  Image all({4096, 4096, 3, DType::U8});
  for (int y = 0; y < 4096; ++y)
    for (int x = 0; x < 4096; ++x) {
      const std::uint32_t v = static_cast<std::uint32_t>(y) * 4096u + static_cast<std::uint32_t>(x);
      std::uint8_t* p = all.row(y) + 3 * x;
      p[0] = static_cast<std::uint8_t>(v >> 16), p[1] = static_cast<std::uint8_t>(v >> 8), p[2] = static_cast<std::uint8_t>(v);
    }
  expect_both_equal(all, opencv_sepia(all), "every 8-bit colour");
}

TEST(Sepia, PhotographsAndRandomImagesEqualCvTransform) {
  for (const char* name : {"astronaut.jpg", "chelsea.png", "coffee.png", "rocket.jpg", "coffee_rgba.png"}) {
    const Image in = testing::sample(name);
    ASSERT_GE(in.channels(), 3) << name;
    expect_both_equal(in, opencv_sepia(in), name);
  }
  std::uint32_t seed = 70;
  for (int c : {3, 4})
    for (const auto& [w, h] : {std::pair{1, 1}, std::pair{15, 2}, std::pair{31, 3}, std::pair{32, 2}, std::pair{33, 5},
                                std::pair{65, 4}, std::pair{97, 31}}) {
      const Image in = testing::random_image({w, h, c, DType::U8}, seed++);
      expect_both_equal(in, opencv_sepia(in), "random " + std::to_string(w) + "x" + std::to_string(h) + " c" + std::to_string(c));
    }
}

TEST(Sepia, KnownValues) {
  Image im({4, 1, 3, DType::U8});
  const std::uint8_t px[4][3] = {{255, 255, 255}, {100, 150, 200}, {0, 0, 2}, {0, 205, 0}};
  for (int x = 0; x < 4; ++x)
    for (int c = 0; c < 3; ++c) im.row(0)[3 * x + c] = px[x][c];
  const Image out = run_both(testing::one_stage(kStage), im).cpu;
  // White: R' = 1.351 * 255 and G' = 1.203 * 255 saturate; B' = (960 * 255 + 512) >> 10 = 239.
  EXPECT_EQ(at<std::uint8_t>(out, 0, 0, 0), 255);
  EXPECT_EQ(at<std::uint8_t>(out, 0, 0, 1), 255);
  EXPECT_EQ(at<std::uint8_t>(out, 0, 0, 2), 239);
  // (100, 150, 200): R' = (402*100 + 787*150 + 194*200 + 512) >> 10 = 197562 >> 10 = 192 (exactly 192.45),
  // G' = 175912 >> 10 = 171 (171.4), B' = 137262 >> 10 = 134 (133.5).
  EXPECT_EQ(at<std::uint8_t>(out, 1, 0, 0), 192);
  EXPECT_EQ(at<std::uint8_t>(out, 1, 0, 1), 171);
  EXPECT_EQ(at<std::uint8_t>(out, 1, 0, 2), 134);
  // B = 2: 2 * 194 + 512 < 1024, every channel 0 (the exact R' is 0.378).
  EXPECT_EQ(at<std::uint8_t>(out, 2, 0, 0), 0);
  // G = 205: B' = (547 * 205 + 512) >> 10 = 110 where the exact 0.534 * 205 = 109.47 rounds to 109:
  // the Q10 coefficients, not the decimal ones.
  EXPECT_EQ(at<std::uint8_t>(out, 3, 0, 2), 110);
}

// The exact value of the decimal matrix times 1000, an integer.
std::int64_t thousandths(int row, std::int64_t r, std::int64_t g, std::int64_t b) {
  const std::int64_t m[3][3] = {{393, 769, 189}, {349, 686, 168}, {272, 534, 131}};
  return m[row][0] * r + m[row][1] * g + m[row][2] * b;
}

// 16-bit: the exact value rounded to nearest, halves up: S / 1000.0 is correctly rounded and an exact
// half k + 0.5 is a double, so lround (halves away from zero) rounds the exact value.
Image reference_u16(const Image& in) {
  Image out(in.shape());
  for (int y = 0; y < in.height(); ++y) {
    const auto* s = reinterpret_cast<const std::uint16_t*>(in.row(y));
    auto* d = reinterpret_cast<std::uint16_t*>(out.row(y));
    for (int x = 0; x < in.width(); ++x) {
      const std::uint16_t* p = s + x * in.channels();
      for (int c = 0; c < 3; ++c)
        d[x * in.channels() + c] = static_cast<std::uint16_t>(
            std::min<long>(65535, std::lround(static_cast<double>(thousandths(c, p[0], p[1], p[2])) / 1000.0)));
      if (in.channels() == 4) d[x * 4 + 3] = p[3];
    }
  }
  return out;
}

TEST(Sepia, SixteenBitIsTheExactMatrixRoundedToNearest) {
  std::vector<Image> inputs{testing::sample_as("astronaut.jpg", DType::U16, 3),
                            testing::sample_as("coffee_rgba.png", DType::U16, 4)};
  std::uint32_t seed = 90;
  for (int c : {3, 4}) inputs.push_back(testing::random_image({301, 67, c, DType::U16}, seed++));
  int halves = 0;
  for (const Image& in : inputs) {
    expect_both_equal(in, reference_u16(in), to_string(in.shape()));
    for (int y = 0; y < in.height(); ++y)
      for (int x = 0; x < in.width(); ++x)
        halves += thousandths(0, at<std::uint16_t>(in, x, y, 0), at<std::uint16_t>(in, x, y, 1),
                              at<std::uint16_t>(in, x, y, 2)) % 1000 == 500;
    // OpenCV's 16-bit path (binary32, half to even) is at most 1 away.
    if (in.channels() == 3) {
      const Image cv16 = opencv_sepia(in);
      EXPECT_EQ(compare(run_both(testing::one_stage(kStage), in).cpu, cv16, 1.0).count, 0u) << to_string(in.shape());
    }
  }
  EXPECT_GT(halves, 0) << "no exact half among the inputs: the rounding of halves went untested";
  // A half by hand: R' of (0, 0, 500) is 189 * 500 / 1000 = 94.5, rounded up to 95.
  Image half({1, 1, 3, DType::U16});
  for (int c = 0; c < 3; ++c) reinterpret_cast<std::uint16_t*>(half.row(0))[c] = c == 2 ? 500 : 0;
  EXPECT_EQ(at<std::uint16_t>(run_both(testing::one_stage(kStage), half).cpu, 0, 0, 0), 95);
  // White: R' and G' saturate, B' = 0.937 * 65535 = 61406.295.
  Image white({1, 1, 3, DType::U16});
  for (int c = 0; c < 3; ++c) reinterpret_cast<std::uint16_t*>(white.row(0))[c] = 65535;
  const Image w = run_both(testing::one_stage(kStage), white).emulated;
  EXPECT_EQ(at<std::uint16_t>(w, 0, 0, 0), 65535);
  EXPECT_EQ(at<std::uint16_t>(w, 0, 0, 1), 65535);
  EXPECT_EQ(at<std::uint16_t>(w, 0, 0, 2), 61406);
}

TEST(Sepia, FloatIsTheMatrixClampedToTheUnitRange) {
  std::vector<Image> inputs{testing::sample_as("chelsea.png", DType::F32, 3), testing::random_image({83, 29, 4, DType::F32}, 5)};
  for (const Image& in : inputs) {
    const testing::Both b = run_both(testing::one_stage(kStage), in);
    EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
    const Image cv32 = opencv_sepia(in);
    for (int y = 0; y < in.height(); ++y)
      for (int x = 0; x < in.width(); ++x) {
        for (int c = 0; c < 3; ++c) {
          const double exact = kSepia(c, 0) * at<float>(in, x, y, 0) + kSepia(c, 1) * at<float>(in, x, y, 1) +
                               kSepia(c, 2) * at<float>(in, x, y, 2);
          const float got = at<float>(b.cpu, x, y, c);
          // The documented binary32 order, to the bit: each product and sum rounded, left to right.
          const float m[3] = {static_cast<float>(kSepia(c, 0)), static_cast<float>(kSepia(c, 1)),
                              static_cast<float>(kSepia(c, 2))};
          float v = m[0] * at<float>(in, x, y, 0);
          v = v + m[1] * at<float>(in, x, y, 1);
          v = v + m[2] * at<float>(in, x, y, 2);
          ASSERT_EQ(got, std::clamp(v, 0.f, 1.f)) << x << "," << y << "," << c;
          ASSERT_NEAR(got, std::clamp(exact, 0.0, 1.0), 3e-7) << x << "," << y << "," << c;
          ASSERT_NEAR(got, std::clamp(at<float>(cv32, x, y, c), 0.f, 1.f), 3e-7) << x << "," << y << "," << c;
        }
        if (in.channels() == 4) {
          ASSERT_EQ(at<float>(b.cpu, x, y, 3), at<float>(in, x, y, 3));
        }
      }
  }
}

TEST(Sepia, GrayImagesAreUnchanged) {
  for (DType t : {DType::U8, DType::U16, DType::F32}) {
    const Image gray = testing::random_image({37, 11, 1, t}, 8);
    expect_both_equal(gray, gray, std::string("gray ") + dtype_name(t));
  }
}

TEST(Sepia, ImportsToSepiaFromBothReleases) {
  auto import_one = [](const char* version, const std::string& transform) {
    const nlohmann::json saved = nlohmann::json::parse(std::string(R"({"__version__": ")") + version +
                                                       R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" +
                                                       transform + "]}}");
    return import_albumentations(saved, "a.json").pipeline["stages"][0];
  };
  const auto v1 = import_one("1.3.1", R"({"__class_fullname__": "albumentations.augmentations.transforms.ToSepia", )"
                                      R"("always_apply": false, "p": 0.25})");
  EXPECT_EQ(v1, nlohmann::ordered_json::parse(R"({"stage": "sepia", "p": 0.25})")) << v1.dump();
  const auto v2 = import_one("2.0.8", R"({"__class_fullname__": "ToSepia"})");
  EXPECT_EQ(v2["stage"], "sepia");
  EXPECT_EQ(v2["p"], 0.5);  // Albumentations' default
  // The stage's own default p is Albumentations' 0.5 too.
  const Pipeline def = testing::one_stage(R"({"stage": "sepia"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i) applied += def.plan(3, std::to_string(i), 0, {8, 8, 3, DType::U8}).steps.at(0).op ? 1 : 0;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
}

}  // namespace
}  // namespace aug::test_sepia
