#include "lib/params/spec.hpp"

#include <algorithm>

#include "lib/core/text.hpp"

namespace aug {

const char* type_name(ParamType t) {
  switch (t) {
    case ParamType::Number: return "number";
    case ParamType::Integer: return "integer";
    case ParamType::Enum: return "string";
    case ParamType::IntPair: return "integer pair";
    case ParamType::NumberPair: return "number pair";
    case ParamType::IntList: return "integer list";
    case ParamType::NumberList: return "number list";
    case ParamType::Bool: return "boolean";
    case ParamType::Stages: return "stage list";
  }
  return "?";
}

namespace {
std::string bound_text(const std::optional<Bound>& lo, const std::optional<Bound>& hi) {
  if (lo && hi)
    return std::string(lo->exclusive ? "(" : "[") + format_number(lo->value) + ", " + format_number(hi->value) +
           (hi->exclusive ? ")" : "]");
  if (lo) return std::string(lo->exclusive ? "> " : ">= ") + format_number(lo->value);
  if (hi) return std::string(hi->exclusive ? "< " : "<= ") + format_number(hi->value);
  return "";
}
}  // namespace

std::string ParamSpec::range_text() const {
  if (type == ParamType::Enum) return "one of " + quoted_list(choices);
  if (type == ParamType::Bool) return "true or false";
  if (type == ParamType::Stages) return "a list of stage objects";
  std::string b = bound_text(min, max);
  if (odd) b = b.empty() ? "odd" : "odd, " + b;
  switch (type) {
    case ParamType::IntPair:
    case ParamType::NumberPair: {
      std::string t = b.empty() ? "" : "each in " + b;
      if (ordered) t += std::string(t.empty() ? "" : ", ") + "first <= second";
      return t;
    }
    case ParamType::IntList:
    case ParamType::NumberList: return b.empty() ? "a list" : "a list, each " + b;
    default: return b;
  }
}

std::string ParamSpec::bounds_text() const { return bound_text(min, max); }

const ParamSpec* StageSpec::find(const std::string& param) const {
  for (const auto& p : params)
    if (p.name == param) return &p;
  return nullptr;
}

bool StageSpec::supports(DType t) const { return std::find(dtypes.begin(), dtypes.end(), t) != dtypes.end(); }

bool StageSpec::supports_channels(int c) const {
  return std::find(channels.begin(), channels.end(), c) != channels.end();
}

ParamSpec probability_spec(double default_p) {
  return ParamSpec{.name = "p",
                   .type = ParamType::Number,
                   .doc = "probability that the stage is applied to an image",
                   .default_value = default_p,
                   .min = Bound{0},
                   .max = Bound{1}};
}

}  // namespace aug
