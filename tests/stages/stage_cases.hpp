// What every backend comparison runs, from the stage declarations: each registered stage's
// declared `cases` (StageSpec::cases) as one-stage pipelines, and the inputs: odd sizes (1x1, 2x3,
// 41x39, 257x3) and a photograph, for each sample type and channel count.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/pipeline/pipeline.hpp"
#include "lib/stages/stage.hpp"
#include "tests/support/testing.hpp"

namespace aug::testing {

struct Input {
  std::string name;
  Image image;
};

inline std::vector<Input> parity_inputs(DType t, int c) {
  std::vector<Input> out;
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{2, 3}, std::pair{41, 39}, std::pair{257, 3}})
    out.push_back({std::to_string(w) + "x" + std::to_string(h), testing::random_image({w, h, c, t}, 99)});
  // Under the sanitizers the photograph is compared in 8-bit only (testing::sampled).
  if (!testing::kSanitized || t == DType::U8) out.push_back({"chelsea.png", testing::sample_as("chelsea.png", t, c)});
  return out;
}

inline constexpr DType kDtypes[] = {DType::U8, DType::U16, DType::F32};
inline constexpr int kChannels[] = {1, 3, 4};

// The names of the registered stages (not the compositions), in registry order. Call it from a
// test or from an INSTANTIATE_TEST_SUITE_P generator (gtest evaluates those in InitGoogleTest,
// after static initialisation), never from a namespace-scope initialiser.
inline std::vector<std::string> stage_names() { return aug::stage_names(); }

inline const StageSpec& stage_spec(const std::string& name) {
  const StageType* t = find_stage_type(name);
  if (!t) throw std::invalid_argument("no registered stage \"" + name + "\"");
  return t->spec();
}

// The stage object for a declared parameter object (a case, the identity or a bench entry):
// {"stage": NAME, ...params, "p": 1}.
inline nlohmann::ordered_json stage_object(const std::string& name, const std::string& params) {
  nlohmann::ordered_json stage{{"stage", name}};
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(params);
  if (!j.is_object()) throw std::invalid_argument(name + ": " + params + " is not a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it) stage[it.key()] = it.value();
  stage["p"] = 1;
  return stage;
}

inline Pipeline declared_pipeline(const std::string& name, const std::string& params) {
  const nlohmann::ordered_json doc{{"version", 1}, {"stages", nlohmann::ordered_json::array({stage_object(name, params)})}};
  return Pipeline::parse(doc.dump(), name + ".json");
}

// Integer images must agree to the bit; float images within the stage's declared tolerance.
inline double parity_tolerance(const StageSpec& spec, DType t) { return t == DType::F32 ? spec.tolerance.f32 : 0.0; }

}  // namespace aug::testing
