#include "lib/params/config.hpp"

#include <cmath>
#include <stdexcept>

#include "lib/core/error.hpp"
#include "lib/core/text.hpp"

namespace aug {

using nlohmann::json;

Location Location::child(const std::string& key) const {
  std::string escaped;
  for (char c : key) {
    if (c == '~') escaped += "~0";
    else if (c == '/') escaped += "~1";
    else escaped += c;
  }
  return Location{file, pointer + "/" + escaped};
}

Location Location::child(std::size_t index) const { return Location{file, pointer + "/" + std::to_string(index)}; }

void StageConfig::fail(const ParamSpec& param, const std::string& message) const {
  throw PipelineError(where_.child(param.name).str() + ": " + spec_->name + ": " + message);
}

template <class T>
const T& StageConfig::value(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error(spec_->name + ": parameter \"" + name + "\" is not set");
  const T* v = std::get_if<T>(&it->second);
  if (!v) throw std::logic_error(spec_->name + ": parameter \"" + name + "\" read with the wrong type");
  return *v;
}

template const NumberParam& StageConfig::value<NumberParam>(const std::string&) const;
template const IntegerParam& StageConfig::value<IntegerParam>(const std::string&) const;
template const EnumParam& StageConfig::value<EnumParam>(const std::string&) const;
template const IntPair& StageConfig::value<IntPair>(const std::string&) const;
template const NumberPair& StageConfig::value<NumberPair>(const std::string&) const;
template const std::vector<std::int64_t>& StageConfig::value<std::vector<std::int64_t>>(const std::string&) const;
template const std::vector<double>& StageConfig::value<std::vector<double>>(const std::string&) const;
template const bool& StageConfig::value<bool>(const std::string&) const;

namespace {

std::string shown(const json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

struct Checker {
  const StageSpec& stage;
  const ParamSpec& param;
  const Location& where;

  [[noreturn]] void fail(const std::string& what) const {
    throw PipelineError(where.str() + ": " + stage.name + ": \"" + param.name + "\" " + what);
  }

  [[noreturn]] void wrong_type(const json& v) const {
    std::string expected;
    switch (param.type) {
      case ParamType::Number: expected = param.random ? "a number or [lo, hi]" : "a number"; break;
      case ParamType::Integer: expected = param.random ? "an integer or [lo, hi]" : "an integer"; break;
      case ParamType::Enum: expected = param.random ? "a string or a list of strings" : "a string"; break;
      case ParamType::IntPair: expected = param.elements.empty() ? "[a, b] of integers" : param.elements + " of integers"; break;
      case ParamType::NumberPair: expected = param.elements.empty() ? "[a, b] of numbers" : param.elements + " of numbers"; break;
      case ParamType::IntList: expected = "an integer or a list of integers"; break;
      case ParamType::NumberList: expected = "a list of numbers"; break;
      case ParamType::Bool: expected = "true or false"; break;
      case ParamType::Stages: expected = "a list of stage objects"; break;
    }
    fail("must be " + expected + " (got " + shown(v) + ")");
  }

  void check_range(double x, const json& shown_value) const {
    const bool low = param.min && (param.min->exclusive ? !(x > param.min->value) : !(x >= param.min->value));
    const bool high = param.max && (param.max->exclusive ? !(x < param.max->value) : !(x <= param.max->value));
    if (low || high) fail("= " + shown(shown_value) + " is outside " + param.bounds_text());
  }

  double number(const json& v) const {
    if (!v.is_number()) wrong_type(v);
    const double x = v.get<double>();
    check_range(x, v);
    return x;
  }

  std::int64_t integer(const json& v) const {
    if (!v.is_number_integer()) wrong_type(v);
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) wrong_type(v);
    const std::int64_t x = v.get<std::int64_t>();
    check_range(static_cast<double>(x), v);
    if (param.odd && x % 2 == 0) fail("= " + shown(v) + " must be odd (" + param.range_text() + ")");
    return x;
  }

  const std::string& choice(const json& v) const {
    if (!v.is_string()) wrong_type(v);
    const auto& s = v.get_ref<const std::string&>();
    for (const auto& c : param.choices)
      if (c == s) return c;
    std::string hint;
    const auto near = closest(s, param.choices, 1);
    if (!near.empty()) hint = " (did you mean \"" + near[0] + "\"?)";
    fail("= " + shown(v) + " is not " + param.range_text() + hint);
  }

  void ordered(double a, double b, const json& v) const {
    if (param.ordered && a > b) fail("= " + shown(v) + ": the first value must not exceed the second");
  }
};

}  // namespace

ParamValue parse_value(const StageSpec& stage, const ParamSpec& param, const json& v, const Location& where) {
  const Checker c{stage, param, where};
  switch (param.type) {
    case ParamType::Number: {
      if (v.is_array() && param.random) {
        if (v.size() != 2) c.wrong_type(v);
        const double lo = c.number(v[0]), hi = c.number(v[1]);
        if (lo > hi) c.fail("= " + shown(v) + ": the range's low end exceeds its high end");
        return NumberParam{lo, hi, lo < hi, true};
      }
      const double x = c.number(v);
      return NumberParam{x, x, false};
    }
    case ParamType::Integer: {
      if (v.is_array() && param.random) {
        if (v.size() != 2) c.wrong_type(v);
        const std::int64_t lo = c.integer(v[0]), hi = c.integer(v[1]);
        if (lo > hi) c.fail("= " + shown(v) + ": the range's low end exceeds its high end");
        return IntegerParam{lo, hi, lo < hi};
      }
      const std::int64_t x = c.integer(v);
      return IntegerParam{x, x, false};
    }
    case ParamType::Enum: {
      EnumParam e;
      if (v.is_array() && param.random) {
        if (v.empty()) c.fail("must not be an empty list");
        for (const auto& item : v) e.options.push_back(c.choice(item));
      } else {
        e.options.push_back(c.choice(v));
      }
      return e;
    }
    case ParamType::IntPair: {
      if (v.is_number_integer()) {
        const std::int64_t x = c.integer(v);
        return IntPair{x, x};
      }
      if (!v.is_array() || v.size() != 2) c.wrong_type(v);
      const IntPair p{c.integer(v[0]), c.integer(v[1])};
      c.ordered(static_cast<double>(p[0]), static_cast<double>(p[1]), v);
      return p;
    }
    case ParamType::NumberPair: {
      if (v.is_number()) {
        const double x = c.number(v);
        return NumberPair{x, x};
      }
      if (!v.is_array() || v.size() != 2) c.wrong_type(v);
      const NumberPair p{c.number(v[0]), c.number(v[1])};
      c.ordered(p[0], p[1], v);
      return p;
    }
    case ParamType::IntList: {
      std::vector<std::int64_t> out;
      if (v.is_number_integer()) {
        out.push_back(c.integer(v));
      } else {
        if (!v.is_array() || v.empty()) c.wrong_type(v);
        for (const auto& item : v) out.push_back(c.integer(item));
      }
      return out;
    }
    case ParamType::NumberList: {
      std::vector<double> out;
      if (v.is_number()) {
        out.push_back(c.number(v));
      } else {
        if (!v.is_array() || v.empty()) c.wrong_type(v);
        for (const auto& item : v) out.push_back(c.number(item));
      }
      return out;
    }
    case ParamType::Bool:
      if (!v.is_boolean()) c.wrong_type(v);
      return v.get<bool>();
    case ParamType::Stages: break;
  }
  throw std::logic_error("parse_value: stage lists are parsed by the pipeline loader");
}

StageConfig parse_params(const StageSpec& spec, const json& object, const Location& where,
                         const std::vector<std::string>& handled_keys) {
  StageConfig config(spec, where);
  std::vector<std::string> known = handled_keys;
  for (const auto& p : spec.params) known.push_back(p.name);

  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    bool is_known = false;
    for (const auto& k : known) is_known = is_known || k == key;
    if (is_known) continue;
    std::string hint;
    const auto near = closest(key, known, 1);
    if (!near.empty()) hint = " (did you mean \"" + near[0] + "\"?)";
    throw PipelineError(where.child(key).str() + ": " + spec.name + " has no parameter \"" + key + "\"" + hint +
                        "; its parameters are: " + join(known, ", "));
  }

