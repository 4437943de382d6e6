// The compositions (sequence, one_of, some_of): declared like stages, built by the pipeline loader.
#pragma once

#include <vector>

#include "lib/params/param.hpp"
#include "lib/params/spec.hpp"

namespace aug {

const std::vector<const StageSpec*>& composition_specs();

extern const Param<std::vector<double>> kWeights;  // one_of
extern const Param<IntegerParam> kCount;           // some_of's "n"

}  // namespace aug
