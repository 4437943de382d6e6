// Everything users read about stages comes from the specs; these hold it to them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "lib/pipeline/describe.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/stages/stage.hpp"
#include "tests/support/testing.hpp"

namespace aug {
namespace {

TEST(Schema, CommittedCopyIsCurrent) {
  std::ifstream f(testing::source_dir() / "configs" / "pipeline.schema.json");
  ASSERT_TRUE(f) << "configs/pipeline.schema.json is missing";
  std::stringstream committed;
  committed << f.rdbuf();
  EXPECT_EQ(committed.str(), pipeline_schema().dump(2) + "\n")
      << "configs/pipeline.schema.json is stale: run `augment schema > configs/pipeline.schema.json`";
}

TEST(Schema, HasEveryStageAndItsParameters) {
  const auto schema = pipeline_schema();
  for (const auto& t : stage_types()) {
    const auto& spec = t.spec();
    ASSERT_TRUE(schema["$defs"].contains(spec.name)) << spec.name;
    const auto& props = schema["$defs"][spec.name]["properties"];
    for (const auto& p : spec.params) EXPECT_TRUE(props.contains(p.name)) << spec.name << "." << p.name;
    EXPECT_TRUE(props.contains("p")) << spec.name;
    EXPECT_EQ(schema["$defs"][spec.name]["additionalProperties"], false);
  }
}

// Generic checks every registered stage gets from its declaration.
class EveryStage : public ::testing::TestWithParam<std::size_t> {
 protected:
  const StageSpec& spec() const { return stage_types()[GetParam()].spec(); }
};

TEST_P(EveryStage, ExampleAndDefaultsValidate) {
  const nlohmann::json doc{{"version", 1}, {"stages", {nlohmann::json::parse(spec().example.dump())}}};
  EXPECT_NO_THROW(Pipeline::parse(doc.dump(), "example.json")) << spec().name;
}

TEST_P(EveryStage, EachOutOfRangeValueIsRejectedNamingTheParameter) {
  for (const auto& p : spec().params) {
    if (p.type != aug::ParamType::Number && p.type != aug::ParamType::Integer) continue;
    for (const bool low : {true, false}) {
      const auto& bound = low ? p.min : p.max;
      if (!bound) continue;
      double bad = low ? bound->value - 1 : bound->value + 1;
      if (p.type == aug::ParamType::Integer && p.odd) bad = low ? bound->value - 2 : bound->value + 2;
      nlohmann::json stage = nlohmann::json::parse(spec().example.dump());
      for (const auto& group : spec().exactly_one_of)
        for (const auto& name : group) stage.erase(name);
      stage[p.name] = p.type == aug::ParamType::Integer ? nlohmann::json(static_cast<long long>(bad)) : nlohmann::json(bad);
      const nlohmann::json doc{{"version", 1}, {"stages", {stage}}};
      try {
        Pipeline::parse(doc.dump(), "x.json");
        ADD_FAILURE() << spec().name << "." << p.name << " = " << bad << " was accepted";
      } catch (const std::exception& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("x.json:/stages/0/" + p.name + ": " + spec().name + ": \"" + p.name + "\""),
                  std::string::npos)
            << msg;
        EXPECT_NE(msg.find(p.range_text()), std::string::npos) << msg;
      }
    }
  }
}

TEST_P(EveryStage, DescribeShowsEveryParameterBackendAndTolerance) {
  const std::string text = describe_text(spec());
  for (const auto& p : spec().params) EXPECT_NE(text.find("  " + p.name + ": "), std::string::npos) << p.name;
  EXPECT_NE(text.find("Backends:  cpu"), std::string::npos);
  EXPECT_NE(text.find(spec().tolerance.reason), std::string::npos);
  const auto j = describe_json(spec());
  EXPECT_EQ(j["name"], spec().name);
  EXPECT_EQ(j["params"].size(), spec().params.size() + 1);  // + p
  EXPECT_FALSE(std::string(spec().tolerance.reason).empty()) << "every tolerance states its reason";
}

INSTANTIATE_TEST_SUITE_P(Specs, EveryStage, ::testing::Range<std::size_t>(0, stage_types().size()),
                         [](const auto& info) { return stage_types()[info.param].spec().name; });

TEST(Stages, ListsEveryStageAndComposition) {
  const std::string text = stages_text();
  for (const auto& t : stage_types()) EXPECT_NE(text.find(t.spec().name), std::string::npos);
  for (const auto* c : composition_specs()) EXPECT_NE(text.find(c->name), std::string::npos);
}

}  // namespace
}  // namespace aug
