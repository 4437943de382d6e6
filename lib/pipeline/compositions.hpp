// The compositions (sequence, one_of, some_of): declared like stages, built by the pipeline loader.
#pragma once

#include <string>
#include <vector>

#include "lib/params/param.hpp"
#include "lib/params/spec.hpp"

namespace aug {

const std::vector<const StageSpec*>& composition_specs();

// Everything a pipeline's "stage" may name: the stages, then the compositions (as `augment stages`
// lists them); by name (null when unknown); and their names.
const std::vector<const StageSpec*>& every_spec();
const StageSpec* find_spec(const std::string& name);
std::vector<std::string> every_spec_name();

extern const Param<std::vector<double>> kWeights;  // one_of
extern const Param<IntegerParam> kCount;           // some_of's "n"
extern const Param<bool> kRandomOrder;             // some_of's "random_order"

}  // namespace aug
