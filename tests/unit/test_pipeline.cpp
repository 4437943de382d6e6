// Loading validates everything before any image is touched, and every message says where.
#include <gtest/gtest.h>

#include <map>

#include "lib/core/error.hpp"
#include "lib/pipeline/pipeline.hpp"

namespace aug::test_pipeline {
namespace {

// The first error of `text` as p.json (or, with `yaml`, as p.yaml), "(no error)" when it loads.
std::string error_of(const std::string& text, bool yaml = false) {
  try {
    if (yaml) Pipeline::parse_yaml(text, "p.yaml");
    else Pipeline::parse(text, "p.json");
  } catch (const PipelineError& e) {
    return e.what();
  }
  return "(no error)";
}

// README's pipeline example.
const char* const kIssueExample = R"({"version": 1, "seed": 7, "stages": [
     {"stage": "resize", "short_side": 256, "interpolation": "bilinear"},
     {"stage": "gaussian_blur", "sigma": [0.1, 2.0], "p": 0.5},
     {"stage": "one_of", "stages": [
        {"stage": "flip", "direction": "horizontal"},
        {"stage": "random_resized_crop", "size": [224, 224], "scale": [0.08, 1.0]}]}]})";

std::string stages(const std::string& list) { return R"({"version": 1, "stages": [)" + list + "]}"; }

TEST(PipelineLoad, AcceptsTheIssueExample) {
  const Pipeline p = Pipeline::parse(kIssueExample,
                                     "p.json");
  EXPECT_EQ(p.seed(), 7u);
  EXPECT_EQ(p.stage_count(), 4u);
  ASSERT_EQ(p.root().children.size(), 3u);
  EXPECT_EQ(p.root().children[1].p, 0.5);
  EXPECT_EQ(p.root().children[2].kind, Node::Kind::OneOf);
  EXPECT_EQ(p.root().children[2].children[1].pointer, "/stages/2/stages/1");
}

TEST(PipelineLoad, MalformedJsonNamesFileLineAndColumn) {
  EXPECT_EQ(error_of("{\"version\": 1,\n  \"stages\": [\n    {\"stage\": \"flip\",}\n  ]}").substr(0, 20),
            "p.json:3:22: invalid");
  EXPECT_NE(error_of("{\"version\": 1,\n  \"stages\": [\n    {\"stage\": \"flip\",}\n  ]}").find("invalid JSON"),
            std::string::npos);
  EXPECT_EQ(error_of("").substr(0, 10), "p.json:1:1");
}

// Found by tests/fuzz/fuzz_pipeline: nlohmann::json reports a number out of a double's range as
// out_of_range, not parse_error, and it escaped as an internal error.
TEST(PipelineLoad, NumberOutOfRangeIsInvalidJson) {
  EXPECT_EQ(error_of("[4e888"), "p.json: invalid JSON: number overflow parsing '4e888'");
  EXPECT_EQ(error_of(stages(R"({"stage": "gaussian_blur", "sigma": 1e999})")),
            "p.json: invalid JSON: number overflow parsing '1e999'");
}

TEST(PipelineLoad, CommentsAreAllowed) {
  EXPECT_NO_THROW(Pipeline::parse("// a pipeline\n{\"version\": 1, \"stages\": [] /* none */}", "p.json"));
}

TEST(PipelineLoad, UnknownStageSuggestsClosestNames) {
  EXPECT_EQ(error_of(stages(R"({"stage": "gausian_blur"})")),
            "p.json:/stages/0/stage: unknown stage \"gausian_blur\" (did you mean \"gaussian_blur\" or "
            "\"median_blur\"?); `augment stages` lists them all");
  EXPECT_NE(error_of(stages(R"({"stage": "resise"})")).find("did you mean \"resize\""), std::string::npos);
}

