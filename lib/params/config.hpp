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
#include "lib/params/param.hpp"
#include "lib/params/spec.hpp"

namespace aug {

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
  bool has(const ParamSpec& p) const { return values_.count(p.name) != 0; }

  // A parameter's value, read through its declaration.
  template <class V>
  const V& get(const Param<V>& p) const {
    return value<V>(p.name);
  }
  template <class E>
  Drawn<E> get(const Choice<E>& p) const {
    Drawn<E> d;
    for (const std::string& w : value<EnumParam>(p.name).options) d.options.push_back(p.words->parse(w));
    return d;
  }

  // A PipelineError at this stage's parameter: "file:/stages/2/sigma: gaussian_blur: <message>".
  [[noreturn]] void fail(const ParamSpec& param, const std::string& message) const;

  void set(const std::string& name, ParamValue v) { values_[name] = std::move(v); }

 private:
  template <class T>
  const T& value(const std::string& name) const;

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
