// Running one stage (or a pipeline) on an image through a backend, for the stage tests.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/run/devices.hpp"
#include "tests/support/testing.hpp"

namespace aug::testing {

inline Pipeline one_stage(const std::string& stage_json) {
  return Pipeline::parse(R"({"version": 1, "stages": [)" + stage_json + "]}", "test.json");
}

// The plan for `in` and its result on the CPU path and on the kernels run on the host.
struct Both {
  Plan plan;
  Image cpu, emulated;
};

inline Both run_both(const Pipeline& p, const Image& in, const std::string& key = "img.png", std::uint32_t copy = 0) {
  static auto cpu = make_cpu_backend(1);
  static auto emu = make_emulated_backend(1);
  Both b{p.plan(11, key, copy, in.shape()), {}, {}};
  b.cpu = cpu->run(b.plan, in, 0);
  b.emulated = emu->run(b.plan, in, 0);
  return b;
}

inline Image run_cpu(const std::string& stage_json, const Image& in, const std::string& key = "img.png") {
  const Pipeline p = one_stage(stage_json);
  static auto cpu = make_cpu_backend(1);
  return cpu->run(p.plan(11, key, 0, in.shape()), in, 0);
}

// Inputs of every sample type and channel count: two photographs (1, 3 and 4 channels made from
// them) and random images, among them odd sizes and sides of 1 and 2.
inline std::vector<Image> driver_inputs(DType t, int channels) {
  std::vector<Image> in;
  for (const char* name : sampled({"chelsea.png", "astronaut.jpg"})) in.push_back(sample_as(name, t, channels));
  const Shape sizes[] = {{64, 48, channels, t}, {37, 23, channels, t}, {2, 9, channels, t}, {1, 5, channels, t},
                         {17, 1, channels, t}};
  std::uint32_t seed = 40;
  for (const Shape& s : sizes) in.push_back(random_image(s, seed++));
  return in;
}

// `stage` on every input of the given types: the CPU path (OpenCV or the stage's host driver) equals
// the kernels run on the host, 0 differing values.
inline void expect_parity(const std::string& stage, std::initializer_list<DType> types, std::initializer_list<int> channels,
                   int keys = 1) {
  const Pipeline p = one_stage(stage);
  int compared = 0;
  for (DType t : types)
    for (int c : channels)
      for (const Image& im : driver_inputs(t, c))
        for (int key = 0; key < keys; ++key) {
          Both b;
          try {
            b = run_both(p, im, "img" + std::to_string(key) + ".png");
          } catch (const InputError&) {
            continue;  // e.g. a crop larger than the image
          }
          const auto d = compare(b.cpu, b.emulated);
          EXPECT_EQ(d.count, 0u) << stage << " on " << to_string(im.shape()) << " key " << key << ": " << d.str();
          ++compared;
        }
  EXPECT_GT(compared, 0) << stage;
}

}  // namespace aug::testing
