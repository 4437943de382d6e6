// box_blur: 8-bit against cv::blur for every kernel size (random images of odd sizes, tiny ones
// smaller than the window among them, and photographs), on the CPU path and on the kernels run on
// the host; 16-bit against the exact rounded mean written out here (and how far cv::blur strays from
// it), float within a millionth of cv::blur; the quotient exhaustively; the draws of the kernel size
// against Albumentations' definition; the import of Blur under 1.x and 2.x parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/filter/box_blur.hpp"
#include "lib/core/error.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_box_blur {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::one_stage;
using testing::random_image;
using testing::run_both;

std::string blur_json(int k) { return R"({"stage": "box_blur", "p": 1, "kernel_size": )" + std::to_string(k) + "}"; }

// cv::blur(img, (k, k)): Albumentations' call, default anchor and border.
Image cv_blur(const Image& in, int k) {
  cv::Mat theirs;
  cv::blur(mat(in), theirs, cv::Size(k, k));
  return from_mat(theirs);
}

// reflect101 written out: ...cb|abc|ba..., repeatedly for short sides.
int reflect101(int p, int len) {
  if (len == 1) return 0;
  while (p < 0 || p >= len) p = p < 0 ? -p : 2 * len - 2 - p;
  return p;
}

// The exact mean of every window, rounded to nearest, of a 16-bit image.
Image exact_mean16(const Image& in, int k) {
  Image out(in.shape());
  const int r = k / 2, C = in.channels();
  const std::uint64_t d = static_cast<std::uint64_t>(k) * k;
  for (int y = 0; y < in.height(); ++y)
    for (int x = 0; x < in.width(); ++x)
      for (int c = 0; c < C; ++c) {
        std::uint64_t s = 0;
        for (int j = -r; j <= r; ++j) {
          const auto* row = reinterpret_cast<const std::uint16_t*>(in.row(reflect101(y + j, in.height())));
          for (int i = -r; i <= r; ++i) s += row[reflect101(x + i, in.width()) * C + c];
        }
        reinterpret_cast<std::uint16_t*>(out.row(y))[x * C + c] = static_cast<std::uint16_t>((s + d / 2) / d);
      }
  return out;
}

void expect_both_equal(const Image& in, int k, const Image& want, const std::string& what) {
  const testing::Both b = run_both(one_stage(blur_json(k)), in);
  EXPECT_EQ(compare(b.cpu, want).count, 0u) << what << " k " << k << " (CPU path): " << compare(b.cpu, want).str();
  EXPECT_EQ(compare(b.emulated, want).count, 0u) << what << " k " << k << " (kernels): " << compare(b.emulated, want).str();
}

TEST(BoxBlur, EightBitEqualsCvBlurForEverySize) {
  const std::pair<int, int> sizes[] = {{41, 39}, {2, 3}, {1, 1}, {9, 70}, {130, 4}};
  std::uint32_t seed = 1;
  for (int k = 3; k <= 99; k += 2)
    for (const auto& [w, h] : sizes)
      for (int c : {1, 3, 4}) {
        // Windows wider than the image only on the small ones, every size elsewhere.
        if (w * h > 100 && k > 31 && k % 8 != 1) continue;
        const Image im = random_image({w, h, c, DType::U8}, seed++);
        expect_both_equal(im, k, cv_blur(im, k), std::to_string(w) + "x" + std::to_string(h) + " c" + std::to_string(c));
      }
}

TEST(BoxBlur, ExtremeValuesEqualCvBlur) {
  // Windows of 255 (the largest sums) and of values that put many means near a half.
  for (int k : {3, 15, 17, 45, 99}) {
    Image white({60, 50, 3, DType::U8}), half({60, 50, 1, DType::U8});
    for (int y = 0; y < 50; ++y) {
      for (int x = 0; x < 60 * 3; ++x) white.row(y)[x] = 255;
      for (int x = 0; x < 60; ++x) half.row(y)[x] = static_cast<std::uint8_t>((x + y) % 2 ? 128 : 127);
    }
    expect_both_equal(white, k, cv_blur(white, k), "white");
    expect_both_equal(half, k, cv_blur(half, k), "127/128");
  }
}

