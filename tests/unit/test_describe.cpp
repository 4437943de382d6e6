// Everything users read about stages comes from the specs; these hold it to them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "lib/pipeline/albumentations.hpp"
#include "lib/pipeline/describe.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/stages/stage.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_describe {
namespace {

// Every stage's parameters in `describe`, its JSON and the schema, its bounds and its declared
// cases: the catalog suite (tests/stages/test_catalog.cpp).

TEST(Stages, ListsEveryStageAndComposition) {
  const std::string text = stages_text();
  for (const auto& t : stage_types()) EXPECT_NE(text.find(t.spec().name), std::string::npos);
  for (const auto* c : composition_specs()) EXPECT_NE(text.find(c->name), std::string::npos);
}

// What a stage means outside augment is declared with it (lib/params/spec.hpp): the generated docs,
// the importer and the stage benchmark read it. Each is declared or, where there is none, said why.

TEST(StageKit, EveryStageSaysWhatItImports) {
  std::set<std::string> names;
  for (const auto& t : stage_types()) {
    const StageSpec& s = t.spec();
    EXPECT_NE(s.imports.empty(), s.no_import.empty())
        << s.name << ": declare the transforms it imports (imports) or why there are none (no_import), not both";
    for (const ImportRule& r : s.imports) {
      EXPECT_FALSE(r.how.empty()) << s.name << ": import rule " << r.name << " says nothing of how it maps";
      ASSERT_NE(r.convert, nullptr) << s.name << ": import rule " << r.name;
      std::vector<std::string> all = r.aliases;
      all.push_back(r.name);
      for (const std::string& n : all) {
        EXPECT_TRUE(names.insert(n).second) << n << " is imported by two stages";
        // Each name reaches this stage's rule, and its defaults (with the sizes crops require, and the
        // px CropAndPad requires) make a valid pipeline.
        const nlohmann::json saved{
            {"__version__", "1.4.0"},
            {"transform",
             {{"__class_fullname__", "Compose"},
              {"transforms", {{{"__class_fullname__", "albumentations.augmentations." + n}, {"p", 1.0},
                               {"height", 32}, {"width", 32}, {"min_max_height", {16, 32}}, {"px", 4}}}}}}};
        const Imported imp = import_albumentations(saved, n);
        ASSERT_EQ(imp.pipeline["stages"].size(), 1u) << n;
        EXPECT_EQ(imp.pipeline["stages"][0]["stage"], s.name) << n;
        EXPECT_NO_THROW(Pipeline::parse(imp.pipeline.dump(), n)) << n << ": " << imp.pipeline.dump();
      }
    }
  }
}

TEST(StageKit, EveryStageSaysItsBenchmarkCounterpart) {
  for (const auto& t : stage_types()) {
    const StageSpec& s = t.spec();
    const Counterpart& c = s.counterpart;
    EXPECT_NE(c.call.empty(), c.none.empty())
        << s.name << ": declare its OpenCV counterpart (counterpart.call) or why there is none (counterpart.none)";
    if (!c.call.empty()) {
      EXPECT_TRUE(c.lut != (c.make != nullptr)) << s.name << ": a counterpart is a table (lut) or a call (make)";
      EXPECT_FALSE(c.how.empty()) << s.name;
    }
  }
}

TEST(StageKit, EveryStageLivesInItsFamilyWithItsArithmeticAndItsTests) {
  namespace fs = std::filesystem;
  const fs::path src = testing::source_dir();
  for (const auto& t : stage_types()) {
    const StageSpec& s = t.spec();
    EXPECT_TRUE(fs::exists(src / "lib/stages" / s.family / (s.name + ".cpp")))
        << s.name << ": family \"" << s.family << "\" but no lib/stages/" << s.family << "/" << s.name << ".cpp";
    for (const auto& dir : fs::directory_iterator(src / "kernels")) {
      if (fs::exists(dir.path() / (s.name + ".hpp"))) {
        EXPECT_EQ(dir.path().filename(), s.family) << s.name << ": its kernels are in " << dir.path();
      }
    }
    EXPECT_FALSE(s.arithmetic.empty()) << s.name << ": no arithmetic section (docs/stages/" << s.family << ".md)";
    EXPECT_TRUE(fs::exists(src / "tests/stages" / ("test_" + s.name + ".cpp")))
        << s.name << ": no tests/stages/test_" << s.name << ".cpp for its formulas and references";
  }
}

}  // namespace
}  // namespace aug::test_describe
