// The catalog suite: what every registered stage gets from its declaration (StageSpec) alone.
//   Declaration  cases, an identity or the reason for none, bench entries; all of them parse
//   Parity       each case, sample type, channel count and odd size: the CPU path against the
//                kernels run on the host ("cuda-emulated"); integer images to the bit
//   Identity     the declared identity gives every input back, bit for bit, on both backends
//   Determinism  the same seed and key give the same plan and the same bytes
//   Bounds       each declared range bound is accepted and a value just outside it is rejected,
//                with a message naming the parameter
//   Describe     `describe` (text and JSON) and the JSON Schema name every parameter
// A stage added to the registry is covered without touching this file.
//
// The suites are parameterised by stage name. INSTANTIATE_TEST_SUITE_P evaluates its generator
// when InitGoogleTest registers the tests (gtest >= 1.10), after static initialisation, so
// calling stage_types() there does not depend on the order translation units are initialised in.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "lib/core/error.hpp"
#include "lib/pipeline/describe.hpp"
#include "tests/stages/stage_cases.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_catalog {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using testing::stage_spec;

// Same shape and the same bytes (float images too: -0 and +0, or two NaNs, differ here).
::testing::AssertionResult same_bytes(const Image& a, const Image& b) {
  if (a.shape() != b.shape())
    return ::testing::AssertionFailure() << "shape " << to_string(a.shape()) << " vs " << to_string(b.shape());
  for (int y = 0; y < a.height(); ++y)
    if (std::memcmp(a.row(y), b.row(y), a.shape().row_bytes()) != 0)
      return ::testing::AssertionFailure() << "row " << y << " differs (" << testing::compare(a, b).str() << ")";
  return ::testing::AssertionSuccess();
}

// The parity inputs of a sample type and channel count, made once per process.
const std::vector<testing::Input>& inputs(DType t, int c) {
  static std::map<std::pair<DType, int>, std::vector<testing::Input>> cache;
  auto it = cache.find({t, c});
  if (it == cache.end()) it = cache.emplace(std::pair{t, c}, testing::parity_inputs(t, c)).first;
  return it->second;
}

std::string where(DType t, int c) { return std::string(dtype_name(t)) + " c" + std::to_string(c); }

class Catalog : public ::testing::TestWithParam<std::string> {
 protected:
  const StageSpec& spec() const { return stage_spec(GetParam()); }
};

std::string test_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

// ---- Declaration ----------------------------------------------------------------------------

using Declaration = Catalog;

