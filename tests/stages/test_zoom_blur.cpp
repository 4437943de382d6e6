// zoom_blur: against Albumentations 2.x's computation written with cv::resize on the float image
// and plain loops (0 differing values, every sample type), the zoom factors against NumPy's arange,
// the draws against 2.x's definition, and the import.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_zoom_blur {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

nlohmann::json params_of(const Plan& plan) { return plan.steps.at(0).op->params(); }

// np.arange(1.0, stop, step): ceil((stop - start) / step) values; NumPy fills them from the first
// two, start and start + step, as start + i * delta with delta = (start + step) - start.
std::vector<double> arange(double stop, double step) {
  const double start = 1.0;
  const auto n = static_cast<int>(std::ceil((stop - start) / step));
  std::vector<double> v;
  const double second = start + step, delta = second - start;
  for (int i = 0; i < n; ++i) v.push_back(i == 0 ? start : (i == 1 ? second : start + i * delta));
  return v;
}

// Albumentations 2.x's central_zoom on a float image: a central crop of ceil(L / z) per axis,
// cv2.resize INTER_LINEAR to (int(h z), int(w z)) (not called when the size is unchanged), the
// centre H x W of it.
cv::Mat central_zoom(const cv::Mat& x, double z) {
  const int H = x.rows, W = x.cols;
  const int hc = static_cast<int>(std::ceil(H / z)), wc = static_cast<int>(std::ceil(W / z));
  const int top = (H - hc) / 2, left = (W - wc) / 2;
  cv::Mat crop = x(cv::Rect(left, top, wc, hc)), scaled;
  const int nh = static_cast<int>(hc * z), nw = static_cast<int>(wc * z);
  if (nh == hc && nw == wc) scaled = crop;
  else cv::resize(crop, scaled, cv::Size(nw, nh), 0, 0, cv::INTER_LINEAR);
  return scaled(cv::Rect((scaled.cols - W) / 2, (scaled.rows - H) / 2, W, H)).clone();
}

// 2.x's zoom_blur under float32_io: x = v / max, out = zeros; out += zoom per factor;
// (x + out) / (n + 1), clipped to [0, 1], rint(. * max).
Image reference(const Image& in, double max_factor, double step) {
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
  const std::vector<double> factors = arange(max_factor, step);
  cv::Mat acc = cv::Mat::zeros(x.size(), x.type());
  for (double z : factors) {
    const cv::Mat zoom = central_zoom(x, z);
    for (int y = 0; y < x.rows; ++y)
      for (int i = 0; i < n; ++i) acc.ptr<float>(y)[i] = acc.ptr<float>(y)[i] + zoom.ptr<float>(y)[i];
  }
  const float count = static_cast<float>(factors.size() + 1);
  cv::Mat out(src.size(), src.type());
  for (int y = 0; y < x.rows; ++y)
    for (int i = 0; i < n; ++i) {
      const float o = std::min(std::max((x.ptr<float>(y)[i] + acc.ptr<float>(y)[i]) / count, 0.0f), 1.0f);
      if (depth == CV_32F) out.ptr<float>(y)[i] = o;
      else if (depth == CV_8U) out.ptr<std::uint8_t>(y)[i] = static_cast<std::uint8_t>(std::rint(o * max));
      else out.ptr<std::uint16_t>(y)[i] = static_cast<std::uint16_t>(std::rint(o * max));
    }
  return testing::from_mat(out);
}

TEST(ZoomBlur, EqualsOpenCvResizeOnTheFloatImage) {
  const char* configs[] = {R"({"stage": "zoom_blur", "p": 1})",
                           R"({"stage": "zoom_blur", "p": 1, "max_factor": [1.2, 1.6], "step_factor": [0.05, 0.15]})"};
  for (const char* config : configs) {
    for (const char* name : testing::sampled({"astronaut.jpg", "chelsea.png", "coffee_rgba.png", "camera.png", "rocket.jpg"}))
      for (DType t : {DType::U8, DType::U16, DType::F32})
        for (int c : {1, 3, 4}) {
          if (t != DType::U8 && std::string(name) == "rocket.jpg") continue;
          const Image in = testing::sample_as(name, t, c);
          const auto b = run_both(one_stage(config), in, std::string(name) + dtype_name(t) + std::to_string(c));
          const auto p = params_of(b.plan);
          const Image want = reference(in, p.at("max_factor").get<double>(), p.at("step_factor").get<double>());
          SCOPED_TRACE(std::string(config) + " " + name + " " + dtype_name(t) + " c=" + std::to_string(c) + " " + p.dump());
          EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
          EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
        }
    for (DType t : {DType::U8, DType::U16, DType::F32})
      for (int c : {1, 3, 4})
        for (const auto& [w, h] : std::vector<std::pair<int, int>>{{45, 31}, {3, 2}, {1, 1}, {2, 9}, {8, 1}, {17, 40}}) {
          const Image in = testing::random_image({w, h, c, t}, 70 + c + w);
          const auto b = run_both(one_stage(config), in, "r" + std::to_string(w * 100 + h + c));
          const auto p = params_of(b.plan);
          const Image want = reference(in, p.at("max_factor").get<double>(), p.at("step_factor").get<double>());
          SCOPED_TRACE(std::string(dtype_name(t)) + " c=" + std::to_string(c) + " " + std::to_string(w) + "x" +
                       std::to_string(h) + " " + p.dump());
          EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
          EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
        }
  }
}

