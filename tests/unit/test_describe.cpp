// Everything users read about stages comes from the specs; these hold it to them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "lib/params/describe.hpp"
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

// Every stage's parameters in `describe`, its JSON and the schema, its bounds and its declared
// cases: the catalog suite (tests/stages/test_catalog.cpp).

TEST(Stages, ListsEveryStageAndComposition) {
  const std::string text = stages_text();
  for (const auto& t : stage_types()) EXPECT_NE(text.find(t.spec().name), std::string::npos);
  for (const auto* c : composition_specs()) EXPECT_NE(text.find(c->name), std::string::npos);
}

}  // namespace
}  // namespace aug