// Parses {"stage": NAME, ...params, "p": 1}; an empty string on success, else why not.
std::string parse_error(const std::string& name, const std::string& params) {
  try {
    const json j = json::parse(params);
    if (!j.is_object()) return "not a JSON object";
    if (j.contains("stage")) return "carries \"stage\" (declared entries leave it out)";
    testing::declared_pipeline(name, params);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

TEST_P(Declaration, HasCasesAnIdentityOrWhyNotAndBenchEntriesThatAllParse) {
  const StageSpec& s = spec();
  EXPECT_FALSE(s.cases.empty()) << s.name << " declares no cases: the catalog would compare nothing";
  EXPECT_FALSE(s.bench.empty()) << s.name << " declares no bench configuration: bench/stages would not time it";
  EXPECT_NE(s.identity.empty(), s.no_identity.empty())
      << s.name << " must declare either an identity configuration or, in no_identity, why there is none"
      << " (identity: '" << s.identity << "', no_identity: '" << s.no_identity << "')";
  for (std::size_t i = 0; i < s.cases.size(); ++i) {
    const std::string e = parse_error(s.name, s.cases[i]);
    EXPECT_EQ(e, "") << s.name << " case " << i << " " << s.cases[i];
  }
  if (!s.identity.empty()) {
    EXPECT_EQ(parse_error(s.name, s.identity), "") << s.name << " identity " << s.identity;
  }
  for (std::size_t i = 0; i < s.bench.size(); ++i) {
    const std::string e = parse_error(s.name, s.bench[i]);
    EXPECT_EQ(e, "") << s.name << " bench " << i << " " << s.bench[i];
  }
  // The example users copy validates too.
  EXPECT_EQ(s.example.value("stage", ""), s.name) << s.name << " example " << s.example.dump();
  const ordered_json doc{{"version", 1}, {"stages", ordered_json::array({s.example})}};
  EXPECT_NO_THROW(Pipeline::parse(doc.dump(), "example.json")) << s.name << " example " << s.example.dump();
}

INSTANTIATE_TEST_SUITE_P(Stages, Declaration, ::testing::ValuesIn(testing::stage_names()), test_name);

// ---- Parity -----------------------------------------------------------------------------------

using Parity = Catalog;

TEST_P(Parity, CpuPathEqualsKernelsOnTheHostForEveryCase) {
  const StageSpec& s = spec();
  ASSERT_FALSE(s.cases.empty()) << s.name << " declares no cases";
  for (const std::string& params : s.cases) {
    SCOPED_TRACE(s.name + " case " + params);
    const Pipeline p = testing::declared_pipeline(s.name, params);
    int compared = 0;
    for (DType t : testing::kDtypes)
      for (int c : testing::kChannels) {
        if (!s.supports(t) || !s.supports_channels(c)) continue;
        for (const testing::Input& in : inputs(t, c)) {
          testing::Both b;
          try {
            b = testing::run_both(p, in.image);
          } catch (const InputError&) {
            continue;  // e.g. a crop larger than a 1x1 image, or jpeg's kornia mode on a gray image
          }
          const auto d = testing::compare(b.cpu, b.emulated, testing::parity_tolerance(s, t));
          EXPECT_EQ(d.count, 0u) << s.name << " " << params << " on " << in.name << " " << where(t, c)
                                 << ": cpu vs cuda-emulated: " << d.str();
          ++compared;
        }
      }
    EXPECT_GT(compared, 0) << s.name << " case " << params << " compared no input: every plan threw InputError";
  }
}

INSTANTIATE_TEST_SUITE_P(Stages, Parity, ::testing::ValuesIn(testing::stage_names()), test_name);

// ---- Identity ---------------------------------------------------------------------------------

using Identity = Catalog;

std::vector<std::string> stages_with_an_identity() {
  std::vector<std::string> names;
  for (const auto& t : stage_types())
    if (!t.spec().identity.empty()) names.push_back(t.spec().name);
  return names;
}

TEST_P(Identity, GivesEveryInputBackBitForBitOnBothBackends) {
  const StageSpec& s = spec();
  const Pipeline p = testing::declared_pipeline(s.name, s.identity);
  int checked = 0;
  for (DType t : testing::kDtypes)
    for (int c : testing::kChannels) {
      if (!s.supports(t) || !s.supports_channels(c)) continue;
      for (const auto& [w, h] : {std::pair{1, 1}, std::pair{41, 39}}) {
        SCOPED_TRACE(s.name + " identity " + s.identity + " on " + std::to_string(w) + "x" + std::to_string(h) + " " +
                     where(t, c));
        const Image im = testing::random_image({w, h, c, t}, 5);
        const testing::Both b = testing::run_both(p, im);
        ASSERT_EQ(b.plan.steps.size(), 1u);
        ASSERT_NE(b.plan.steps[0].op, nullptr) << "the stage was skipped although p is 1";
        EXPECT_TRUE(same_bytes(b.cpu, im)) << "cpu";
        EXPECT_TRUE(same_bytes(b.emulated, im)) << "cuda-emulated";
        ++checked;
      }
    }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(Stages, Identity, ::testing::ValuesIn(stages_with_an_identity()), test_name);

// ---- Determinism ------------------------------------------------------------------------------

using Determinism = Catalog;

TEST_P(Determinism, TheSameSeedAndKeyGiveTheSameBytes) {
  const StageSpec& s = spec();
  for (const std::string& params : s.cases) {
    // Two pipelines parsed separately: nothing may carry over from one image to the next either.
    const Pipeline first = testing::declared_pipeline(s.name, params);
    const Pipeline second = testing::declared_pipeline(s.name, params);
    for (DType t : testing::kDtypes)
      for (int c : testing::kChannels) {
        if (!s.supports(t) || !s.supports_channels(c)) continue;
        SCOPED_TRACE(s.name + " case " + params + " on 41x39 " + where(t, c));
        const Image im = testing::random_image({41, 39, c, t}, 17);
        testing::Both a, b, again;
        try {
          a = testing::run_both(first, im, "dir/photo.png", 2);
        } catch (const InputError&) {
          continue;  // as in Parity
        }
        b = testing::run_both(second, im, "dir/photo.png", 2);
        again = testing::run_both(first, im, "dir/photo.png", 2);
        EXPECT_EQ(a.plan.record, b.plan.record);
        EXPECT_EQ(a.plan.record, again.plan.record);
        EXPECT_TRUE(same_bytes(a.cpu, b.cpu)) << "cpu, two pipelines";
        EXPECT_TRUE(same_bytes(a.cpu, again.cpu)) << "cpu, the same pipeline twice";
        EXPECT_TRUE(same_bytes(a.emulated, b.emulated)) << "cuda-emulated, two pipelines";
        EXPECT_TRUE(same_bytes(a.emulated, again.emulated)) << "cuda-emulated, the same pipeline twice";
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Stages, Determinism, ::testing::ValuesIn(testing::stage_names()), test_name);

// ---- Bounds -----------------------------------------------------------------------------------

using Bounds = Catalog;

bool is_integer_type(ParamType t) {
  return t == ParamType::Integer || t == ParamType::IntPair || t == ParamType::IntList;
}

// A value at the bound that the range admits (the bound itself, or just inside an exclusive one;
// odd parameters: the nearest odd value inside) and one just outside (odd where the parameter is
// odd, so that the range and not the parity rejects it).
struct Probe {
  json inside, outside;
};

Probe probe(const ParamSpec& p, const Bound& bound, bool low) {
  const double inward = low ? 1 : -1;
  if (is_integer_type(p.type)) {
    const auto b = static_cast<long long>(bound.value);
    const auto in_step = static_cast<long long>(inward);
    long long inside = bound.exclusive ? b + in_step : b;
    long long outside = bound.exclusive ? b : b - in_step;
    if (p.odd && inside % 2 == 0) inside += in_step;
    if (p.odd && outside % 2 == 0) outside -= in_step;
    return {inside, outside};
  }
  const double step = 1e-6 * std::max(1.0, std::fabs(bound.value));
  const double inside = bound.exclusive ? bound.value + inward * step : bound.value;
  const double outside = bound.exclusive ? bound.value : bound.value - inward * step;
  return {inside, outside};
}

// The forms a parameter's value is written in, each with `value` in the place under test.
std::vector<json> forms(const ParamSpec& p, const json& value, const json& other) {
  switch (p.type) {
    case ParamType::Number:
    case ParamType::Integer: return {value};
    case ParamType::IntPair:
    case ParamType::NumberPair: {
      // Each element on its own (the other one valid), and one value meaning both. An ordered pair
      // ([lo, hi]) whose other element would leave it out of order gets `value` there too.
      const bool low_first = !p.ordered || value <= other;
      const bool low_second = !p.ordered || other <= value;
      return {json::array({value, low_first ? other : value}), json::array({low_second ? other : value, value}), value};
    }
    case ParamType::IntList:
    case ParamType::NumberList: return {json::array({value})};
    default: return {};
  }
}

// The stage's example without "stage", or its first case: a valid object to change one parameter
// of. The other members of the parameter's exactly_one_of group are removed. The values probed
// must also pass the checks stages make across fields in their constructors; the examples keep
// them: planckian_jitter's is in mode blackbody, whose 25 rows admit select_from's bound 24 (CIED
// has 23), and jpeg's bounds 1 and 100 are integers, which its default libjpeg mode requires
// (a value just outside is rejected by the range before that check); rand_augment's magnitude 1
// is below num_magnitude_bins' bound 2.
json base_object(const StageSpec& s, const std::string& param) {
  json base = s.example.empty() ? json::parse(s.cases.at(0)) : json::parse(s.example.dump());
  base.erase("stage");
  for (const auto* groups : {&s.exactly_one_of, &s.at_most_one_of})
    for (const auto& group : *groups)
      if (std::find(group.begin(), group.end(), param) != group.end())
        for (const auto& name : group)
          if (name != param) base.erase(name);
  return base;
}

std::string parse_stage(const StageSpec& s, const json& object) {
  json stage = object;
  stage["stage"] = s.name;
  const json doc{{"version", 1}, {"stages", json::array({stage})}};
  Pipeline::parse(doc.dump(), "bounds.json");
  return doc.dump();
}

TEST_P(Bounds, EachBoundIsAcceptedAndAValueJustOutsideIsRejectedNamingTheParameter) {
  const StageSpec& s = spec();
  std::vector<ParamSpec> params = s.params;
  params.push_back(probability_spec(s.default_p));
  const json example = base_object(s, "");
  ASSERT_NO_THROW(parse_stage(s, example)) << s.name << ": the base object " << example.dump() << " does not parse";
  int probed = 0;
  for (const ParamSpec& p : params) {
    if (p.type == aug::ParamType::Enum || p.type == aug::ParamType::Bool || p.type == aug::ParamType::Stages) continue;
    for (const bool low : {true, false}) {
      const std::optional<Bound>& bound = low ? p.min : p.max;
      if (!bound) continue;
      SCOPED_TRACE(s.name + "." + p.name + " " + (low ? "min " : "max ") + p.range_text());
      const Probe v = probe(p, *bound, low);
      const json base = base_object(s, p.name);
      for (const json& accepted : forms(p, v.inside, v.inside)) {
        json o = base;
        o[p.name] = accepted;
        try {
          parse_stage(s, o);
        } catch (const std::exception& e) {
          ADD_FAILURE() << s.name << "." << p.name << " = " << accepted.dump() << " is inside " << p.range_text()
                        << " but was rejected: " << e.what();
        }
      }
      // The other element of a pair keeps the accepted value.
      for (const json& rejected : forms(p, v.outside, v.inside)) {
        json o = base;
        o[p.name] = rejected;
        try {
          const std::string doc = parse_stage(s, o);
          ADD_FAILURE() << s.name << "." << p.name << " = " << rejected.dump() << " is outside " << p.range_text()
                        << " but was accepted: " << doc;
        } catch (const PipelineError& e) {
          const std::string msg = e.what();
          EXPECT_NE(msg.find("bounds.json:/stages/0/" + p.name + ": " + s.name + ": \"" + p.name + "\""),
                    std::string::npos)
              << "the message does not name " << p.name << ": " << msg;
          EXPECT_NE(msg.find(" is outside " + p.bounds_text()), std::string::npos)
              << "the message does not give the range: " << msg;
        } catch (const std::exception& e) {
          ADD_FAILURE() << s.name << "." << p.name << " = " << rejected.dump()
                        << " was rejected, but not with a PipelineError: " << e.what();
        }
      }
      ++probed;
    }
  }
  EXPECT_GE(probed, 2) << s.name << ": at least p's bounds";
}

INSTANTIATE_TEST_SUITE_P(Stages, Bounds, ::testing::ValuesIn(testing::stage_names()), test_name);

// ---- Describe and the schema ------------------------------------------------------------------

// Stages and compositions.
std::vector<std::string> every_name() {
  std::vector<std::string> names = testing::stage_names();
  for (const auto* c : composition_specs()) names.push_back(c->name);
  return names;
}

const StageSpec& any_spec(const std::string& name) {
  for (const auto* c : composition_specs())
    if (c->name == name) return *c;
  return stage_spec(name);
}

class Describe : public ::testing::TestWithParam<std::string> {};

TEST_P(Describe, TextJsonAndSchemaNameEveryParameter) {
  const StageSpec& s = any_spec(GetParam());
  std::vector<ParamSpec> params = s.params;
  params.push_back(probability_spec(s.default_p));

  const std::string text = describe_text(s);
  for (const auto& p : params)
    EXPECT_NE(text.find("\n  " + p.name + ": "), std::string::npos) << s.name << ": describe does not list " << p.name;

  const json j = describe_json(s);
  EXPECT_EQ(j["name"], s.name);
  std::vector<std::string> described;
  for (const auto& p : j["params"]) described.push_back(p["name"].get<std::string>());
  std::vector<std::string> declared;
  for (const auto& p : params) declared.push_back(p.name);
  EXPECT_EQ(described, declared) << s.name << ": describe --json";

  const json schema = pipeline_schema();
  ASSERT_TRUE(schema["$defs"].contains(s.name)) << s.name << " is not in the schema";
  const json& def = schema["$defs"][s.name];
  for (const auto& p : params)
    EXPECT_TRUE(def["properties"].contains(p.name)) << s.name << "." << p.name << " is not in the schema";
  EXPECT_EQ(def["properties"].size(), params.size() + 1) << s.name << ": the schema's properties (+ \"stage\")";
  EXPECT_EQ(def["additionalProperties"], false) << s.name;

  if (!s.composition) {
    EXPECT_NE(text.find("Backends:  cpu"), std::string::npos) << s.name;
    EXPECT_FALSE(std::string(s.tolerance.reason).empty()) << s.name << ": every tolerance states its reason";
    EXPECT_NE(text.find(s.tolerance.reason), std::string::npos) << s.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Stages, Describe, ::testing::ValuesIn(every_name()), test_name);

}  // namespace
}  // namespace aug::test_catalog
