// The one declaration of a stage: its parameters (type, default, range, whether they may be
// random, doc), the dtypes and channel counts it takes, its backends and its parity tolerance.
// Validation, `describe`, the JSON Schema, the README's stage table and the generic tests all
// read this and nothing else.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/image.hpp"

namespace aug {

enum class ParamType {
  Number,      // a number; with `random`, also [lo, hi] (uniform per image)
  Integer,     // an integer; with `random`, also [lo, hi] (uniform, inclusive)
  Enum,        // a string from `choices`; with `random`, also a list to draw from
  IntPair,     // [a, b] of integers, or one integer meaning [n, n]
  NumberPair,  // [a, b] of numbers, or one number meaning [v, v]
  IntList,     // a list of integers, or one integer
  NumberList,  // a list of numbers, or one number
  Bool,
  Stages,      // compositions only: a list of stage objects
};

const char* type_name(ParamType t);

struct Bound {
  double value = 0;
  bool exclusive = false;
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Number;
  std::string doc;
  nlohmann::json default_value = nullptr;  // null: no default
  bool optional = false;                   // may be absent even without a default
  bool random = false;
  std::optional<Bound> min;  // applies to numbers, integers and every element of pairs/lists
  std::optional<Bound> max;
  std::vector<std::string> choices;  // Enum
  bool odd = false;                  // integers that must be odd (kernel sizes)
  bool ordered = false;              // pairs that must satisfy a <= b (ranges)
  std::string elements;              // what a pair's elements mean, e.g. "[width, height]"

  bool required() const { return default_value.is_null() && !optional; }
  std::string range_text() const;  // e.g. "(0, 100]", "one of: bilinear, nearest"
};

// Largest absolute difference allowed between backends, per dtype (in sample units; float on
// the [0,1] scale), with the reason it is not zero (or why zero holds).
struct Tolerance {
  double u8 = 0;
  double u16 = 0;
  double f32 = 0;
  const char* reason = "";

  double for_dtype(DType t) const { return t == DType::U8 ? u8 : (t == DType::U16 ? u16 : f32); }
};

struct StageSpec {
  std::string name;
  std::string summary;                       // one line
  std::vector<std::string> notes;            // further paragraphs for `describe`
  std::vector<ParamSpec> params;             // `p` is added for every stage by the loader
  std::vector<std::vector<std::string>> exactly_one_of;
  std::vector<DType> dtypes{DType::U8, DType::U16, DType::F32};
  std::vector<int> channels{1, 3, 4};
  bool cuda = true;                          // has a CUDA kernel (every stage has a CPU path)
  bool composition = false;
  double default_p = 1.0;                    // the probability when the pipeline gives no "p"
  Tolerance tolerance;
  nlohmann::ordered_json example;            // a stage object users can copy ("stage" first)

  // What the generated tests and benchmarks run, as JSON parameter objects without "stage" ("p" is
  // set to 1). `cases`: the configurations the catalog suite compares across backends on every
  // dtype, channel count and odd size (at least one). `identity`: a configuration that leaves
  // every image unchanged, bit for bit; empty when there is none, with the reason in `no_identity`.
  // `bench`: the configurations bench/stages times on a 1080p photograph.
  std::vector<std::string> cases;
  std::string identity;
  std::string no_identity;
  std::vector<std::string> bench;

  const ParamSpec* find(const std::string& param) const;
  bool supports(DType t) const;
  bool supports_channels(int c) const;
};

// The implicit probability every stage and composition takes, with the stage's default.
ParamSpec probability_spec(double default_p = 1.0);

}  // namespace aug
