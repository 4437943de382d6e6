// emboss: the kernel against Albumentations' float32 NumPy arithmetic, the image against
// cv::filter2D with the recorded kernel (photographs and random images of odd and tiny sizes, every
// sample type and channel count), the draws against Albumentations' uniform ranges, and the import of
// Emboss and IAAEmboss.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_emboss {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

nlohmann::json params_of(const Plan& plan) { return plan.steps.at(0).op->params(); }

bool fused_opencv() { return cv::checkHardwareSupport(CV_CPU_AVX2) && cv::checkHardwareSupport(CV_CPU_FMA3); }

// cv::filter2D with the recorded 3x3 kernel; float results clamped to [0, 1] as Albumentations 2.x.
Image opencv_filter(const Image& in, const nlohmann::json& p) {
  const auto w = p.at("kernel").get<std::vector<float>>();
  cv::Mat kernel(3, 3, CV_32F);
  for (int i = 0; i < 9; ++i) kernel.at<float>(i / 3, i % 3) = w[static_cast<std::size_t>(i)];
  cv::Mat out;
  cv::filter2D(testing::mat(in), out, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
  if (out.depth() == CV_32F)
    for (int y = 0; y < out.rows; ++y) {
      float* row = out.ptr<float>(y);
      for (int i = 0; i < out.cols * out.channels(); ++i) row[i] = std::min(std::max(row[i], 0.0f), 1.0f);
    }
  return testing::from_mat(out);
}

TEST(Emboss, KernelIsAlbumentationsFloat32Matrix) {
  // NumPy: (1 - a) * float32 identity + a * float32 effect, the effect's entries computed in double
  // and rounded, the Python floats rounded to float32, every product and sum in float32.
  for (const auto& [a, st] : std::vector<std::pair<double, double>>{
           {0.5, 1.0}, {0.3, 0.7}, {0.2, 0.2}, {0.4999, 0.6123}, {1.0, 0.0}, {0.0, 0.6}, {0.123456789, 0.987654321}}) {
    const std::string config =
        R"({"stage": "emboss", "p": 1, "alpha": )" + std::to_string(a) + R"(, "strength": )" + std::to_string(st) + "}";
    const auto p = params_of(one_stage(config).plan(1, "a.png", 0, {5, 5, 1, DType::U8}));
    const double alpha = p.at("alpha").get<double>(), s = p.at("strength").get<double>();
    const auto k = p.at("kernel").get<std::vector<float>>();
    ASSERT_EQ(k.size(), 9u);
    const double effect[9] = {-1 - s, 0 - s, 0, 0 - s, 1, 0 + s, 0, 0 + s, 1 + s};
    for (int i = 0; i < 9; ++i) {
      volatile float keep = static_cast<float>(1.0 - alpha), af = static_cast<float>(alpha);
      volatile float e = static_cast<float>(effect[i]);
      volatile float p1 = keep * (i == 4 ? 1.0f : 0.0f), p2 = af * e;
      const float want = p1 + p2;
      EXPECT_EQ(k[static_cast<std::size_t>(i)], want) << a << " " << st << " entry " << i;
    }
    EXPECT_EQ(k[2], 0.0f);
    EXPECT_EQ(k[6], 0.0f);
  }
  // A case worked by hand: a 0.5, s 1: [[-1, -0.5, 0], [-0.5, 1, 0.5], [0, 0.5, 1]].
  const auto p = params_of(one_stage(R"({"stage": "emboss", "p": 1, "alpha": 0.5, "strength": 1})")
                               .plan(1, "a.png", 0, {5, 5, 1, DType::U8}));
  EXPECT_EQ(p.at("kernel"), nlohmann::json({-1.0, -0.5, 0.0, -0.5, 1.0, 0.5, 0.0, 0.5, 1.0}));
}

TEST(Emboss, EqualsCvFilter2DOnPhotographsAndOddSizes) {
  const double tol = fused_opencv() ? 0 : 1;
  // Photographs, default draws, several keys; every type and channel count.
  for (const char* name : {"astronaut.jpg", "chelsea.png", "coffee_rgba.png", "camera.png", "rocket.jpg"})
    for (DType t : {DType::U8, DType::U16, DType::F32})
      for (int c : {1, 3, 4}) {
        const Image in = testing::sample_as(name, t, c);
        const auto b = run_both(one_stage(R"({"stage": "emboss", "p": 1})"), in, std::string(name) + dtype_name(t));
        const Image want = opencv_filter(in, params_of(b.plan));
        SCOPED_TRACE(std::string(name) + " " + dtype_name(t) + " c=" + std::to_string(c));
        EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
        EXPECT_EQ(compare(b.emulated, want, t == DType::F32 ? 0 : tol).count, 0u) << compare(b.emulated, want).str();
      }
  // The photographs as they are (8-bit), the whole range of both parameters.
  for (const char* name : {"astronaut.jpg", "coffee_rgba.png", "camera.png"})
    for (int key = 0; key < 4; ++key) {
      const Image in = testing::sample(name);
      const auto b = run_both(one_stage(R"({"stage": "emboss", "p": 1, "alpha": [0, 1], "strength": [0, 4]})"), in,
                              name + std::to_string(key));
      const Image want = opencv_filter(in, params_of(b.plan));
      EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << name;
      EXPECT_EQ(compare(b.emulated, want, tol).count, 0u) << name << " " << compare(b.emulated, want).str();
    }
  // Random images, odd and tiny sizes (reflection of 1- and 2-pixel sides).
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int c : {1, 3, 4})
      for (const auto& [w, h] : std::vector<std::pair<int, int>>{{45, 31}, {3, 2}, {1, 1}, {2, 7}, {9, 1}}) {
        const Image in = testing::random_image({w, h, c, t}, 70 + c + w);
        const auto b = run_both(one_stage(R"({"stage": "emboss", "p": 1, "alpha": [0.2, 1], "strength": [0, 2]})"),
                                in, "r" + std::to_string(w * 100 + h + c));
        const Image want = opencv_filter(in, params_of(b.plan));
        SCOPED_TRACE(std::string(dtype_name(t)) + " c=" + std::to_string(c) + " " + std::to_string(w) + "x" +
                     std::to_string(h));
        EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
        EXPECT_EQ(compare(b.emulated, want, t == DType::F32 ? 0 : tol).count, 0u) << compare(b.emulated, want).str();
      }
}

