// advanced_blur: the kernel against Albumentations' formula written out plainly from the recorded
// draws, the image against cv::filter2D with the recorded kernel (photographs and random images of
// odd and tiny sizes, every sample type and channel count), the draws against Albumentations'
// definitions, and the import of AdvancedBlur (1.x and 2.x names).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_advanced_blur {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

nlohmann::json params_of(const Plan& plan) { return plan.steps.at(0).op->params(); }

bool fused_opencv() { return cv::checkHardwareSupport(CV_CPU_AVX2) && cv::checkHardwareSupport(CV_CPU_FMA3); }

// cv::filter2D with the recorded k x k kernel; float results clamped to [0, 1] as Albumentations 2.x.
Image opencv_filter(const Image& in, const nlohmann::json& p) {
  const int k = p.at("kernel_size").get<int>();
  const auto w = p.at("kernel").get<std::vector<float>>();
  cv::Mat kernel(k, k, CV_32F);
  for (int i = 0; i < k * k; ++i) kernel.at<float>(i / k, i % k) = w[static_cast<std::size_t>(i)];
  cv::Mat out;
  cv::filter2D(testing::mat(in), out, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
  if (out.depth() == CV_32F)
    for (int y = 0; y < out.rows; ++y) {
      float* row = out.ptr<float>(y);
      for (int i = 0; i < out.cols * out.channels(); ++i) row[i] = std::min(std::max(row[i], 0.0f), 1.0f);
    }
  return testing::from_mat(out);
}

// Albumentations' kernel from the draws, written plainly: the 2x2 matrices multiplied and inverted
// with the textbook formulas, the generalised Gaussian times the noise, a plain sum, float32.
std::vector<float> reference_kernel(const nlohmann::json& p) {
  const int k = p.at("kernel_size").get<int>();
  const double sx = p.at("sigma_x").get<double>(), sy = p.at("sigma_y").get<double>();
  const double theta = p.at("rotate").get<double>() * M_PI / 180.0, beta = p.at("beta").get<double>();
  const auto noise = p.at("noise").get<std::vector<double>>();
  const double u[2][2] = {{std::cos(theta), -std::sin(theta)}, {std::sin(theta), std::cos(theta)}};
  const double d[2] = {sx * sx, sy * sy};
  double sig[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) sig[i][j] = u[i][0] * d[0] * u[j][0] + u[i][1] * d[1] * u[j][1];
  const double det = sig[0][0] * sig[1][1] - sig[0][1] * sig[1][0];
  const double inv[2][2] = {{sig[1][1] / det, -sig[0][1] / det}, {-sig[1][0] / det, sig[0][0] / det}};
  std::vector<double> e;
  double sum = 0;
  for (int row = 0; row < k; ++row)
    for (int col = 0; col < k; ++col) {
      const double v[2] = {static_cast<double>(col - k / 2), static_cast<double>(row - k / 2)};
      double q = 0;
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) q += v[i] * inv[i][j] * v[j];
      e.push_back(std::exp(-0.5 * std::pow(q, beta)) * noise[e.size()]);
      sum += e.back();
    }
  std::vector<float> w;
  for (double x : e) w.push_back(static_cast<float>(x / sum));
  return w;
}

