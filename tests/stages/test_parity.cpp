// The CPU path against the kernel bodies run on the host ("cuda-emulated"): every stage, sample
// type and channel count, on odd sizes and on photographs. Integer images must agree to the bit;
// float images within the stage's declared tolerance.
#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "tests/stages/stage_cases.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

using testing::compare;

class Parity : public ::testing::TestWithParam<std::size_t> {};

TEST_P(Parity, CpuPathEqualsKernelsOnTheHost) {
  const Pipeline p = testing::one_stage(testing::kParityStages[GetParam()]);
  const Tolerance& tol = p.root().children[0].spec->tolerance;
  int compared = 0;
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int c : {1, 3, 4})
      for (const testing::Input& in : testing::parity_inputs(t, c)) {
        testing::Both b;
        try {
          b = testing::run_both(p, in.image);
        } catch (const InputError&) {
          continue;  // e.g. a crop larger than a 1x1 image
        }
        const auto d = compare(b.cpu, b.emulated, tol.for_dtype(t));
        EXPECT_EQ(d.count, 0u) << testing::kParityStages[GetParam()] << " on " << in.name << " " << dtype_name(t) << " c" << c << ": "
                               << d.str();
        ++compared;
      }
  EXPECT_GE(compared, 27);
}

INSTANTIATE_TEST_SUITE_P(Stages, Parity, ::testing::Range<std::size_t>(0, std::size(testing::kParityStages)));

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