using testing::ks_uniform;

TEST(Emboss, DrawsAreUniformOverAlbumentationsRanges) {
  // Albumentations: alpha = uniform(0.2, 0.5), then strength = uniform(0.2, 0.7), p 0.5.
  const Pipeline def = one_stage(R"({"stage": "emboss"})");
  std::vector<double> alpha, strength;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    const Plan plan = def.plan(3, "img" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8});
    if (!plan.steps.at(0).op) continue;
    const auto p = params_of(plan);
    alpha.push_back(p.at("alpha").get<double>());
    strength.push_back(p.at("strength").get<double>());
  }
  // The gate: binomial(4000, 0.5), within 4 standard deviations.
  EXPECT_NEAR(static_cast<double>(alpha.size()), n * 0.5, 4 * std::sqrt(n * 0.25));
  // KS at the 0.001 level: 1.95 / sqrt(m).
  const double crit = 1.95 / std::sqrt(static_cast<double>(alpha.size()));
  EXPECT_LT(ks_uniform(alpha, 0.2, 0.5), crit);
  EXPECT_LT(ks_uniform(strength, 0.2, 0.7), crit);
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    ASSERT_TRUE(alpha[i] >= 0.2 && alpha[i] < 0.5) << alpha[i];
    ASSERT_TRUE(strength[i] >= 0.2 && strength[i] < 0.7) << strength[i];
  }
  // The two draws are independent: their correlation within 4 / sqrt(m) of 0.
  const double m = static_cast<double>(alpha.size());
  double ma = 0, ml = 0, cov = 0, va = 0, vl = 0;
  for (std::size_t i = 0; i < alpha.size(); ++i) ma += alpha[i] / m, ml += strength[i] / m;
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    cov += (alpha[i] - ma) * (strength[i] - ml);
    va += (alpha[i] - ma) * (alpha[i] - ma);
    vl += (strength[i] - ml) * (strength[i] - ml);
  }
  EXPECT_LT(std::fabs(cov / std::sqrt(va * vl)), 4 / std::sqrt(m));
  // The test can fail: a range shifted by a tenth of its width is far outside.
  EXPECT_GT(ks_uniform(alpha, 0.23, 0.53), crit);
}

nlohmann::ordered_json import_one(const std::string& transform, const char* version = "2.0.8") {
  const nlohmann::json saved = nlohmann::json::parse(std::string(R"({"__version__": ")") + version +
                                                     R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" +
                                                     transform + "]}}");
  return import_albumentations(saved, "a.json").pipeline["stages"][0];
}

TEST(Emboss, ImportsEmbossAndIAAEmboss) {
  using oj = nlohmann::ordered_json;
  const auto two =
      import_one(R"({"__class_fullname__": "Emboss", "p": 0.3, "alpha": [0.1, 0.4], "strength": [0.6, 0.9]})");
  EXPECT_EQ(two["stage"], "emboss");
  EXPECT_EQ(two["alpha"], oj::array({0.1, 0.4}));
  EXPECT_EQ(two["strength"], oj::array({0.6, 0.9}));
  EXPECT_EQ(two["p"], 0.3);
  // 1.x without the ranges: Albumentations' defaults and p.
  const auto one = import_one(R"({"__class_fullname__": "albumentations.augmentations.transforms.Emboss"})", "1.3.1");
  EXPECT_EQ(one["alpha"], oj::array({0.2, 0.5}));
  EXPECT_EQ(one["strength"], oj::array({0.2, 0.7}));
  EXPECT_EQ(one["p"], 0.5);
  // IAAEmboss: the same stage; a number x is [0, x] as to_tuple(x, 0).
  const auto iaa =
      import_one(R"({"__class_fullname__": "IAAEmboss", "alpha": 0.4, "strength": [0.2, 0.7], "p": 1})", "0.5.2");
  EXPECT_EQ(iaa["stage"], "emboss");
  EXPECT_EQ(iaa["alpha"], oj::array({0.0, 0.4}));
  EXPECT_EQ(iaa["strength"], oj::array({0.2, 0.7}));
}

}  // namespace
}  // namespace aug::test_emboss