TEST(AdvancedBlur, KernelIsTheGeneralisedGaussianTimesNoise) {
  int checked = 0;
  for (const char* config :
       {R"({"stage": "advanced_blur", "p": 1})",
        R"({"stage": "advanced_blur", "p": 1, "kernel_size": [3, 15], "sigma_x": [0.2, 4], "sigma_y": [0.2, 4],
            "rotate": [-180, 180], "beta": [0.3, 4], "noise": [0.5, 1.5]})"})
    for (int i = 0; i < 200; ++i) {
      const auto p = params_of(one_stage(config).plan(7, "k" + std::to_string(i) + ".png", 0, {9, 9, 1, DType::U8}));
      const auto k = p.at("kernel").get<std::vector<float>>();
      const auto want = reference_kernel(p);
      ASSERT_EQ(k.size(), want.size());
      double total = 0;
      for (std::size_t j = 0; j < k.size(); ++j) {
        // The same formula; the rounding of the matrix products and the sum may move the last bits.
        EXPECT_NEAR(k[j], want[j], 1e-6 + 1e-5 * std::fabs(want[j])) << p.dump() << " at " << j;
        total += k[j];
      }
      EXPECT_NEAR(total, 1.0, 1e-5);
      ++checked;
    }
  EXPECT_EQ(checked, 400);
  // A case worked by hand: k 3, an isotropic Gaussian (sigma 1, beta 1), no noise: the weights are
  // exp(-r^2 / 2) normalised, so the corner over the centre is e^-1 and the edge e^-0.5.
  const auto p = params_of(
      one_stage(R"({"stage": "advanced_blur", "p": 1, "kernel_size": 3, "sigma_x": 1, "sigma_y": 1, "rotate": 37,
                    "beta": 1, "noise": 1})")
          .plan(1, "a.png", 0, {5, 5, 1, DType::U8}));
  const auto w = p.at("kernel").get<std::vector<float>>();
  const double s = 1 + 4 * std::exp(-0.5) + 4 * std::exp(-1.0);
  EXPECT_FLOAT_EQ(w[4], static_cast<float>(1 / s));
  EXPECT_FLOAT_EQ(w[0], static_cast<float>(std::exp(-1.0) / s));
  EXPECT_FLOAT_EQ(w[1], static_cast<float>(std::exp(-0.5) / s));
  // Anisotropic and rotated by 90 degrees: sigma_x then lies along the rows.
  const auto q = params_of(
      one_stage(R"({"stage": "advanced_blur", "p": 1, "kernel_size": 3, "sigma_x": 2, "sigma_y": 0.5, "rotate": 90,
                    "beta": 1, "noise": 1})")
          .plan(1, "a.png", 0, {5, 5, 1, DType::U8}));
  const auto r = q.at("kernel").get<std::vector<float>>();
  // Above the centre (along y: sigma 2) exp(-1/8), beside it (sigma 0.5) exp(-2).
  EXPECT_NEAR(r[1] / r[3], std::exp(1.875), 1e-5);
  EXPECT_FLOAT_EQ(r[1], r[7]);
  EXPECT_FLOAT_EQ(r[3], r[5]);
}

TEST(AdvancedBlur, EqualsCvFilter2DOnPhotographsAndOddSizes) {
  const double tol = fused_opencv() ? 0 : 1;
  // The photographs as they are (8-bit), default draws (k 3 to 7), several keys: 0 differing values.
  std::size_t values = 0;
  for (const char* name : {"astronaut.jpg", "chelsea.png", "coffee_rgba.png", "camera.png", "rocket.jpg"})
    for (int key = 0; key < 3; ++key) {
      const Image in = testing::sample(name);
      const auto b = run_both(one_stage(R"({"stage": "advanced_blur", "p": 1})"), in, name + std::to_string(key));
      const Image want = opencv_filter(in, params_of(b.plan));
      EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << name << " " << compare(b.cpu, b.emulated).str();
      EXPECT_EQ(compare(b.emulated, want, tol).count, 0u) << name << " " << compare(b.emulated, want).str();
      values += static_cast<std::size_t>(in.shape().width) * in.shape().height * in.shape().channels;
    }
  EXPECT_GT(values, 1000000u);
  // Every type and channel count; 16-bit up to k 7, where cv::filter2D still sums directly.
  for (const char* name : {"astronaut.jpg", "coffee_rgba.png"})
    for (DType t : {DType::U8, DType::U16, DType::F32})
      for (int c : {1, 3, 4}) {
        const Image in = testing::sample_as(name, t, c);
        const auto b = run_both(one_stage(R"({"stage": "advanced_blur", "p": 1, "kernel_size": [3, 7],
                                               "sigma_x": [0.2, 3], "sigma_y": [0.2, 3], "beta": [0.5, 4]})"),
                                in, std::string(name) + dtype_name(t) + std::to_string(c));
        const Image want = opencv_filter(in, params_of(b.plan));
        SCOPED_TRACE(std::string(name) + " " + dtype_name(t) + " c=" + std::to_string(c));
        EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
        EXPECT_EQ(compare(b.emulated, want, t == DType::F32 ? 0 : tol).count, 0u) << compare(b.emulated, want).str();
      }
  // Random images, odd and tiny sizes (reflection of 1- and 2-pixel sides), kernels up to 11 (8-bit, float).
  for (DType t : {DType::U8, DType::F32})
    for (int c : {1, 3, 4})
      for (const auto& [w, h] : std::vector<std::pair<int, int>>{{45, 31}, {3, 2}, {1, 1}, {2, 7}, {9, 1}}) {
        const Image in = testing::random_image({w, h, c, t}, 90 + c + w);
        const auto b = run_both(one_stage(R"({"stage": "advanced_blur", "p": 1, "kernel_size": [3, 11],
                                               "sigma_x": [0.5, 4], "sigma_y": [0.5, 4], "noise": [0.5, 1.5]})"),
                                in, "r" + std::to_string(w * 100 + h + c));
        const Image want = opencv_filter(in, params_of(b.plan));
        SCOPED_TRACE(std::string(dtype_name(t)) + " c=" + std::to_string(c) + " " + std::to_string(w) + "x" +
                     std::to_string(h));
        EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
        EXPECT_EQ(compare(b.emulated, want, t == DType::F32 ? 0 : tol).count, 0u) << compare(b.emulated, want).str();
      }
}

