// The one declaration of a stage: its parameters (type, default, range, whether they may be
// random, doc), the dtypes and channel counts it takes, its backends and its parity tolerance, and
// what it means to the world outside: the transforms of other libraries it imports (ImportRule),
// the OpenCV call the stage benchmark sets it against (Counterpart) and its documentation section.
// Validation, `describe`, the JSON Schema, the importer, the generated docs (README table,
// docs/stages/, docs/albumentations.md), the benchmark and the generic tests all read this.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/image.hpp"
#include "lib/params/import.hpp"

namespace cv {
class Mat;
}

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
  std::string range_text() const;   // e.g. "(0, 100]", "one of: bilinear, nearest", "a list, each [0, 1]"
  std::string bounds_text() const;  // the bounds of one value: "(0, 100]", ">= 0"; empty without
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

// The OpenCV call that does a stage's job, for the stage benchmark (bench/stages.cpp), which times
// the two in turn on 8-bit images with the parameters the stage resolved for the image.
struct Counterpart {
  std::string call;  // "cv::GaussianBlur", for the docs and the benchmark's table
  std::string how;   // how the resolved parameters map onto it
  // From the Op's resolved parameters (its params(), what the manifest records), the call that
  // writes `dst` from `src`; an empty function when these parameters have no counterpart (a mode
  // OpenCV does not have). `src` and `dst` outlive the call.
  std::function<void()> (*make)(const nlohmann::json& resolved, const cv::Mat& src, cv::Mat& dst) = nullptr;
  // A per-value stage: the call is cv::LUT with the table the Op gives the 256 8-bit values (the
  // benchmark reads it off the Op and checks that cv::LUT gives the stage's output). `make` is unused.
  bool lut = false;
  // No counterpart: why (`call` empty).
  std::string none;
};

struct StageSpec {
  std::string name;
  std::string family;                        // its folder: lib/stages/<family>/<name>.cpp
  std::string summary;                       // one line
  std::vector<std::string> notes;            // further paragraphs for `describe`
  std::vector<ParamSpec> params;             // `p` is added for every stage by the loader
  std::vector<std::vector<std::string>> exactly_one_of;
  // Groups of parameters of which at most one may be given (e.g. a shift in fractions or in pixels).
  std::vector<std::vector<std::string>> at_most_one_of;
  std::vector<DType> dtypes{DType::U8, DType::U16, DType::F32};
  std::vector<int> channels{1, 3, 4};
  bool cuda = true;                          // has a CUDA kernel (every stage has a CPU path)
  bool composition = false;
  // Its draw reads the image's labels or label map (Stage::resolve_seeing): the planner moves them
  // through the steps before it, and decoding reads the whole image at full size.
  bool reads_labels = false;
  // Its draw reads other images (mosaic, mixup, cutmix, copy_paste: DrawInputs::partners), which it draws from
  // the run's whole input list; decoding reads the whole image at full size, as for reads_labels.
  bool reads_partners = false;
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

  // The stage's section of docs/stages/<family>.md (Markdown): what both backends compute, bit for
  // bit, and which library's behaviour it reproduces; `augment-docs` puts it under the generated
  // summary, parameters, tolerance, imports and counterpart.
  std::string arithmetic;

  // What it means outside augment; each either declared or, where there is none, said why.
  // `imports`: the transforms of other libraries that `augment import` turns into this stage.
  std::vector<ImportRule> imports;
  std::string no_import;
  // `counterpart`: the OpenCV call for the stage benchmark, or why there is none. Keep it the last
  // member: GCC 12 warns of a member "maybe used uninitialized" when an aggregate member given by a
  // designated initializer is followed by another one.
  Counterpart counterpart;

  const ParamSpec* find(const std::string& param) const;
  bool supports(DType t) const;
  bool supports_channels(int c) const;
};

// The implicit probability every stage and composition takes, with the stage's default.
ParamSpec probability_spec(double default_p = 1.0);

}  // namespace aug