TEST(PipelineLoad, UnknownKeyNamesPointerStageAndNearestParameter) {
  const std::string e = error_of(stages(R"({"stage": "flip"}, {"stage": "gaussian_blur", "sigm": 1})"));
  EXPECT_EQ(e.substr(0, e.find(';')),
            "p.json:/stages/1/sigm: gaussian_blur has no parameter \"sigm\" (did you mean \"sigma\"?)");
  EXPECT_NE(e.find("its parameters are: stage, p, sigma, kernel_size, border"), std::string::npos);
}

TEST(PipelineLoad, OutOfRangeNamesPointerStageParameterAndRange) {
  EXPECT_EQ(error_of(stages(R"({"stage": "flip"}, {"stage": "flip"}, {"stage": "gaussian_blur", "sigma": -1})")),
            "p.json:/stages/2/sigma: gaussian_blur: \"sigma\" = -1 is outside (0, 50]");
  EXPECT_EQ(error_of(stages(R"({"stage": "gaussian_blur", "sigma": [0.5, 80]})")),
            "p.json:/stages/0/sigma: gaussian_blur: \"sigma\" = 80 is outside (0, 50]");
  EXPECT_EQ(error_of(stages(R"({"stage": "flip", "p": 1.5})")), "p.json:/stages/0/p: flip: \"p\" = 1.5 is outside [0, 1]");
  EXPECT_EQ(error_of(stages(R"({"stage": "crop", "size": [0, 10]})")),
            "p.json:/stages/0/size: crop: \"size\" = 0 is outside [1, 65535]");
}

// A torchvision transform's name used as a stage says which stage to write (Albumentations' names
// get the translated stage itself: tests/cli/test_first_use.cpp).
TEST(PipelineLoad, TorchvisionNamesSayWhichStage) {
  EXPECT_EQ(error_of(stages(R"({"stage": "RandomHorizontalFlip"})")),
            "p.json:/stages/0/stage: unknown stage \"RandomHorizontalFlip\": that is torchvision's name; the stage is "
            "\"flip\" (`augment describe flip` has its parameters; `augment import torchvision train.py` translates "
            "whole pipelines)");
  EXPECT_NE(error_of(stages(R"({"stage": "RandomIoUCrop"})")).find("the stage is \"iou_crop\""), std::string::npos);
  EXPECT_NE(error_of(stages(R"({"stage": "RandomPhotometricDistort"})"))
                .find("torchvision's name for several stages; `augment import torchvision train.py` writes it as a "
                      "sequence: brightness, then contrast"),
            std::string::npos);
  EXPECT_NE(error_of(stages(R"({"stage": "FiveCrop"})")).find("no such stage yet (the closest: crop"), std::string::npos)
      << "FiveCrop has no stage";
  EXPECT_NE(error_of(stages(R"({"stage": "RandomShortestSize"})")).find("the stage is \"resize\""), std::string::npos);
  EXPECT_NE(error_of(stages(R"({"stage": "ToTensor"})")).find("a conversion a training loader does"), std::string::npos);
}

TEST(PipelineLoad, WrongTypesSayWhatIsExpected) {
  EXPECT_EQ(error_of(stages(R"({"stage": "gaussian_blur", "sigma": "big"})")),
            "p.json:/stages/0/sigma: gaussian_blur: \"sigma\" must be a number or [lo, hi] (got \"big\")");
  EXPECT_EQ(error_of(stages(R"({"stage": "gaussian_blur", "kernel_size": 3.5})")),
            "p.json:/stages/0/kernel_size: gaussian_blur: \"kernel_size\" must be an integer (got 3.5)");
  EXPECT_EQ(error_of(stages(R"({"stage": "gaussian_blur", "kernel_size": 4})")),
            "p.json:/stages/0/kernel_size: gaussian_blur: \"kernel_size\" = 4 must be odd (odd, [1, 301])");
  EXPECT_EQ(error_of(stages(R"({"stage": "flip", "direction": "diagonal"})")),
            "p.json:/stages/0/direction: flip: \"direction\" = \"diagonal\" is not one of \"horizontal\", "
            "\"vertical\" or \"both\"");
  EXPECT_EQ(error_of(stages(R"({"stage": "flip", "direction": "horizontl"})")),
            "p.json:/stages/0/direction: flip: \"direction\" = \"horizontl\" is not one of \"horizontal\", "
            "\"vertical\" or \"both\" (did you mean \"horizontal\"?)");
  EXPECT_EQ(error_of(stages(R"({"stage": "gaussian_blur", "sigma": [2, 1]})")),
            "p.json:/stages/0/sigma: gaussian_blur: \"sigma\" = [2,1]: the range's low end exceeds its high end");
}

