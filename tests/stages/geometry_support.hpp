// What several per-stage test files share: the sample types and channel counts and a fixture over all
// of them; for the exact stages (crop, pad, rotate90) the run on both backends, the borders and fills
// and the parse error; for the warps (rotate, affine, perspective) the manifest replayed with OpenCV,
// the draws' statistics and the check that each error message names the parameter.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "lib/run/devices.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::testing::geometry {

// Every sample type and every channel count (lists, so that expect_parity takes them too).
inline constexpr std::initializer_list<DType> kTypes = {DType::U8, DType::U16, DType::F32};
inline constexpr std::initializer_list<int> kChannels = {1, 3, 4};

// A random 41x39 image (or w x h) of each sample type and channel count, as the test parameter.
class TypesAndChannels : public ::testing::TestWithParam<std::tuple<DType, int>> {
 protected:
  Image image(int w = 41, int h = 39) const {
    return random_image({w, h, std::get<1>(GetParam()), std::get<0>(GetParam())}, 5);
  }
};

inline auto types_and_channels() {
  return ::testing::Combine(::testing::Values(DType::U8, DType::U16, DType::F32), ::testing::Values(1, 3, 4));
}

inline std::string type_and_channels_name(const ::testing::TestParamInfo<std::tuple<DType, int>>& info) {
  return std::string(dtype_name(std::get<0>(info.param))) + "_c" + std::to_string(std::get<1>(info.param));
}

// ---- the exact stages (crop, pad, rotate90) ------------------------------------------------------

// Runs a one-stage pipeline on both backends; checks they agree and returns the CPU result.
inline Both both(const std::string& stage, const Image& in, const std::string& key = "img.png") {
  Both b = run_both(one_stage(stage), in, key);
  EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << stage << ": cpu vs cuda-emulated";
  return b;
}

inline std::vector<Image> photographs(DType t) {
  return {sample_as("chelsea.png", t, 3), sample_as("camera.png", t, 1), sample_as("coffee_rgba.png", t, 4)};
}

inline const std::map<std::string, int> kCvBorders{{"constant", cv::BORDER_CONSTANT},
                                                   {"replicate", cv::BORDER_REPLICATE},
                                                   {"reflect", cv::BORDER_REFLECT},
                                                   {"reflect101", cv::BORDER_REFLECT_101},
                                                   {"wrap", cv::BORDER_WRAP}};

inline std::string fill_json(DType t) {
  return t == DType::F32 ? "[0.25, 0.75, 1.5, -0.5]" : (t == DType::U8 ? "[10, 200, 300, 12.5]" : "[1000, 65535, 70000, -3]");
}
inline cv::Scalar fill_scalar(DType t) {
  return t == DType::F32 ? cv::Scalar(0.25, 0.75, 1.5, -0.5)
                         : (t == DType::U8 ? cv::Scalar(10, 200, 300, 12.5) : cv::Scalar(1000, 65535, 70000, -3));
}

// The message of the PipelineError parsing `stage` throws ("" if it parses).
inline std::string parse_error(const std::string& stage) {
  try {
    one_stage(stage);
  } catch (const PipelineError& e) {
    return e.what();
  }
  return "";
}

// ---- the warps (rotate, affine, perspective) -----------------------------------------------------

inline constexpr double kPi = 3.14159265358979323846;

inline int cv_border(const std::string& b) {
  if (b == "constant") return cv::BORDER_CONSTANT;
  if (b == "replicate") return cv::BORDER_REPLICATE;
  if (b == "reflect") return cv::BORDER_REFLECT;
  if (b == "reflect101") return cv::BORDER_REFLECT_101;
  if (b == "wrap") return cv::BORDER_WRAP;
  return -1;
}
inline int cv_interp(const std::string& i) {
  return i == "nearest" ? cv::INTER_NEAREST : (i == "bilinear" ? cv::INTER_LINEAR : cv::INTER_CUBIC);
}

struct WarpRun {
  nlohmann::json params;
  Image out;
};

inline WarpRun run_stage(const Pipeline& p, const Image& in, const std::string& key, std::uint32_t copy = 0) {
  static auto cpu = make_cpu_backend(1);
  Plan plan = p.plan(5, key, copy, in.shape());
  WarpRun r;
  r.params = plan.steps.at(0).op->params();
  r.out = cpu->run(plan, in, 0);
  return r;
}

inline nlohmann::json plan_params(const Pipeline& p, const Shape& s, const std::string& key, std::uint32_t copy = 0) {
  return p.plan(5, key, copy, s).steps.at(0).op->params();
}

