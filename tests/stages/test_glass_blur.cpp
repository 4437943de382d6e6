// glass_blur: against cv::GaussianBlur around the swaps written as Albumentations writes them (NumPy's
// two scatters in its order of pixels, last write winning; the serial loop), the offsets' distribution
// against NumPy's integers(-d, d), the p gate, and the import.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/filter/glass_blur.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_glass_blur {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;
using testing::noise::stream_of;

nlohmann::json params_of(const Plan& plan) { return plan.steps.at(0).op->params(); }

struct Swaps {
  std::size_t shared_targets = 0;  // targets written by more than one source (the last wins)
};

// Albumentations' swaps on x (in place), with the offsets of the stage's stream.
Swaps swap_like_albumentations(cv::Mat& x, const k::KeyedStream& s, int d, int iterations, bool fast) {
  const int H = x.rows, W = x.cols;
  const std::size_t px = x.elemSize();
  auto at = [&](int y, int c) { return x.ptr<std::uint8_t>(y) + static_cast<std::size_t>(c) * px; };
  Swaps info;
  std::vector<int> hs, ws;  // np.arange(H - d, d, -1), np.arange(W - d, d, -1)
  for (int v = H - d; v > d; --v) hs.push_back(v);
  for (int v = W - d; v > d; --v) ws.push_back(v);
  for (int i = 0; i < iterations; ++i) {
    if (fast) {
      // h = np.tile(hs, len(ws)), w = np.repeat(ws, len(hs)); both sides gathered, then
      // x[h, w] = A, then x[h + dy, w + dx] = B, each in index order.
      const std::size_t n = hs.size() * ws.size();
      std::vector<int> h(n), w(n), dy(n), dx(n);
      for (std::size_t k = 0; k < n; ++k) {
        h[k] = hs[k % hs.size()];
        w[k] = ws[k / hs.size()];
        k::glass_blur_offset(s, W, h[k], w[k], i, d, dy[k], dx[k]);
      }
      std::vector<std::uint8_t> a(n * px), b(n * px);
      for (std::size_t k = 0; k < n; ++k) {
        std::copy_n(at(h[k] + dy[k], w[k] + dx[k]), px, a.data() + k * px);
        std::copy_n(at(h[k], w[k]), px, b.data() + k * px);
      }
      for (std::size_t k = 0; k < n; ++k) std::copy_n(a.data() + k * px, px, at(h[k], w[k]));
      std::map<std::pair<int, int>, int> writes;
      for (std::size_t k = 0; k < n; ++k) {
        std::copy_n(b.data() + k * px, px, at(h[k] + dy[k], w[k] + dx[k]));
        if (++writes[{h[k] + dy[k], w[k] + dx[k]}] == 2) ++info.shared_targets;
      }
    } else {
      for (int y : hs)
        for (int c : ws) {
          int dy, dx;
          k::glass_blur_offset(s, W, y, c, i, d, dy, dx);
          std::swap_ranges(at(y, c), at(y, c) + px, at(y + dy, c + dx));
        }
    }
  }
  return info;
}

// cv2.GaussianBlur(img, (0, 0), sigma), the swaps, the blur again (sigma tiny: no blur at all).
Image reference(const Image& in, const nlohmann::json& p, const k::KeyedStream& s, Swaps* info = nullptr) {
  const double sigma = p.at("sigma").get<double>();
  const cv::Mat src = testing::mat(in);
  cv::Mat x;
  const bool blur = p.at("kernel_size").get<int>() > 1;
  if (blur) cv::GaussianBlur(src, x, cv::Size(0, 0), sigma);
  else x = src.clone();
  const Swaps sw = swap_like_albumentations(x, s, p.at("max_delta").get<int>(), p.at("iterations").get<int>(),
                                            p.at("mode").get<std::string>() == "fast");
  if (info) *info = sw;
  cv::Mat out;
  if (blur) cv::GaussianBlur(x, out, cv::Size(0, 0), sigma);
  else out = x;
  return testing::from_mat(out);
}

TEST(GlassBlur, EqualsOpenCvAroundTheSwaps) {
  std::size_t shared = 0;
  for (const char* mode : {"fast", "exact"})
    for (const char* extra : {"", R"(, "sigma": 1.2, "max_delta": 2, "iterations": 3)"}) {
      const std::string config = std::string(R"({"stage": "glass_blur", "p": 1, "mode": ")") + mode + "\"" + extra + "}";
      for (const char* name : testing::sampled({"astronaut.jpg", "chelsea.png", "coffee_rgba.png", "camera.png", "rocket.jpg"}))
        for (int c : {1, 3, 4}) {
          const Image in = testing::sample_as(name, DType::U8, c);
          const std::string key = std::string(name) + std::to_string(c);
          const auto b = run_both(one_stage(config), in, key);
          Swaps info;
          const Image want = reference(in, params_of(b.plan), stream_of(key), &info);
          shared += info.shared_targets;
          SCOPED_TRACE(config + " " + name + " c=" + std::to_string(c));
          EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
          EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
        }
    }
  EXPECT_GT(shared, 1000u);  // NumPy's last write decided many pixels
}