using testing::ks_uniform;

TEST(AdvancedBlur, DrawsAreAlbumentations) {
  // Albumentations: ksize = sample_odd_from_range(3, 7) (3, 5, 7 alike), sigma_x, sigma_y =
  // uniform(0.2, 1.0), angle = uniform(-90, 90), beta = uniform(0.5, 1) if random() < 0.5 else
  // uniform(1, 8), then a ksize x ksize noise uniform(0.9, 1.1); p 0.5.
  const Pipeline def = one_stage(R"({"stage": "advanced_blur"})");
  std::map<int, int> sizes;
  std::vector<double> sx, sy, rot, low_beta, high_beta, noise;
  const int n = 4000;
  int applied = 0;
  for (int i = 0; i < n; ++i) {
    const Plan plan = def.plan(5, "img" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8});
    if (!plan.steps.at(0).op) continue;
    ++applied;
    const auto p = params_of(plan);
    const int k = p.at("kernel_size").get<int>();
    ++sizes[k];
    sx.push_back(p.at("sigma_x").get<double>());
    sy.push_back(p.at("sigma_y").get<double>());
    rot.push_back(p.at("rotate").get<double>());
    const double beta = p.at("beta").get<double>();
    (beta < 1 ? low_beta : high_beta).push_back(beta);
    const auto f = p.at("noise").get<std::vector<double>>();
    ASSERT_EQ(f.size(), static_cast<std::size_t>(k * k));
    noise.insert(noise.end(), f.begin(), f.end());
  }
  const double m = applied;
  // The gate: binomial(4000, 0.5), within 4 standard deviations.
  EXPECT_NEAR(m, n * 0.5, 4 * std::sqrt(n * 0.25));
  // Sizes: 3, 5, 7 alike; chi-square with 2 degrees of freedom, 13.82 its 0.999 quantile.
  ASSERT_EQ(sizes.size(), 3u);
  double chi2 = 0;
  for (const auto& [k, c] : sizes) {
    EXPECT_TRUE(k == 3 || k == 5 || k == 7) << k;
    chi2 += (c - m / 3) * (c - m / 3) / (m / 3);
  }
  EXPECT_LT(chi2, 13.82);
  // The beta branches: each half of the images, within 4 standard deviations.
  EXPECT_NEAR(static_cast<double>(low_beta.size()), m / 2, 4 * std::sqrt(m / 4));
  // KS at the 0.001 level: 1.95 / sqrt(size).
  auto crit = [](const std::vector<double>& v) { return 1.95 / std::sqrt(static_cast<double>(v.size())); };
  EXPECT_LT(ks_uniform(sx, 0.2, 1.0), crit(sx));
  EXPECT_LT(ks_uniform(sy, 0.2, 1.0), crit(sy));
  EXPECT_LT(ks_uniform(rot, -90, 90), crit(rot));
  EXPECT_LT(ks_uniform(low_beta, 0.5, 1.0), crit(low_beta));
  EXPECT_LT(ks_uniform(high_beta, 1.0, 8.0), crit(high_beta));
  EXPECT_LT(ks_uniform(noise, 0.9, 1.1), crit(noise));
  for (double f : noise) ASSERT_TRUE(f >= 0.9 && f < 1.1) << f;
  // The test can fail: beta drawn over the whole range at once is far from the split.
  std::vector<double> all = low_beta;
  all.insert(all.end(), high_beta.begin(), high_beta.end());
  EXPECT_GT(ks_uniform(all, 0.5, 8.0), crit(all));
  EXPECT_GT(ks_uniform(rot, -80, 100), crit(rot));
}