TEST(PipelineLoad, RequiredAndExclusiveParameters) {
  EXPECT_EQ(error_of(stages(R"({"stage": "crop"})")),
            "p.json:/stages/0: crop: missing \"size\" (each in [1, 65535])");
  EXPECT_EQ(error_of(stages(R"({"stage": "resize"})")),
            "p.json:/stages/0: resize takes exactly one of \"size\", \"short_side\", \"long_side\", \"scale\" (none "
            "given)");
  EXPECT_EQ(error_of(stages(R"({"stage": "resize", "size": [4, 4], "scale": 2})")),
            "p.json:/stages/0: resize takes exactly one of \"size\", \"short_side\", \"long_side\", \"scale\" "
            "(given: \"size\", \"scale\")");
}

TEST(PipelineLoad, Compositions) {
  EXPECT_EQ(error_of(stages(R"({"stage": "one_of", "stages": [{"stage": "flip"}], "weights": [1, 2]})")),
            "p.json:/stages/0/weights: one_of: has 2 weights for 1 stages");
  EXPECT_EQ(error_of(stages(R"({"stage": "some_of", "stages": [{"stage": "flip"}], "n": [1, 3]})")),
            "p.json:/stages/0/n: some_of: = 3 exceeds the number of stages (1)");
  EXPECT_EQ(error_of(stages(R"({"stage": "sequence", "stages": []})")),
            "p.json:/stages/0/stages: a composition needs at least one stage");
  EXPECT_EQ(error_of(stages(R"({"stage": "sequence", "stages": [{"stage": "flip", "x": 1}]})")),
            "p.json:/stages/0/stages/0/x: flip has no parameter \"x\"; its parameters are: stage, p, direction");
}

TEST(PipelineLoad, TopLevel) {
  EXPECT_EQ(error_of(R"({"stages": []})"), "p.json: missing \"version\": 1");
  EXPECT_EQ(error_of(R"({"version": 2, "stages": []})"),
            "p.json:/version: unsupported version 2; this augment reads version 1");
  EXPECT_EQ(error_of(R"({"version": 1})"), "p.json: missing \"stages\": [...]");
  EXPECT_EQ(error_of(R"({"version": 1, "seed": -3, "stages": []})"),
            "p.json:/seed: \"seed\" must be a non-negative integer (got -3)");
  EXPECT_EQ(error_of(R"({"version": 1, "stage": []})"),
            "p.json:/stage: unknown key \"stage\" (did you mean \"stages\"?); a pipeline has \"version\", \"seed\", "
            "\"stages\", \"description\", \"labels\" and \"decode\"\n"
            "p.json: missing \"stages\": [...]");
  EXPECT_EQ(error_of(R"([1, 2])"), "p.json: a pipeline is a JSON object: {\"version\": 1, \"stages\": [...]}");
  EXPECT_EQ(error_of(stages(R"(["flip"])")),
            "p.json:/stages/0: a stage is an object with a \"stage\" key, e.g. {\"stage\": \"flip\"}");
}

TEST(PipelineLoad, MissingFileIsAUsageError) {
  EXPECT_THROW(Pipeline::load_file("/nonexistent/pipeline.json"), UsageError);
}

Shape rgb(int w, int h) { return Shape{w, h, 3, DType::U8}; }

