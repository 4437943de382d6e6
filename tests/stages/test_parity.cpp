// The CPU path against the kernel bodies run on the host ("cuda-emulated") for a chained pipeline
// on photographs. Each stage's own comparison, on every declared case, sample type, channel count
// and odd size, is in test_catalog.cpp.
#include <gtest/gtest.h>

#include "tests/stages/stage_runner.hpp"

namespace aug::test_parity {
namespace {

using testing::compare;

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
}  // namespace aug::test_parity
