#include "lib/pipeline/compositions.hpp"

#include "lib/stages/stage.hpp"

namespace aug {

const Param<std::vector<double>> kWeights{
    {.name = "weights",
     .doc = "relative weight of each stage (need not sum to 1); uniform when absent",
     .optional = true,
     .min = Bound{0}}};
const Param<IntegerParam> kCount{
    {.name = "n", .doc = "how many; [lo, hi] draws the count per image", .random = true, .min = Bound{0}}};
const Param<bool> kRandomOrder{{.name = "random_order",
                                .doc = "apply the drawn stages in the order drawn (every order alike) instead of "
                                       "the order they are listed",
                                .default_value = false}};

namespace {

ParamSpec stages_param() {
  return {.name = "stages", .type = ParamType::Stages, .doc = "the stages (and compositions) it holds"};
}

const StageSpec kSequence{
    .name = "sequence",
    .summary = "Apply its stages in order.",
    .params = {stages_param()},
    .composition = true,
    .example = {{"stage", "sequence"},
                {"stages", {{{"stage", "flip"}}, {{"stage", "gaussian_blur"}, {"sigma", 1.0}}}},
                {"p", 0.5}},
};

const StageSpec kOneOf{
    .name = "one_of",
    .summary = "Apply exactly one of its stages, drawn per image (uniformly, or by weight).",
    .params = {stages_param(),
               kWeights},
    .composition = true,
    .example = {{"stage", "one_of"},
                {"stages", {{{"stage", "flip"}}, {{"stage", "gaussian_blur"}, {"sigma", 1.0}}}},
                {"weights", {3, 1}}},
};

const StageSpec kSomeOf{
    .name = "some_of",
    .summary = "Apply n of its stages, drawn per image without repetition, in the order they are listed (or, with "
               "random_order, in the order drawn).",
    .params = {stages_param(),
               kCount, kRandomOrder},
    .composition = true,
    .example = {{"stage", "some_of"},
                {"stages", {{{"stage", "flip"}}, {{"stage", "gaussian_blur"}}, {{"stage", "channel_gain"}, {"r", 1.2}}}},
                {"n", {1, 2}}},
};

}  // namespace

const std::vector<const StageSpec*>& composition_specs() {
  static const std::vector<const StageSpec*> specs{&kSequence, &kOneOf, &kSomeOf};
  return specs;
}

const std::vector<const StageSpec*>& every_spec() {
  static const std::vector<const StageSpec*> specs = [] {
    std::vector<const StageSpec*> all;
    for (const auto& t : stage_types()) all.push_back(&t.spec());
    for (const auto* c : composition_specs()) all.push_back(c);
    return all;
  }();
  return specs;
}

const StageSpec* find_spec(const std::string& name) {
  for (const StageSpec* s : every_spec())
    if (s->name == name) return s;
  return nullptr;
}

std::vector<std::string> every_spec_name() {
  std::vector<std::string> names;
  for (const StageSpec* s : every_spec()) names.push_back(s->name);
  return names;
}

}  // namespace aug