TEST(GlassBlur, SwapsOfEveryTypeWithoutBlur) {
  // sigma 0.05: a kernel of size 1 on every type, so the output is the swaps alone.
  for (const char* mode : {"fast", "exact"})
    for (DType t : {DType::U8, DType::U16, DType::F32})
      for (int c : {1, 3, 4})
        for (const auto& [w, h] : std::vector<std::pair<int, int>>{{45, 31}, {9, 9}, {10, 11}, {3, 40}, {64, 48}}) {
          const std::string config =
              std::string(R"({"stage": "glass_blur", "p": 1, "sigma": 0.05, "iterations": 3, "mode": ")") + mode + "\"}";
          const Image in = testing::random_image({w, h, c, t}, 30 + c + w);
          const std::string key = "g" + std::to_string(w * 100 + h);
          const auto b = run_both(one_stage(config), in, key);
          ASSERT_EQ(params_of(b.plan).at("kernel_size").get<int>(), 1);
          const Image want = reference(in, params_of(b.plan), stream_of(key));
          SCOPED_TRACE(std::string(mode) + " " + dtype_name(t) + " c=" + std::to_string(c) + " " + std::to_string(w) +
                       "x" + std::to_string(h));
          EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << compare(b.cpu, b.emulated).str();
          EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
          if (w > 8 && h > 8) {
            EXPECT_GT(compare(in, b.cpu).count, 0u);
          }
        }
}

TEST(GlassBlur, KernelSizeIsOpenCvsPerDepth) {
  const Pipeline def = one_stage(R"({"stage": "glass_blur", "p": 1})");
  EXPECT_EQ(params_of(def.plan(1, "a", 0, {16, 16, 3, DType::U8})).at("kernel_size").get<int>(), 5);
  EXPECT_EQ(params_of(def.plan(1, "a", 0, {16, 16, 3, DType::U16})).at("kernel_size").get<int>(), 7);
  EXPECT_EQ(params_of(def.plan(1, "a", 0, {16, 16, 3, DType::F32})).at("kernel_size").get<int>(), 7);
}

TEST(GlassBlur, OffsetsAreNumPysIntegers) {
  // integers(-d, d): each of the (2d)^2 pairs alike, +d never; chi-square with 63 degrees of
  // freedom (0.999 quantile 103.4) for d = 4, and 35 (66.6) for d = 3.
  for (int d : {4, 3}) {
    const k::KeyedStream s = stream_of("offsets" + std::to_string(d));
    const int span = 2 * d;
    std::vector<double> counts(static_cast<std::size_t>(span * span), 0.0);
    double n = 0;
    for (int it = 0; it < 2; ++it)
      for (int y = d + 1; y <= 200; ++y)
        for (int x = d + 1; x <= 150; ++x) {
          int dy, dx;
          k::glass_blur_offset(s, 160, y, x, it, d, dy, dx);
          ASSERT_GE(dy, -d);
          ASSERT_LT(dy, d);
          ASSERT_GE(dx, -d);
          ASSERT_LT(dx, d);
          counts[static_cast<std::size_t>((dy + d) * span + dx + d)] += 1;
          n += 1;
        }
    double chi2 = 0;
    const double e = n / static_cast<double>(counts.size());
    for (double c : counts) chi2 += (c - e) * (c - e) / e;
    EXPECT_LT(chi2, d == 4 ? 103.4 : 66.6) << d;
    // The test can fail: the same counts against a distribution that allows +d are far off.
    const int wide = span + 1;
    double chi2_wide = 0;
    const double ew = n / (wide * wide);
    for (int a = 0; a < wide; ++a)
      for (int b = 0; b < wide; ++b) {
        const double c = a < span && b < span ? counts[static_cast<std::size_t>(a * span + b)] : 0.0;
        chi2_wide += (c - ew) * (c - ew) / ew;
      }
    EXPECT_GT(chi2_wide, 1000.0);
  }
}

TEST(GlassBlur, AppliedWithProbabilityP) {
  const Pipeline def = one_stage(R"({"stage": "glass_blur"})");
  int applied = 0;
  const int n = 4000;
  for (int i = 0; i < n; ++i)
    if (def.plan(4, "img" + std::to_string(i), 0, {16, 16, 3, DType::U8}).steps.at(0).op) ++applied;
  EXPECT_NEAR(applied, n * 0.5, 4 * std::sqrt(n * 0.25));
}

nlohmann::ordered_json import_one(const std::string& transform, const char* version = "2.0.8") {
  const nlohmann::json saved = nlohmann::json::parse(std::string(R"({"__version__": ")") + version +
                                                     R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" +
                                                     transform + "]}}");
  return import_albumentations(saved, "a.json").pipeline["stages"][0];
}

TEST(GlassBlur, ImportsGlassBlur) {
  const auto two = import_one(
      R"({"__class_fullname__": "GlassBlur", "p": 0.3, "sigma": 0.9, "max_delta": 3, "iterations": 1, "mode": "exact"})");
  EXPECT_EQ(two["stage"], "glass_blur");
  EXPECT_EQ(two["sigma"], 0.9);
  EXPECT_EQ(two["max_delta"], 3);
  EXPECT_EQ(two["iterations"], 1);
  EXPECT_EQ(two["mode"], "exact");
  EXPECT_EQ(two["p"], 0.3);
  const auto one = import_one(R"({"__class_fullname__": "GlassBlur"})", "1.3.1");
  EXPECT_EQ(one["sigma"], 0.7);
  EXPECT_EQ(one["max_delta"], 4);
  EXPECT_EQ(one["iterations"], 2);
  EXPECT_EQ(one["p"], 0.5);
}

}  // namespace
}  // namespace aug::test_glass_blur