TEST(BoxBlur, PhotographsEqualCvBlur) {
  for (const char* name : {"astronaut.jpg", "rocket.jpg", "chelsea.png", "coffee.png", "camera.png", "coffee_rgba.png"}) {
    const Image im = testing::sample(name);
    for (int k : {3, 5, 7}) expect_both_equal(im, k, cv_blur(im, k), name);
    for (int k : {15, 17, 31, 63}) {
      const Image want = cv_blur(im, k);
      EXPECT_EQ(compare(testing::run_cpu(blur_json(k), im), want).count, 0u) << name << " k " << k;
    }
  }
}

TEST(BoxBlur, SixteenBitIsTheExactMean) {
  // The exact rounded mean on both paths; cv::blur rounds a binary32 product instead and strays by 1
  // on a few values once windows are large (counted here, and never by more than 1).
  for (int k : {3, 5, 7, 9, 13, 15, 17, 31}) {
    for (int c : {1, 3, 4}) {
      const Image im = random_image({67, 45, c, DType::U16}, 7 + k);
      const Image want = exact_mean16(im, k);
      expect_both_equal(im, k, want, "u16 c" + std::to_string(c));
      const auto d = compare(cv_blur(im, k), want);
      if (k <= 13) {
        EXPECT_EQ(d.count, 0u) << "cv::blur, k " << k << ": " << d.str();
      } else {
        EXPECT_LT(d.count, im.shape().values() / 200) << "cv::blur, k " << k << ": " << d.str();
      }
      EXPECT_LE(d.max, 1.0) << "cv::blur, k " << k;
    }
    const Image photo = testing::sample_as("astronaut.jpg", DType::U16, 3);
    const auto d = compare(cv_blur(photo, k), exact_mean16(photo, k));
    if (k <= 13) {
      EXPECT_EQ(d.count, 0u) << "cv::blur on a photograph, k " << k << ": " << d.str();
    }
    EXPECT_LE(d.max, 1.0) << "cv::blur on a photograph, k " << k;
  }
}

TEST(BoxBlur, FloatIsWithinAMillionthOfCvBlur) {
  for (int k : {3, 7, 17, 45})
    for (int c : {1, 3, 4}) {
      const Image im = random_image({53, 31, c, DType::F32}, 3 + k);
      const testing::Both b = run_both(one_stage(blur_json(k)), im);
      const Image want = cv_blur(im, k);
      EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << "k " << k << " c" << c;
      EXPECT_EQ(compare(b.cpu, want, 1e-6).count, 0u) << "k " << k << " c" << c << ": " << compare(b.cpu, want).str();
    }
}

TEST(BoxBlur, QuotientIsExact) {
  for (int k = 3; k <= 181; k += 2) {
    const std::uint32_t d = static_cast<std::uint32_t>(k * k), h = d / 2;
    const k::BoxDivisor b = k::box_divisor(k);
    // Every 8-bit sum of the sizes the stage takes.
    if (k <= 99) {
      for (std::uint32_t s = 0; s <= 255 * d; ++s) ASSERT_EQ(k::box_mean(s, b), (s + h) / d) << "k " << k << " s " << s;
    }
    // 16-bit sums on both sides of every point where the quotient steps, and the largest.
    for (std::uint32_t q = 0; q < 65535; ++q)
      for (std::uint32_t s : {q * d + d - h - 1, q * d + d - h, q * d + d - 1, q * d})
        ASSERT_EQ(k::box_mean(s, b), (s + h) / d) << "k " << k << " s " << s;
    ASSERT_EQ(k::box_mean(65535 * d, b), 65535u) << "k " << k;
  }
}

