// The stage configurations and inputs every backend comparison runs: odd sizes (1x1, 2x3,
// 41x39, 257x3) and a photograph, for each sample type and channel count.
#pragma once

#include <string>
#include <vector>

#include "tests/support/testing.hpp"

namespace aug::testing {

inline constexpr const char* kParityStages[] = {
    R"({"stage": "resize", "size": [5, 3], "interpolation": "bilinear"})",
    R"({"stage": "resize", "scale": 0.6, "interpolation": "bilinear"})",
    R"({"stage": "resize", "scale": 1.7, "interpolation": "bilinear"})",
    R"({"stage": "resize", "scale": 0.45, "interpolation": "nearest"})",
    R"({"stage": "resize", "scale": 1.3, "interpolation": "nearest"})",
    R"({"stage": "resize", "scale": 0.55, "interpolation": "bicubic"})",
    R"({"stage": "resize", "scale": 2.2, "interpolation": "bicubic"})",
    R"({"stage": "resize", "scale": 0.37, "interpolation": "area"})",
    R"({"stage": "resize", "scale": 0.5, "interpolation": "area"})",
    R"({"stage": "resize", "scale": 1.6, "interpolation": "area"})",
    R"({"stage": "flip", "direction": "horizontal"})",
    R"({"stage": "flip", "direction": "vertical"})",
    R"({"stage": "crop", "size": [1, 1], "position": "random"})",
    R"({"stage": "crop", "size": [2, 3]})",
    R"({"stage": "random_resized_crop", "size": [9, 7], "interpolation": "bilinear"})",
    R"({"stage": "random_resized_crop", "size": [12, 12], "interpolation": "bicubic"})",
    R"({"stage": "random_resized_crop", "size": [6, 11], "interpolation": "area"})",
    R"({"stage": "gaussian_blur", "sigma": 1.0, "kernel_size": 7})",
    R"({"stage": "gaussian_blur", "sigma": 2.5, "border": "constant"})",
    R"({"stage": "gaussian_blur", "sigma": 0.8, "border": "replicate"})",
    R"({"stage": "gaussian_blur", "sigma": 6})",
    R"({"stage": "channel_gain", "r": 1.3, "g": 0.7, "b": 2.2})",
    R"({"stage": "gaussian_illumination", "gain": [0.05, 0.3], "sign": [-1, 1], "p": 1})",
    R"({"stage": "gaussian_illumination", "gain": 0.5, "center": 0.3, "sigma": 0.1, "sign": 1, "p": 1})",
    R"({"stage": "planckian_jitter", "mode": "blackbody", "p": 1})",
    R"({"stage": "planckian_jitter", "mode": "CIED", "select_from": [0, 22], "p": 1})",
    R"({"stage": "jpeg", "quality": 1})",
    R"({"stage": "jpeg", "quality": 50})",
    R"({"stage": "jpeg", "quality": 95})",
    R"({"stage": "jpeg", "quality": [20.5, 90], "mode": "kornia"})",
    R"({"stage": "jpeg", "quality": 99.5, "mode": "kornia"})",
    R"({"stage": "elastic", "kernel_size": [7, 5], "sigma": [2, 3], "alpha": [4, 2], "p": 1})",
    R"({"stage": "elastic", "kernel_size": 9, "sigma": 1.5, "alpha": [3, 3], "interpolation": "nearest", "p": 1})",
    R"({"stage": "elastic", "kernel_size": 5, "sigma": 1, "alpha": [8, 8], "padding": "border", "p": 1})",
    R"({"stage": "elastic", "kernel_size": 5, "sigma": 1, "alpha": [8, 8], "padding": "reflection", "p": 1})",
    R"({"stage": "elastic", "kernel_size": [31, 21], "sigma": [8, 5], "alpha": [0.5, 0.5], "p": 1})",
};

struct Input {
  std::string name;
  Image image;
};

inline std::vector<Input> parity_inputs(DType t, int c) {
  std::vector<Input> out;
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{2, 3}, std::pair{41, 39}, std::pair{257, 3}})
    out.push_back({std::to_string(w) + "x" + std::to_string(h), testing::random_image({w, h, c, t}, 99)});
  out.push_back({"chelsea.png", testing::sample_as("chelsea.png", t, c)});
  return out;
}

}  // namespace aug::testing