// The manifest's fill (one value per channel) as OpenCV's border value.
inline cv::Scalar manifest_fill(const nlohmann::json& m) {
  const std::vector<double> f = m.at("fill").get<std::vector<double>>();
  cv::Scalar fill;
  for (std::size_t c = 0; c < f.size() && c < 4; ++c) fill[static_cast<int>(c)] = f[c];
  return fill;
}

// cv::remap with maps the test built and the interpolation, border and fill the manifest records
// (the field warps' reference).
inline Image remap_from_manifest(const Image& in, const nlohmann::json& m, const cv::Mat& mx, const cv::Mat& my) {
  cv::Mat dst;
  cv::remap(mat(in), dst, mx, my, cv_interp(m.at("interpolation").get<std::string>()),
            cv_border(m.at("border").get<std::string>()), manifest_fill(m));
  return from_mat(dst);
}

// cv::warpAffine / cv::warpPerspective with what the manifest records.
inline Image opencv_from_manifest(const Image& in, const nlohmann::json& m) {
  std::array<double, 9> a = m.at("matrix").get<std::array<double, 9>>();
  const cv::Size size(m.at("width").get<int>(), m.at("height").get<int>());
  const cv::Scalar fill = manifest_fill(m);
  const int interp = cv_interp(m.at("interpolation").get<std::string>());
  const int border = cv_border(m.at("border").get<std::string>());
  cv::Mat dst;
  if (a[6] == 0 && a[7] == 0 && a[8] == 1)
    cv::warpAffine(mat(in), dst, cv::Mat(2, 3, CV_64F, a.data()), size, interp, border, fill);
  else
    cv::warpPerspective(mat(in), dst, cv::Mat(3, 3, CV_64F, a.data()), size, interp, border, fill);
  return from_mat(dst);
}

// `stage` in each configuration (a label -> its parameters) with every interpolation and border on
// four photographs: the output equals OpenCV's warp with the manifest's matrix, 0 differing values.
// Prints a "[ vs OpenCV ]" line per configuration, interpolation and border, and the stage's total.
inline void expect_manifest_reproduces_output(const std::string& stage,
                                              const std::map<std::string, std::string>& configs) {
  const char* photos[] = {"astronaut.jpg", "camera.png", "coffee_rgba.png", "chelsea.png"};
  std::size_t total_values = 0, total_diff = 0;
  for (const auto& [name, body] : configs)
    for (const char* interp : {"nearest", "bilinear", "bicubic"})
      for (const char* border : {"constant", "replicate", "reflect", "reflect101", "wrap"}) {
        const Pipeline p = one_stage(R"({"stage": ")" + stage + R"(", )" + body + R"(, "interpolation": ")" + interp +
                                     R"(", "border": ")" + border + R"(", "fill": [17, 200, 3, 99]})");
        std::size_t values = 0, diff = 0;
        std::uint32_t copy = 0;
        for (const char* photo : photos) {
          const Image in = sample(photo);
          const WarpRun r = run_stage(p, in, photo, copy++);
          const Image ref = opencv_from_manifest(in, r.params);
          ASSERT_EQ(r.out.shape(), ref.shape()) << name << " " << photo;
          const Diff d = compare(r.out, ref);
          EXPECT_EQ(d.count, 0u) << name << " " << interp << " " << border << " " << photo << ": " << d.str()
                                 << " params " << r.params.dump();
          values += ref.shape().values();
          diff += d.count;
        }
        std::printf("[ vs OpenCV ] %-12s %-8s %-10s differing values: %zu of %zu\n", name.c_str(), interp, border,
                    diff, values);
        total_values += values;
        total_diff += diff;
      }
  std::printf("[ vs OpenCV ] %s total differing values: %zu of %zu\n", stage.c_str(), total_diff, total_values);
}

// Each stage object is refused, with a message that names the parameter.
inline void expect_errors_name_the_parameter(std::initializer_list<std::pair<const char*, const char*>> bad) {
  for (const auto& [text, param] : bad) {
    try {
      one_stage(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(param), std::string::npos) << text << ": " << e.what();
    }
  }
}

// A 3x3 matrix, row by row.
using M3 = std::array<double, 9>;

// Running range and mean of draws.
struct Stats {
  double sum = 0, lo = INFINITY, hi = -INFINITY;
  int n = 0;
  void add(double v) {
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    ++n;
  }
  double mean() const { return sum / n; }
};

}  // namespace aug::testing::geometry
