// A stage's parameters as validated from the pipeline file: still possibly random (a range or a
// list to draw from). `sample` turns them into concrete values with a stage's keyed draws.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/rng.hpp"
#include "lib/params/spec.hpp"

namespace aug {

struct NumberParam {
  double lo = 0, hi = 0;
  bool is_range = false;
  double sample(Draws& d) const { return is_range ? d.uniform(lo, hi) : lo; }
};

struct IntegerParam {
  std::int64_t lo = 0, hi = 0;
  bool is_range = false;
  std::int64_t sample(Draws& d) const { return is_range ? d.integer(lo, hi) : lo; }
};

struct EnumParam {
  std::vector<std::string> options;
  const std::string& sample(Draws& d) const {
    return options.size() == 1 ? options[0] : options[static_cast<std::size_t>(d.integer(0, options.size() - 1))];
  }
};

using IntPair = std::array<std::int64_t, 2>;
using NumberPair = std::array<double, 2>;
using ParamValue = std::variant<NumberParam, IntegerParam, EnumParam, IntPair, NumberPair, std::vector<std::int64_t>,
                                std::vector<double>, bool>;

// Where something sits in a pipeline file, for messages: "pipeline.json:/stages/2".
struct Location {
  std::string file;
  std::string pointer;
  Location child(const std::string& key) const;
  Location child(std::size_t index) const;
  std::string str() const { return file + ":" + (pointer.empty() ? "/" : pointer); }
};

class StageConfig {
 public:
  StageConfig(const StageSpec& spec, Location where) : spec_(&spec), where_(std::move(where)) {}

  const StageSpec& spec() const { return *spec_; }
  const Location& where() const { return where_; }
  bool has(const std::string& name) const { return values_.count(name) != 0; }

  const NumberParam& number(const std::string& name) const { return get<NumberParam>(name); }
  const IntegerParam& integer(const std::string& name) const { return get<IntegerParam>(name); }
  const EnumParam& enumeration(const std::string& name) const { return get<EnumParam>(name); }
  IntPair int_pair(const std::string& name) const { return get<IntPair>(name); }
  NumberPair number_pair(const std::string& name) const { return get<NumberPair>(name); }
  const std::vector<std::int64_t>& int_list(const std::string& name) const {
    return get<std::vector<std::int64_t>>(name);
  }
  const std::vector<double>& number_list(const std::string& name) const { return get<std::vector<double>>(name); }
  bool flag(const std::string& name) const { return get<bool>(name); }

  // A PipelineError at this stage's parameter: "file:/stages/2/sigma: gaussian_blur: <message>".
  [[noreturn]] void fail(const std::string& param, const std::string& message) const;

  void set(const std::string& name, ParamValue v) { values_[name] = std::move(v); }

 private:
  template <class T>
  const T& get(const std::string& name) const;

  const StageSpec* spec_;
  Location where_;
  std::map<std::string, ParamValue> values_;
};

// Validates the parameter keys of one stage object against its spec and parses them (defaults
// filled in). Keys "stage" and "p" and the composition keys are not handled here.
StageConfig parse_params(const StageSpec& spec, const nlohmann::json& object, const Location& where,
                         const std::vector<std::string>& handled_keys);

// Parses one parameter value; throws PipelineError naming where, the stage, the parameter and its range.
ParamValue parse_value(const StageSpec& stage, const ParamSpec& param, const nlohmann::json& value,
                       const Location& where);

}  // namespace aug