TEST(BoxBlur, DrawsEveryOddSizeAlikeAndDefaultsToAlbumentations) {
  const Pipeline p = one_stage(R"({"stage": "box_blur", "p": 1, "kernel_size": [3, 11]})");
  const int n = 5000;
  std::vector<int> counts(5, 0);
  for (int i = 0; i < n; ++i) {
    const Plan plan = p.plan(5, "img" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8});
    const int k = plan.steps.at(0).op->params().at("kernel_size").get<int>();
    ASSERT_TRUE(k >= 3 && k <= 11 && k % 2 == 1) << k;
    ++counts[(k - 3) / 2];
  }
  // Chi-square with 4 degrees of freedom: 18.47 is its 0.999 quantile.
  double chi2 = 0;
  for (int c : counts) chi2 += (c - n / 5.0) * (c - n / 5.0) / (n / 5.0);
  EXPECT_LT(chi2, 18.47) << counts[0] << " " << counts[1] << " " << counts[2] << " " << counts[3] << " " << counts[4];
  // Defaults: blur_limit (3, 7) and p 0.5.
  const Pipeline def = one_stage(R"({"stage": "box_blur"})");
  int applied = 0;
  std::vector<int> sizes(3, 0);
  for (int i = 0; i < 3000; ++i) {
    const Plan plan = def.plan(5, std::to_string(i), 0, {8, 8, 1, DType::U8});
    if (!plan.steps.at(0).op) continue;
    ++applied;
    ++sizes[(plan.steps.at(0).op->params().at("kernel_size").get<int>() - 3) / 2];
  }
  EXPECT_NEAR(applied / 3000.0, 0.5, 0.05);
  for (int s : sizes) EXPECT_NEAR(s / static_cast<double>(applied), 1 / 3.0, 0.05);
}

nlohmann::ordered_json import_one(const std::string& transform, std::vector<std::string>* notes = nullptr) {
  const nlohmann::json saved = nlohmann::json::parse(
      R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [)" + transform + "]}}");
  Imported imported = import_albumentations(saved, "a.json");
  if (notes) *notes = imported.notes;
  return imported.pipeline["stages"][0];
}

TEST(BoxBlur, ImportsBlurUnderEitherReleasesParameters) {
  using oj = nlohmann::ordered_json;
  // 2.x: a pair.
  const auto two = import_one(R"({"__class_fullname__": "Blur", "p": 0.3, "blur_limit": [5, 9]})");
  EXPECT_EQ(two["stage"], "box_blur");
  EXPECT_EQ(two["kernel_size"], oj::array({5, 9}));
  EXPECT_EQ(two["p"], 0.3);
  // 1.x: one number n is [3, n]; the full class path; Albumentations' default p 0.5.
  const auto one = import_one(R"({"__class_fullname__": "albumentations.augmentations.blur.transforms.Blur", "blur_limit": 11})");
  EXPECT_EQ(one["kernel_size"], oj::array({3, 11}));
  EXPECT_EQ(one["p"], 0.5);
  // No blur_limit: (3, 7).
  EXPECT_EQ(import_one(R"({"__class_fullname__": "Blur"})")["kernel_size"], oj::array({3, 7}));
  // Even ends made odd as 2.x does, with a note; one size.
  std::vector<std::string> notes;
  EXPECT_EQ(import_one(R"({"__class_fullname__": "Blur", "blur_limit": [4, 8]})", &notes)["kernel_size"],
            oj::array({5, 9}));
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes.back().find("[5, 9]"), std::string::npos) << notes.back();
  EXPECT_EQ(import_one(R"({"__class_fullname__": "Blur", "blur_limit": [7, 7]})")["kernel_size"], 7);
  // Too large a window says so.
  try {
    import_one(R"({"__class_fullname__": "Blur", "blur_limit": [3, 151]})");
    ADD_FAILURE() << "blur_limit 151 was imported";
  } catch (const PipelineError& e) {
    EXPECT_NE(std::string(e.what()).find("blur_limit"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aug::test_box_blur