  for (const auto& p : spec.params) {
    if (p.type == ParamType::Stages) continue;
    const auto it = object.find(p.name);
    if (it != object.end()) {
      config.set(p.name, parse_value(spec, p, *it, where.child(p.name)));
    } else if (!p.default_value.is_null()) {
      config.set(p.name, parse_value(spec, p, p.default_value, where.child(p.name)));
    }
  }

  for (const auto& group : spec.exactly_one_of) {
    std::vector<std::string> present;
    for (const auto& name : group)
      if (object.contains(name)) present.push_back("\"" + name + "\"");
    if (present.size() != 1) {
      std::vector<std::string> names;
      for (const auto& name : group) names.push_back("\"" + name + "\"");
      throw PipelineError(where.str() + ": " + spec.name + " takes exactly one of " + join(names, ", ") +
                          (present.empty() ? " (none given)" : " (given: " + join(present, ", ") + ")"));
    }
  }

  for (const auto& group : spec.at_most_one_of) {
    std::vector<std::string> present;
    for (const auto& name : group)
      if (object.contains(name)) present.push_back("\"" + name + "\"");
    if (present.size() > 1)
      throw PipelineError(where.child(group.back()).str() + ": " + spec.name + " takes at most one of " +
                          join(present, ", "));
  }

  for (const auto& p : spec.params) {
    if (p.required() && p.type != ParamType::Stages && !object.contains(p.name)) {
      bool grouped = false;
      for (const auto& group : spec.exactly_one_of)
        for (const auto& name : group) grouped = grouped || name == p.name;
      if (!grouped)
        throw PipelineError(where.str() + ": " + spec.name + ": missing \"" + p.name + "\" (" + p.range_text() + ")");
    }
  }
  return config;
}

}  // namespace aug