TEST(PipelinePlan, ResolvesShapesAndRecordsEveryVisitedNode) {
  const Pipeline p = Pipeline::parse(stages(R"({"stage": "resize", "short_side": 100},
      {"stage": "crop", "size": [50, 40], "position": "random"},
      {"stage": "flip", "p": 0}, {"stage": "one_of", "stages": [{"stage": "flip"}, {"stage": "flip", "direction": "vertical"}]})"),
                                     "p.json");
  const Plan plan = p.plan(1, "a/b.jpg", 0, rgb(400, 200));
  EXPECT_EQ(plan.out, rgb(50, 40));
  ASSERT_EQ(plan.steps.size(), 4u);
  EXPECT_EQ(plan.steps[0].op->out_shape(), rgb(200, 100));
  EXPECT_EQ(plan.steps[2].op, nullptr);  // p = 0
  EXPECT_EQ(plan.record.size(), 5u);
  EXPECT_EQ(plan.record[2]["skipped"], true);
  EXPECT_EQ(plan.record[3]["stage"], "one_of");
  EXPECT_EQ(plan.record[0]["params"]["width"], 200);
}

TEST(PipelinePlan, SameKeySameDrawsOtherKeysDiffer) {
  const Pipeline p = Pipeline::parse(stages(R"({"stage": "gaussian_blur", "sigma": [0.1, 5]})"), "p.json");
  const auto sigma = [&](std::uint64_t seed, const char* path, std::uint32_t copy) {
    return p.plan(seed, path, copy, rgb(64, 64)).record[0]["params"]["sigma"].get<double>();
  };
  EXPECT_EQ(sigma(1, "x.jpg", 0), sigma(1, "x.jpg", 0));
  EXPECT_NE(sigma(1, "x.jpg", 0), sigma(2, "x.jpg", 0));
  EXPECT_NE(sigma(1, "x.jpg", 0), sigma(1, "y.jpg", 0));
  EXPECT_NE(sigma(1, "x.jpg", 0), sigma(1, "x.jpg", 1));
}

TEST(PipelinePlan, ProbabilityAndCompositionFrequencies) {
  const Pipeline p = Pipeline::parse(stages(R"({"stage": "flip", "p": 0.3},
      {"stage": "one_of", "weights": [3, 1], "stages": [{"stage": "flip"}, {"stage": "flip", "direction": "vertical"}]},
      {"stage": "some_of", "n": [1, 2], "stages": [{"stage": "flip"}, {"stage": "flip"}, {"stage": "flip"}]})"),
                                     "p.json");
  int applied = 0, first = 0, some = 0;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    const Plan plan = p.plan(5, "img" + std::to_string(i), 0, rgb(8, 8));
    applied += plan.steps[0].op != nullptr;
    first += plan.record[1]["chose"][0] == 0;
    for (const auto& r : plan.record)
      if (r["stage"] == "some_of") {
        some += static_cast<int>(r["chose"].size());
        EXPECT_TRUE(std::is_sorted(r["chose"].begin(), r["chose"].end()));
      }
  }
  EXPECT_NEAR(applied / double(n), 0.3, 0.03);
  EXPECT_NEAR(first / double(n), 0.75, 0.03);
  EXPECT_NEAR(some / double(n), 1.5, 0.05);
}