TEST(AdvancedBlur, RefusesABetaRangeWithoutOne) {
  EXPECT_THROW(one_stage(R"({"stage": "advanced_blur", "beta": [1.5, 4]})"), PipelineError);
  EXPECT_THROW(one_stage(R"({"stage": "advanced_blur", "beta": [0.2, 0.9]})"), PipelineError);
  EXPECT_NO_THROW(one_stage(R"({"stage": "advanced_blur", "beta": [1, 4]})"));
  // A single number is that beta on every image.
  const Pipeline fixed = one_stage(R"({"stage": "advanced_blur", "p": 1, "beta": 2.5})");
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(params_of(fixed.plan(1, std::to_string(i) + ".png", 0, {5, 5, 1, DType::U8})).at("beta"), 2.5);
}

nlohmann::ordered_json import_one(const std::string& transform, const char* version = "2.0.8") {
  const nlohmann::json saved = nlohmann::json::parse(std::string(R"({"__version__": ")") + version +
                                                     R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" +
                                                     transform + "]}}");
  return import_albumentations(saved, "a.json").pipeline["stages"][0];
}

TEST(AdvancedBlur, ImportsAdvancedBlurOneAndTwo) {
  using oj = nlohmann::ordered_json;
  const auto two = import_one(
      R"({"__class_fullname__": "AdvancedBlur", "p": 0.3, "blur_limit": [3, 9], "sigma_x_limit": [0.3, 1.5],
          "sigma_y_limit": [0.4, 2.0], "rotate_limit": [-45, 30], "beta_limit": [0.6, 4.0], "noise_limit": [0.8, 1.2]})");
  EXPECT_EQ(two["stage"], "advanced_blur");
  EXPECT_EQ(two["kernel_size"], oj::array({3, 9}));
  EXPECT_EQ(two["sigma_x"], oj::array({0.3, 1.5}));
  EXPECT_EQ(two["sigma_y"], oj::array({0.4, 2.0}));
  EXPECT_EQ(two["rotate"], oj::array({-45.0, 30.0}));
  EXPECT_EQ(two["beta"], oj::array({0.6, 4.0}));
  EXPECT_EQ(two["noise"], oj::array({0.8, 1.2}));
  EXPECT_EQ(two["p"], 0.3);
  // 1.x names; rotate_limit a number is symmetric; defaults elsewhere, and Albumentations' p.
  const auto one = import_one(
      R"({"__class_fullname__": "albumentations.augmentations.blur.transforms.AdvancedBlur", "sigmaX_limit": [0.5, 0.9],
          "sigmaY_limit": 0.7, "rotate_limit": 20})",
      "1.3.1");
  EXPECT_EQ(one["sigma_x"], oj::array({0.5, 0.9}));
  EXPECT_EQ(one["sigma_y"], oj::array({0.0, 0.7}));
  EXPECT_EQ(one["rotate"], oj::array({-20.0, 20.0}));
  EXPECT_EQ(one["kernel_size"], oj::array({3, 7}));
  EXPECT_EQ(one["beta"], oj::array({0.5, 8.0}));
  EXPECT_EQ(one["noise"], oj::array({0.9, 1.1}));
  EXPECT_EQ(one["p"], 0.5);
  // The imported stage loads.
  EXPECT_NO_THROW(one_stage(one.dump()));
  // A beta range without 1 is refused, naming it.
  try {
    import_one(R"({"__class_fullname__": "AdvancedBlur", "beta_limit": [2, 4]})");
    ADD_FAILURE() << "beta_limit [2, 4] was imported";
  } catch (const PipelineError& e) {
    EXPECT_NE(std::string(e.what()).find("beta_limit"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aug::test_advanced_blur
