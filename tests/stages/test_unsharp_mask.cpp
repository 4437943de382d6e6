// unsharp_mask: against the formula written out with plain loops (0 differing values, every sample
// type), against Albumentations' own computation with cv::GaussianBlur on float images (8-bit
// values counted and bounded), the draws against Albumentations' definition, and the import.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/filter/unsharp_mask.hpp"
#include "lib/core/error.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_unsharp_mask {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

nlohmann::json params_of(const Plan& plan) { return plan.steps.at(0).op->params(); }

// Blur of a float image (interleaved, c channels): the tap weights (float) of the Gaussian, the
// horizontal pass then the vertical, acc = acc + w * v from +0, reflect101.
cv::Mat loop_blur(const cv::Mat& x, int k, double sigma) {
  const cv::Mat g = cv::getGaussianKernel(k, sigma, CV_64F);
  std::vector<float> w(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) w[static_cast<std::size_t>(i)] = static_cast<float>(g.at<double>(i));
  const int r = k / 2, C = x.channels(), W = x.cols, H = x.rows;
  cv::Mat h(x.size(), x.type()), out(x.size(), x.type());
  for (int y = 0; y < H; ++y)
    for (int px = 0; px < W; ++px)
      for (int c = 0; c < C; ++c) {
        float acc = 0.0f;
        for (int i = 0; i < k; ++i) {
          const int sx = cv::borderInterpolate(px + i - r, W, cv::BORDER_REFLECT_101);
          acc = acc + w[static_cast<std::size_t>(i)] * x.ptr<float>(y)[sx * C + c];
        }
        h.ptr<float>(y)[px * C + c] = acc;
      }
  for (int y = 0; y < H; ++y)
    for (int px = 0; px < W; ++px)
      for (int c = 0; c < C; ++c) {
        float acc = 0.0f;
        for (int i = 0; i < k; ++i) {
          const int sy = cv::borderInterpolate(y + i - r, H, cv::BORDER_REFLECT_101);
          acc = acc + w[static_cast<std::size_t>(i)] * h.ptr<float>(sy)[px * C + c];
        }
        out.ptr<float>(y)[px * C + c] = acc;
      }
  return out;
}

cv::Mat cv_blur(const cv::Mat& x, int k, double sigma) {
  cv::Mat out;
  cv::GaussianBlur(x, out, cv::Size(k, k), sigma, 0, cv::BORDER_REFLECT_101);
  return out;
}

// Albumentations' unsharp_mask (2.x rounding) on `in`, with the given blur.
template <class Blur>
Image reference(const Image& in, const nlohmann::json& p, Blur blur) {
  const int k = p.at("kernel_size").get<int>();
  const double sigma = p.at("sigma").get<double>();
  const float alpha = static_cast<float>(p.at("alpha").get<double>());
  const float thr = static_cast<float>(p.at("threshold").get<int>());
  const cv::Mat src = testing::mat(in);
  const int depth = src.depth();
  const float max = depth == CV_8U ? 255.0f : (depth == CV_16U ? 65535.0f : 1.0f);
  cv::Mat x(src.size(), CV_MAKETYPE(CV_32F, src.channels()));
  const int n = src.cols * src.channels();
  for (int y = 0; y < src.rows; ++y)
    for (int i = 0; i < n; ++i) {
      float v;
      if (depth == CV_8U) v = static_cast<float>(src.ptr<std::uint8_t>(y)[i]) / max;
      else if (depth == CV_16U) v = static_cast<float>(src.ptr<std::uint16_t>(y)[i]) / max;
      else v = src.ptr<float>(y)[i];
      x.ptr<float>(y)[i] = v;
    }
  const cv::Mat b = blur(x, k, sigma);
  cv::Mat m(x.size(), x.type());
  for (int y = 0; y < x.rows; ++y)
    for (int i = 0; i < n; ++i) m.ptr<float>(y)[i] = std::fabs(x.ptr<float>(y)[i] - b.ptr<float>(y)[i]) * 255.0f > thr;
  const cv::Mat s = blur(m, k, sigma);
  cv::Mat out(src.size(), src.type());
  for (int y = 0; y < x.rows; ++y)
    for (int i = 0; i < n; ++i) {
      const float xv = x.ptr<float>(y)[i], r = xv - b.ptr<float>(y)[i], sv = s.ptr<float>(y)[i];
      const float sharp = std::min(std::max(xv + alpha * r, 0.0f), 1.0f);
      const float o = std::min(std::max(sharp * sv + xv * (1.0f - sv), 0.0f), 1.0f);
      if (depth == CV_32F) out.ptr<float>(y)[i] = o;
      else {
        const float q = std::rint(o * max);
        if (depth == CV_8U) out.ptr<std::uint8_t>(y)[i] = static_cast<std::uint8_t>(q);
        else out.ptr<std::uint16_t>(y)[i] = static_cast<std::uint16_t>(q);
      }
    }
  return testing::from_mat(out);
}