TEST(PipelinePlan, SomeOfRandomOrderAppliesItsPicksInTheOrderDrawn) {
  const Pipeline p = Pipeline::parse(stages(R"({"stage": "some_of", "n": 2, "random_order": true, "stages":
      [{"stage": "flip"}, {"stage": "flip", "direction": "vertical"}, {"stage": "invert"}]})"),
                                     "p.json");
  std::map<std::vector<int>, int> orders;
  const int n = 6000;
  for (int i = 0; i < n; ++i) {
    const Plan plan = p.plan(3, "img" + std::to_string(i), 0, rgb(8, 8));
    const std::vector<int> chose = plan.record[0]["chose"].get<std::vector<int>>();
    ASSERT_EQ(chose.size(), 2u);
    ASSERT_NE(chose[0], chose[1]);
    // The stages run in the recorded order.
    ASSERT_EQ(plan.steps.size(), 2u);
    for (int k = 0; k < 2; ++k) ASSERT_EQ(plan.steps[k].node->pointer, "/stages/0/stages/" + std::to_string(chose[k]));
    ++orders[chose];
  }
  ASSERT_EQ(orders.size(), 6u);  // every ordered pair of the three
  for (const auto& [order, count] : orders) EXPECT_NEAR(count / double(n), 1.0 / 6, 0.02);
}

TEST(PipelinePlan, UnsupportedImagesAreInputErrorsNamingTheStage) {
  const Pipeline p = Pipeline::parse(stages(R"({"stage": "crop", "size": [100, 100]})"), "p.json");
  try {
    p.plan(0, "x", 0, rgb(50, 80));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "crop: the window 100x100 is larger than the image (50x80) (/stages/0)");
  }
}

// ---- YAML -------------------------------------------------------------------------------------

std::string yaml_error_of(const std::string& text) { return error_of(text, true); }

TEST(PipelineYaml, SameDocumentSamePlansAsJson) {
  const Pipeline j = Pipeline::parse(kIssueExample,
                                     "p.json");
  const Pipeline y = Pipeline::parse_yaml(R"(# the same pipeline
version: 1
seed: 7
stages:
  - stage: resize
    short_side: 256
    interpolation: bilinear
  - {stage: gaussian_blur, sigma: [0.1, 2.0], p: 0.5}
  - stage: one_of
    stages:
      - stage: flip
        direction: "horizontal"
      - stage: random_resized_crop
        size: [224, 224]
        scale: [0.08, 1.0]
)",
                                          "p.yaml");
  EXPECT_EQ(y.seed(), 7u);
  EXPECT_EQ(y.stage_count(), j.stage_count());
  for (int i = 0; i < 20; ++i) {
    const std::string key = "img" + std::to_string(i) + ".png";
    EXPECT_EQ(y.plan(7, key, 0, {640, 480, 3, DType::U8}).record.dump(),
              j.plan(7, key, 0, {640, 480, 3, DType::U8}).record.dump());
  }
}

