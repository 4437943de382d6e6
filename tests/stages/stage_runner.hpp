// Running one stage (or a pipeline) on an image through a backend, for the stage tests.
#pragma once

#include <string>

#include "lib/run/devices.hpp"
#include "lib/pipeline/pipeline.hpp"
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

}  // namespace aug::testing