TEST(ZoomBlur, ZoomsAreVisible) {
  // Only the factor 1 (max_factor 1, a step past it) leaves the image as it is; zooms change it,
  // and a larger maximum factor moves values further (the test can fail).
  const Image in = testing::sample("astronaut.jpg");
  auto change = [&](const std::string& config) {
    const Image out = testing::run_cpu(config, in);
    return cv::norm(testing::mat(in), testing::mat(out), cv::NORM_L1) / static_cast<double>(in.shape().values());
  };
  EXPECT_EQ(change(R"({"stage": "zoom_blur", "p": 1, "max_factor": [1, 1], "step_factor": 0.5})"), 0.0);
  double previous = 0;
  for (const char* m : {"1.02", "1.1", "1.3"}) {
    const double c = change(std::string(R"({"stage": "zoom_blur", "p": 1, "step_factor": 0.01, "max_factor": [)") + m +
                            ", " + m + "]}");
    std::cout << "max_factor " << m << ": mean change " << c << "\n";
    EXPECT_GT(c, previous);
    previous = c;
  }
}

TEST(ZoomBlur, FactorsAreNumPysArange) {
  // np.arange(1, 1.3, 0.1) has four values (0.30000000000000004 / 0.1 > 3): 1.3000000000000003 is one.
  EXPECT_EQ(arange(1.3, 0.1).size(), 4u);
  EXPECT_EQ(arange(1.31, 0.03).size(), 11u);
  EXPECT_EQ(arange(1.5, 0.25).size(), 2u);
  const Pipeline fixed = one_stage(R"({"stage": "zoom_blur", "p": 1, "max_factor": [1.3, 1.3], "step_factor": 0.1})");
  EXPECT_EQ(params_of(fixed.plan(1, "a.png", 0, {8, 8, 3, DType::U8})).at("zooms").get<int>(), 4);
  // The maximum is raised to 1 + step: one zoom (the factor 1) at least.
  const Pipeline low = one_stage(R"({"stage": "zoom_blur", "p": 1, "max_factor": [1, 1], "step_factor": 0.2})");
  const auto p = params_of(low.plan(1, "a.png", 0, {8, 8, 3, DType::U8}));
  EXPECT_EQ(p.at("max_factor").get<double>(), 1.2);
  EXPECT_EQ(p.at("zooms").get<int>(), 1);
}

using testing::ks_uniform;

TEST(ZoomBlur, DrawsAreAlbumentations) {
  // 2.x: st = U(0.01, 0.03), m = max(1 + st, U(1, 1.31)), p 0.5. Where m > 1 + st it is uniform
  // on (1 + st, 1.31); m = 1 + st with probability E[st] / 0.31.
  const Pipeline def = one_stage(R"({"stage": "zoom_blur"})");
  std::vector<double> steps, rest;
  int raised = 0;
  const int n = 6000;
  for (int i = 0; i < n; ++i) {
    const Plan plan = def.plan(5, "img" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8});
    if (!plan.steps.at(0).op) continue;
    const auto p = params_of(plan);
    const double st = p.at("step_factor").get<double>(), m = p.at("max_factor").get<double>();
    steps.push_back(st);
    ASSERT_GE(m, 1 + st);
    ASSERT_LT(m, 1.31);
    EXPECT_EQ(p.at("zooms").get<std::size_t>(), arange(m, st).size());
    if (m == 1 + st) ++raised;
    else rest.push_back((m - 1 - st) / (0.31 - st));
  }
  const double taken = static_cast<double>(steps.size());
  EXPECT_NEAR(taken, n * 0.5, 4 * std::sqrt(n * 0.25));
  const double crit = 1.95 / std::sqrt(taken);
  EXPECT_LT(ks_uniform(steps, 0.01, 0.03), crit);
  EXPECT_GT(ks_uniform(steps, 0.011, 0.031), crit);  // the test can fail
  const double q = 0.02 / 0.31;
  EXPECT_NEAR(raised, taken * q, 4 * std::sqrt(taken * q * (1 - q)));
  EXPECT_LT(ks_uniform(rest, 0, 1), 1.95 / std::sqrt(static_cast<double>(rest.size())));
  // A number m means [1, m].
  const Pipeline scalar = one_stage(R"({"stage": "zoom_blur", "p": 1, "max_factor": 2, "step_factor": 0.01})");
  std::vector<double> ms;
  for (int i = 0; i < 2000; ++i)
    ms.push_back(params_of(scalar.plan(3, "s" + std::to_string(i), 0, {8, 8, 1, DType::U8})).at("max_factor").get<double>());
  EXPECT_LT(ks_uniform(ms, 1.0, 2.0), 0.05);  // raised to 1.01 below 1.01: a 1% mass at one end
}

nlohmann::ordered_json import_one(const std::string& transform, const char* version = "2.0.8") {
  const nlohmann::json saved = nlohmann::json::parse(std::string(R"({"__version__": ")") + version +
                                                     R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" +
                                                     transform + "]}}");
  return import_albumentations(saved, "a.json").pipeline["stages"][0];
}

TEST(ZoomBlur, ImportsZoomBlur) {
  using oj = nlohmann::ordered_json;
  const auto two =
      import_one(R"({"__class_fullname__": "ZoomBlur", "p": 0.3, "max_factor": [1.1, 1.5], "step_factor": [0.02, 0.04]})");
  EXPECT_EQ(two["stage"], "zoom_blur");
  EXPECT_EQ(two["max_factor"], oj::array({1.1, 1.5}));
  EXPECT_EQ(two["step_factor"], oj::array({0.02, 0.04}));
  EXPECT_EQ(two["p"], 0.3);
  const auto one = import_one(R"({"__class_fullname__": "ZoomBlur", "max_factor": 1.2})", "1.3.1");
  EXPECT_EQ(one["max_factor"], oj::array({1.0, 1.2}));
  EXPECT_EQ(one["step_factor"], oj::array({0.01, 0.03}));
  EXPECT_EQ(one["p"], 0.5);
}

}  // namespace
}  // namespace aug::test_zoom_blur