TEST(PipelineYaml, ErrorsNameFileLineColumnAndPointer) {
  EXPECT_EQ(yaml_error_of("version: 1\nstages:\n  - stage: gaussian_blur\n    sigma: -3\n"),
            "p.yaml:4:12: /stages/0/sigma: gaussian_blur: \"sigma\" = -3 is outside (0, 50]");
  // A key that is not there: the position of its nearest parent.
  EXPECT_EQ(yaml_error_of("version: 1\nstages:\n  - stage: crop\n").substr(0, 26), "p.yaml:3:5: /stages/0: cro");
  EXPECT_EQ(yaml_error_of("version: 1\nstages:\n  - stage: gausian_blur\n").substr(0, 58),
            "p.yaml:3:12: /stages/0/stage: unknown stage \"gausian_blur\"");
  EXPECT_EQ(yaml_error_of("version: 1\nstages:\n  - stage: flip\n   bad: [1,\n").substr(0, 26),
            "p.yaml:4:4: invalid YAML: ");
  EXPECT_EQ(yaml_error_of("version: 1\nversion: 1\nstages: []\n"),
            "p.yaml:2:1: invalid YAML: the key \"version\" appears twice");
  EXPECT_EQ(yaml_error_of("version: 1\nstages:\n  - {stage: gaussian_blur, sigma: .inf}\n"),
            "p.yaml:3:35: invalid YAML: .inf: a pipeline takes finite numbers only");
  EXPECT_EQ(yaml_error_of("- 1\n- 2\n").substr(0, 24), "p.yaml: a pipeline is a ");
  EXPECT_EQ(yaml_error_of("").substr(0, 7), "p.yaml:");
  // JSON text is UTF-8: a YAML value or key that is not is refused where it is (found by fuzz_pipeline_yaml).
  EXPECT_EQ(yaml_error_of("version: 1\nstages:\n  - {stage: flip, direction: \"ab\xfe\"}\n"),
            "p.yaml:3:30: invalid YAML: a value that is not UTF-8 text");
  EXPECT_EQ(yaml_error_of("version: 1\nd\xc3: 2\nstages: []\n"), "p.yaml:2:1: invalid YAML: a key that is not UTF-8 text");
  EXPECT_EQ(yaml_error_of("version: 1\ndescription: \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"\nstages: []\n"),
            "(no error)");
  EXPECT_NE(yaml_error_of("version: 1\ndescription: \"\xed\xa0\x80\"\nstages: []\n").find("not UTF-8"),
            std::string::npos);  // a surrogate
  EXPECT_NE(yaml_error_of("version: 1\ndescription: \"\xc0\xaf\"\nstages: []\n").find("not UTF-8"),
            std::string::npos);  // overlong
  // An alias inside its own anchor is a cycle (found by fuzz_pipeline_yaml).
  EXPECT_EQ(yaml_error_of("version: 1\nstages:\n  - &a {stage: one_of, stages: [*a]}\n").substr(0, 60),
            "p.yaml:3:16: invalid YAML: nested deeper than 200 levels (an");
  // Aliases of aliases: 2^40 values from 40 lines, refused instead of expanded.
  std::string bomb = "a0: &a0 [1, 1]\n";
  for (int i = 1; i <= 40; ++i)
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [*a" + std::to_string(i - 1) + ", *a" +
            std::to_string(i - 1) + "]\n";
  EXPECT_NE(yaml_error_of(bomb).find("invalid YAML: the document expands to more than 100000 values"),
            std::string::npos)
      << yaml_error_of(bomb);
}

TEST(PipelineYaml, QuotedScalarsStayStrings) {
  // "1" is a string, so the version is refused; 1 is a number.
  EXPECT_NE(yaml_error_of("version: \"1\"\nstages: []\n").find("unsupported version \"1\""), std::string::npos)
      << yaml_error_of("version: \"1\"\nstages: []\n");
  EXPECT_EQ(yaml_error_of("version: 1\nstages: []\n"), "(no error)");
  EXPECT_EQ(yaml_error_of("version: 1\nstages: []\ndescription: yes\n"), "(no error)");  // a string in YAML 1.2
}

// ---- shrink-on-load: "decode": {"shrink": true} ----

std::string shrinking(const std::string& list) {
  return R"({"version": 1, "decode": {"shrink": true}, "stages": [)" + list + "]}";
}

int shrink_of(const std::string& text, const Shape& full, std::vector<std::uint32_t> copies = {0}) {
  return Pipeline::parse(text, "p.json").shrink_for(0, "a.jpg", copies, full);
}

TEST(PipelineShrink, TheLargestScaleThatStillShrinksToTheSameSize) {
  const Shape hd{1920, 1080, 3, DType::U8};
  const std::string short256 = R"({"stage": "resize", "short_side": 256})";
  // 1080 / 4 = 270 >= 256, 1080 / 8 = 135 < 256.
  EXPECT_EQ(shrink_of(shrinking(short256), hd), 4);
  EXPECT_EQ(shrink_of(shrinking(short256 + R"(, {"stage": "gaussian_blur", "sigma": 1})"), hd), 4);
  EXPECT_EQ(shrink_of(shrinking(R"({"stage": "resize", "size": [120, 100]})"), hd), 8);  // 240 x 135
  EXPECT_EQ(shrink_of(shrinking(R"({"stage": "resize", "size": [500, 300]})"), hd), 2);
  // A short side of 256 from 600 x 400: half (300 x 200) would have to be enlarged.
  EXPECT_EQ(shrink_of(shrinking(short256), {600, 400, 3, DType::U8}), 1);
  // Off unless the file asks for it.
  EXPECT_EQ(shrink_of(stages(short256), hd), 1);
  EXPECT_EQ(Pipeline::parse(stages(short256), "p.json").decode_rules().shrink, false);
}

TEST(PipelineShrink, OnlyWhenTheFirstOperationShrinksForEveryCopy) {
  const Shape hd{1920, 1080, 3, DType::U8};
  // Stages that keep the size, or cut without resampling, get the full image.
  EXPECT_EQ(shrink_of(shrinking(R"({"stage": "flip"})"), hd), 1);
  EXPECT_EQ(shrink_of(shrinking(R"({"stage": "crop", "size": [224, 224]})"), hd), 1);
  EXPECT_EQ(shrink_of(shrinking(R"({"stage": "invert"}, {"stage": "resize", "short_side": 256})"), hd), 1);
  EXPECT_EQ(shrink_of(shrinking(""), hd), 1);
  // A resize that some copies skip: those copies need the full image, so all of them get it.
  const std::string sometimes = shrinking(R"({"stage": "resize", "short_side": 256, "p": 0.5})");
  std::vector<std::uint32_t> copies(16);
  for (std::uint32_t i = 0; i < copies.size(); ++i) copies[i] = i;
  EXPECT_EQ(shrink_of(sometimes, hd, copies), 1);
  int fired = 0;
  for (std::uint32_t c : copies) fired += shrink_of(sometimes, hd, {c}) == 4;
  EXPECT_GT(fired, 0);
  EXPECT_LT(fired, 16);
  // random_resized_crop: a scale at which its crop still has at least 224 x 224 source pixels.
  const std::string rrc = shrinking(R"({"stage": "random_resized_crop", "size": [224, 224]})");
  const Pipeline p = Pipeline::parse(rrc, "p.json");
  int shrunk = 0;
  for (std::uint32_t c = 0; c < 16; ++c) {
    const int n = shrink_of(rrc, hd, {c});
    shrunk += n > 1;
    const Plan full = p.plan(0, "a.jpg", c, hd);
    const Plan small = p.plan(0, "a.jpg", c, {(1920 + n - 1) / n, (1080 + n - 1) / n, 3, DType::U8});
    EXPECT_EQ(small.out, full.out);
    const auto f = full.steps.at(0).op->motion()->matrix;
    const auto m = small.steps.at(0).op->motion()->matrix;
    EXPECT_LE(f[0] * n, 1.0 + 1e-9) << c;  // the full-size crop is at least n times larger than 224
    EXPECT_LE(f[4] * n, 1.0 + 1e-9) << c;
    EXPECT_LE(m[0], 1.0 + 1e-9) << c;  // and the smaller one is not enlarged
    EXPECT_LE(m[4], 1.0 + 1e-9) << c;
  }
  EXPECT_GT(shrunk, 0);
}

TEST(PipelineShrink, TheDecodeBlockIsValidated) {
  EXPECT_EQ(error_of(R"({"version": 1, "decode": {"shrink": "yes"}, "stages": []})"),
            "p.json:/decode/shrink: \"shrink\" must be true or false (got \"yes\")");
  EXPECT_NE(error_of(R"({"version": 1, "decode": {"shrnk": true}, "stages": []})").find("unknown key \"shrnk\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"version": 1, "decode": true, "stages": []})").find("\"decode\" is an object"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"version": 1, "decod": {}, "stages": []})").find("did you mean \"decode\"?"),
            std::string::npos);
  EXPECT_TRUE(Pipeline::parse(shrinking(""), "p.json").decode_rules().shrink);
  EXPECT_TRUE(Pipeline::parse_yaml("version: 1\ndecode: {shrink: true}\nstages: []\n", "p.yaml").decode_rules().shrink);
}

}  // namespace
}  // namespace aug::test_pipeline