TEST(UnsharpMask, EqualsTheReferenceFormula) {
  const char* configs[] = {R"({"stage": "unsharp_mask", "p": 1})",
                           R"({"stage": "unsharp_mask", "p": 1, "kernel_size": [3, 11], "sigma": [0, 3], "alpha": [0, 1], "threshold": 2})"};
  for (const char* config : configs) {
    for (const char* name : testing::sampled({"astronaut.jpg", "chelsea.png", "coffee_rgba.png", "camera.png"}, 2))
      for (DType t : {DType::U8, DType::U16, DType::F32})
        for (int c : {1, 3, 4}) {
          const Image in = testing::sample_as(name, t, c);
          const auto b = run_both(one_stage(config), in, std::string(name) + dtype_name(t) + std::to_string(c));
          const Image want = reference(in, params_of(b.plan), loop_blur);
          SCOPED_TRACE(std::string(config) + " " + name + " " + dtype_name(t) + " c=" + std::to_string(c) + " " +
                       params_of(b.plan).dump());
          EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
          EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
        }
    for (DType t : {DType::U8, DType::U16, DType::F32})
      for (int c : {1, 3, 4})
        for (const auto& [w, h] : std::vector<std::pair<int, int>>{{45, 31}, {3, 2}, {1, 1}, {2, 9}, {8, 1}}) {
          const Image in = testing::random_image({w, h, c, t}, 90 + c + w);
          const auto b = run_both(one_stage(config), in, "r" + std::to_string(w * 100 + h + c));
          const Image want = reference(in, params_of(b.plan), loop_blur);
          SCOPED_TRACE(std::string(dtype_name(t)) + " c=" + std::to_string(c) + " " + std::to_string(w) + "x" +
                       std::to_string(h));
          EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
          EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
        }
  }
}

TEST(UnsharpMask, DiffersFromAlbumentationsCvGaussianBlurInRareValues) {
  // Albumentations blurs with cv::GaussianBlur on float images, which sums in its own order: 8-bit
  // results differ where a residual is within an ulp of the threshold or a value of a midpoint.
  std::size_t differing = 0, total = 0;
  double worst = 0;
  for (const char* name : {"astronaut.jpg", "chelsea.png", "coffee_rgba.png", "camera.png", "rocket.jpg"})
    for (int k : {3, 5, 7})
      for (const char* sigma : {"0", "1.3"}) {
        const Image in = testing::sample(name);
        const auto b = run_both(
            one_stage(std::string(R"({"stage": "unsharp_mask", "p": 1, "kernel_size": )") + std::to_string(k) +
                      R"(, "sigma": )" + sigma + "}"),
            in, name);
        const Image want = reference(in, params_of(b.plan), cv_blur);
        const auto d = compare(b.cpu, want);
        differing += d.count;
        total += in.shape().values();
        worst = std::max(worst, d.max);
      }
  std::cout << differing << " of " << total << " 8-bit values differ from cv::GaussianBlur's, by at most " << worst
            << "\n";
  EXPECT_LE(worst, 3.0);
  EXPECT_LE(static_cast<double>(differing), 2e-4 * static_cast<double>(total));
}

using testing::ks_uniform;

TEST(UnsharpMask, DrawsAreAlbumentations) {
  // Albumentations: k = randrange(3, 8, 2), sigma = uniform(0, 0), alpha = uniform(0.2, 0.5), p 0.5.
  const Pipeline def = one_stage(R"({"stage": "unsharp_mask"})");
  std::map<int, int> sizes;
  std::vector<double> alpha;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    const Plan plan = def.plan(9, "img" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8});
    if (!plan.steps.at(0).op) continue;
    const auto p = params_of(plan);
    ++sizes[p.at("kernel_size").get<int>()];
    alpha.push_back(p.at("alpha").get<double>());
    EXPECT_EQ(p.at("sigma").get<double>(), 0.0);
    EXPECT_EQ(p.at("threshold").get<int>(), 10);
  }
  const double m = static_cast<double>(alpha.size());
  EXPECT_NEAR(m, n * 0.5, 4 * std::sqrt(n * 0.25));
  ASSERT_EQ(sizes.size(), 3u);
  // Chi-square with 2 degrees of freedom: 13.82 is its 0.999 quantile.
  double chi2 = 0;
  for (const auto& [k, c] : sizes) {
    EXPECT_TRUE(k == 3 || k == 5 || k == 7) << k;
    chi2 += (c - m / 3) * (c - m / 3) / (m / 3);
  }
  EXPECT_LT(chi2, 13.82);
  const double crit = 1.95 / std::sqrt(m);
  EXPECT_LT(ks_uniform(alpha, 0.2, 0.5), crit);
  EXPECT_GT(ks_uniform(alpha, 0.23, 0.53), crit);  // the test can fail
  // sigma drawn from a range when given one.
  std::vector<double> sig;
  const Pipeline ranged = one_stage(R"({"stage": "unsharp_mask", "p": 1, "sigma": [0.5, 2]})");
  for (int i = 0; i < 2000; ++i)
    sig.push_back(params_of(ranged.plan(9, "s" + std::to_string(i), 0, {8, 8, 1, DType::U8})).at("sigma").get<double>());
  EXPECT_LT(ks_uniform(sig, 0.5, 2), 1.95 / std::sqrt(2000.0));
}

