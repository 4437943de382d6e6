// The CPU path against the kernel bodies run on the host ("cuda-emulated"): every stage, sample
// type and channel count, on odd sizes and on photographs. Integer images must agree to the bit;
// float images within the stage's declared tolerance.
#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using testing::compare;

const char* const kStages[] = {
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
};

struct Input {
  std::string name;
  Image image;
};

std::vector<Input> inputs(DType t, int c) {
  std::vector<Input> out;
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{2, 3}, std::pair{41, 39}, std::pair{257, 3}})
    out.push_back({std::to_string(w) + "x" + std::to_string(h), testing::random_image({w, h, c, t}, 99)});
  out.push_back({"chelsea.png", testing::sample_as("chelsea.png", t, c)});
  return out;
}

class Parity : public ::testing::TestWithParam<std::size_t> {};

TEST_P(Parity, CpuPathEqualsKernelsOnTheHost) {
  const Pipeline p = testing::one_stage(kStages[GetParam()]);
  const Tolerance& tol = p.root().children[0].spec->tolerance;
  int compared = 0;
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int c : {1, 3, 4})
      for (const Input& in : inputs(t, c)) {
        testing::Both b;
        try {
          b = testing::run_both(p, in.image);
        } catch (const InputError&) {
          continue;  // e.g. a crop larger than a 1x1 image
        }
        const auto d = compare(b.cpu, b.emulated, tol.for_dtype(t));
        EXPECT_EQ(d.count, 0u) << kStages[GetParam()] << " on " << in.name << " " << dtype_name(t) << " c" << c << ": "
                               << d.str();
        ++compared;
      }
  EXPECT_GE(compared, 27);
}

INSTANTIATE_TEST_SUITE_P(Stages, Parity, ::testing::Range<std::size_t>(0, std::size(kStages)));

TEST(Parity, ChainedPipelineOnPhotographs) {
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [
      {"stage": "resize", "short_side": 160},
      {"stage": "gaussian_blur", "sigma": [0.5, 2.0]},
      {"stage": "one_of", "stages": [{"stage": "flip"}, {"stage": "random_resized_crop", "size": [96, 96]}]},
      {"stage": "channel_gain", "r": [0.8, 1.2], "g": [0.8, 1.2], "b": [0.8, 1.2]}]})",
                                     "chain.json");
  for (const char* name : {"astronaut.jpg", "rocket.jpg", "coffee.png", "camera.png", "coffee_rgba.png"})
    for (std::uint32_t copy = 0; copy < 3; ++copy) {
      const Image im = testing::sample(name);
      const testing::Both b = testing::run_both(p, im, name, copy);
      EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << name << " copy " << copy;
    }
}

}  // namespace
}  // namespace aug