TEST(UnsharpMask, EightBitValuesAsNumPyDividesThem) {
  // NumPy's float32 / 255 and a float64 division rounded to float32 agree for every 8-bit value.
  for (int v = 0; v < 256; ++v)
    EXPECT_EQ(static_cast<float>(v) / 255.0f, static_cast<float>(static_cast<double>(v) / 255.0)) << v;
}

TEST(UnsharpMask, HostDriverRoundTripHoldsForEveryValue) {
  // The host driver copies the input where the soft weights of a stretch are all zero: the blend
  // is then from_unit(clamp01(sharp * 0 + x * (1 - 0))) with x = to_unit(v), which is v exactly
  // when from_unit(to_unit(v)) = v. Every 8- and 16-bit value, through the kernels' own formula.
  for (int v = 0; v <= 255; ++v) {
    const auto u = static_cast<std::uint8_t>(v);
    const float x = k::to_unit(u);
    EXPECT_EQ(k::from_unit<std::uint8_t>(k::unsharp_blend(x, 0.0f, 0.0f, 1.0f)), u) << v;
    EXPECT_EQ(k::from_unit<std::uint8_t>(k::unsharp_blend(x, 1.0f, 0.0f, 0.5f)), u) << v;
  }
  for (int v = 0; v <= 65535; ++v) {
    const auto u = static_cast<std::uint16_t>(v);
    const float x = k::to_unit(u);
    EXPECT_EQ(k::from_unit<std::uint16_t>(k::unsharp_blend(x, 0.0f, 0.0f, 1.0f)), u) << v;
    EXPECT_EQ(k::from_unit<std::uint16_t>(k::unsharp_blend(x, 1.0f, 0.0f, 0.5f)), u) << v;
  }
}

nlohmann::ordered_json import_one(const std::string& transform, const char* version = "2.0.8") {
  const nlohmann::json saved = nlohmann::json::parse(std::string(R"({"__version__": ")") + version +
                                                     R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" +
                                                     transform + "]}}");
  return import_albumentations(saved, "a.json").pipeline["stages"][0];
}

TEST(UnsharpMask, ImportsUnsharpMask) {
  using oj = nlohmann::ordered_json;
  const auto two = import_one(
      R"({"__class_fullname__": "UnsharpMask", "p": 0.3, "blur_limit": [3, 9], "sigma_limit": [0.5, 1.5], "alpha": [0.1, 0.4], "threshold": 5})");
  EXPECT_EQ(two["stage"], "unsharp_mask");
  EXPECT_EQ(two["kernel_size"], oj::array({3, 9}));
  EXPECT_EQ(two["sigma"], oj::array({0.5, 1.5}));
  EXPECT_EQ(two["alpha"], oj::array({0.1, 0.4}));
  EXPECT_EQ(two["threshold"], 5);
  EXPECT_EQ(two["p"], 0.3);
  const auto one = import_one(R"({"__class_fullname__": "UnsharpMask"})", "1.3.1");
  EXPECT_EQ(one["kernel_size"], oj::array({3, 7}));
  EXPECT_EQ(one["sigma"], 0.0);
  EXPECT_EQ(one["threshold"], 10);
  EXPECT_EQ(one["p"], 0.5);
  try {
    import_one(R"({"__class_fullname__": "UnsharpMask", "blur_limit": [0, 5], "sigma_limit": [1, 2]})");
    ADD_FAILURE() << "blur_limit 0 was imported";
  } catch (const PipelineError& e) {
    EXPECT_NE(std::string(e.what()).find("blur_limit"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aug::test_unsharp_mask
