// What a new user met on a first try, as that user runs it: reports of YAML pipelines, output paths
// checked before any work, seeds, dry runs that check the device, COCO runs that leave nothing
// behind, masks beside the output, every error of a pipeline with a hint for other libraries' names,
// messages that read, plain progress lines for logs, and rotate and affine turning opposite ways.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/testing.hpp"

namespace aug::test_first_use {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

std::string samples() { return testing::samples_dir().string(); }

// A folder with one sample photograph.
fs::path one_image(const fs::path& dir) {
  fs::create_directories(dir);
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "cam.png");
  return dir;
}

std::size_t lines_with(const std::string& text, const std::string& what) {
  std::istringstream in(text);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(what) != std::string::npos;
  return n;
}

TEST(FirstUse, VerifyReportOfAYamlPipelineIsValidJsonQuotingIt) {
  testing::TempDir dir;
  const fs::path yaml = testing::source_dir() / "configs/imagenet-train.yaml";
  const auto r = run_cli({"verify-devices", "-c", yaml.string(), "--images", "1", "--report",
                          (dir / "v.json").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(testing::read_text(dir / "v.json"), nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << testing::read_text(dir / "v.json").substr(0, 400);
  ASSERT_TRUE(report["pipeline"]["document"].is_object()) << report.dump().substr(0, 400);
  EXPECT_EQ(report["pipeline"]["document"]["stages"][0]["stage"], "random_resized_crop");
}

TEST(FirstUse, ReportsAndManifestsGoIntoFoldersThatDoNotExistYet) {
  testing::TempDir dir;
  const fs::path config = testing::source_dir() / "configs/default.json";
  auto r = run_cli({"verify-devices", "-c", config.string(), "--images", "1", "--report",
                    (dir / "new/dir/v.json").string(), "--html", (dir / "new/other/v.html").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "new/dir/v.json"));
  EXPECT_TRUE(fs::exists(dir / "new/other/v.html"));
  r = run_cli({"run", "-c", config.string(), "-i", samples(), "-o", (dir / "out").string(), "--manifest",
               (dir / "logs/today/m.jsonl").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "logs/today/m.jsonl"));
  r = run_cli({"preview", "-c", config.string(), "-i", samples(), "--images", "1", "--variants", "1", "-o",
               (dir / "sheets/a/s.html").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "sheets/a/s.html"));
}

// A path that cannot be written (below a file) is refused before any input is read: exit 1 (a usage
// error), nothing printed of the work, nothing created; the same run with a good path then works.
TEST(FirstUse, PathsThatCannotBeWrittenAreRefusedBeforeAnyWork) {
  testing::TempDir dir;
  const fs::path config = testing::source_dir() / "configs/default.json";
  testing::write_text(dir / "file.txt", "x");
  const std::string below_file = (dir / "file.txt/sub/x").string();

  auto r = run_cli({"verify-devices", "-c", config.string(), "--report", below_file + ".json"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--report " + below_file + ".json"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("result"), std::string::npos) << "compared before refusing:\n" << r.out;

  r = run_cli({"preview", "-c", config.string(), "-i", samples(), "-o", below_file + ".html"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("-o " + below_file + ".html"), std::string::npos) << r.err;

  r = run_cli({"run", "-c", config.string(), "-i", samples(), "-o", (dir / "out").string(), "--manifest",
               below_file + ".jsonl"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--manifest " + below_file + ".jsonl"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out")) << "the refused run created its output folder";
  r = run_cli({"run", "-c", config.string(), "-i", samples(), "-o", (dir / "out").string(), "--manifest",
               (dir / "m.jsonl").string()});
  EXPECT_EQ(r.code, 0) << r.err;

  // Inside the input: read as an input by the next run.
  const fs::path in = one_image(dir / "in");
  r = run_cli({"run", "-c", config.string(), "-i", in.string(), "-o", (dir / "out2").string(), "--manifest",
               (in / "m.jsonl").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("inside the input"), std::string::npos) << r.err;
}

TEST(FirstUse, ANegativeSeedIsRefused) {
  testing::TempDir dir;
  const fs::path config = testing::source_dir() / "configs/default.json";
  for (const char* command : {"run", "preview", "verify-devices"}) {
    std::vector<std::string> args{command, "-c", config.string(), "-i", samples(), "--seed", "-1"};
    if (std::string(command) == "run") args.insert(args.end(), {"-o", (dir / "out").string()});
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 1) << command;
    EXPECT_NE(r.err.find("--seed"), std::string::npos) << command << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(FirstUse, ADryRunChecksTheDeviceAndListsThePlan) {
  testing::TempDir dir;
  const fs::path config = testing::source_dir() / "configs/default.json";
  auto r = run_cli({"run", "-c", config.string(), "-i", samples(), "-o", (dir / "out").string(), "--dry-run",
                    "--device", "cuda-emulated:5"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.err.find("cuda-emulated:5 does not exist"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find(" -> "), std::string::npos) << "listed outputs for a device it cannot use:\n" << r.out;
  r = run_cli({"run", "-c", config.string(), "-i", samples(), "-o", (dir / "out").string(), "--dry-run", "--device",
               "cuda-emulated"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("plan: " + config.string() + " on cuda-emulated:0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  /stages/0 resize: cuda-emulated:0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("camera.png -> "), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(FirstUse, ACompleteCocoRunLeavesNoFragmentFolder) {
  testing::TempDir dir;
  one_image(dir / "in");
  const nlohmann::json coco{
      {"images", {{{"id", 1}, {"file_name", "cam.png"}, {"width", 512}, {"height", 512}}}},
      {"annotations", {{{"id", 1}, {"image_id", 1}, {"category_id", 1}, {"bbox", {10, 10, 50, 50}}, {"area", 2500},
                        {"iscrowd", 0}}}},
      {"categories", {{{"id", 1}, {"name", "thing"}}}}};
  testing::write_text(dir / "ann.json", coco.dump());
  testing::write_text(dir / "p.json", R"({"version": 1, "stages": [{"stage": "flip"}]})");
  const auto r = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "in").string(), "-o",
                          (dir / "out").string(), "--labels", "coco=" + (dir / "ann.json").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "out/ann.json"));
  EXPECT_FALSE(fs::exists(dir / "out/.augment-labels")) << "the fragments were left behind";
}

TEST(FirstUse, MasksGoBesideTheImagesFolder) {
  testing::TempDir dir;
  one_image(dir / "ds/images");
  // A label map: the image's own gray values, as a PNG named like the image.
  fs::create_directories(dir / "ds/masks");
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "ds/masks/cam.png");
  testing::write_text(dir / "p.json", R"({"version": 1, "stages": [{"stage": "flip"}]})");
  auto r = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "ds/images").string(), "--masks",
                    (dir / "ds/masks").string(), "--mask-suffix", ".png", "-o", (dir / "aug/images").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(testing::list_files(dir / "aug/images"), std::vector<std::string>{"cam.png"});
  EXPECT_TRUE(fs::exists(dir / "aug/masks/cam.png"));
  // An output masks folder that is the input's is refused.
  r = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "ds/images").string(), "--masks",
               (dir / "ds/masks").string(), "--mask-suffix", ".png", "-o", (dir / "aug2").string(), "--masks-output",
               (dir / "ds/masks").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("overlap"), std::string::npos) << r.err;
}

TEST(FirstUse, EveryErrorOfAPipelineIsReportedWithHintsForOtherLibrariesNames) {
  testing::TempDir dir;
  testing::write_text(dir / "p.json", R"({"version": 1, "stages": [
      {"stage": "HorizontalFlip", "p": 0.5},
      {"stage": "color_jitter", "hue": 0.9},
      {"stage": "RandomCrop", "height": 100, "width": 120},
      {"stage": "gaussian_blur", "sigma": -1}]})");
  const auto r = run_cli({"validate", (dir / "p.json").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(lines_with(r.err, "p.json:/stages/"), 4u) << r.err;
  EXPECT_NE(r.err.find(R"(unknown stage "HorizontalFlip": that is Albumentations' name; write {"stage":"flip","direction":"horizontal","p":0.5})"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(R"(write {"stage":"crop","size":[120,100],"position":"random"})"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(R"("hue" = 0.9 is outside [-0.5, 0.5])"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(R"("sigma" = -1 is outside (0, 50])"), std::string::npos) << r.err;
}

TEST(FirstUse, MessagesReadAsSentences) {
  testing::TempDir dir;
  const auto d = run_cli({"describe", "rotate"});
  EXPECT_EQ(d.out.find("true or false, default false, true or false"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("expand: true or false, default false\n"), std::string::npos) << d.out;
  one_image(dir / "in");
  testing::write_text(dir / "in/cam.txt", "0 0.5 0.5 0.2 0.2\n");
  const auto r = run_cli({"run", "-c", (testing::source_dir() / "configs/default.json").string(), "-i",
                          (dir / "in").string(), "-o", (dir / "out").string(), "--labels", "yolo"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("augment: 1 input, 1 output written, 0 failed inputs;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("labels: 1 object kept, 0 dropped\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("the manifest says why"), std::string::npos) << r.out;
}

TEST(FirstUse, ProgressInLogsIsPlainLines) {
  testing::TempDir dir;
  testing::write_text(dir / "slow.json", R"({"version": 1, "stages": [{"stage": "median_blur", "kernel_size": 31}]})");
  // stderr is a pipe here, not a terminal: plain lines, never a carriage return.
  const auto r = run_cli({"run", "-c", (dir / "slow.json").string(), "-i", samples(), "-o", (dir / "out").string(),
                          "--threads", "1", "--progress-every", "0.1", "--copies", "2"},
                         {"CI=true"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos);
  EXPECT_GE(lines_with(r.err, "images, 0 failed"), 1u) << r.err;
  const auto never = run_cli({"run", "-c", (dir / "slow.json").string(), "-i", samples(), "-o",
                              (dir / "out2").string(), "--threads", "1", "--progress", "never"});
  EXPECT_EQ(lines_with(never.err, "images, 0 failed"), 0u) << never.err;
}

TEST(FirstUse, RotateAndAffineTogetherAreWarnedOnce) {
  testing::TempDir dir;
  testing::write_text(dir / "p.json", R"({"version": 1, "stages": [{"stage": "rotate", "angle": 10},
      {"stage": "affine", "angle": 10}, {"stage": "rotate", "angle": 5}]})");
  const auto r = run_cli({"validate", (dir / "p.json").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines_with(r.err, "the same angle turns them opposite ways"), 1u) << r.err;
  // Ranges symmetric about 0 turn either way alike: nothing to say.
  testing::write_text(dir / "q.json", R"({"version": 1, "stages": [{"stage": "rotate", "angle": [-10, 10]},
      {"stage": "affine", "angle": [-5, 5]}, {"stage": "affine"}]})");
  const auto q = run_cli({"validate", (dir / "q.json").string()});
  EXPECT_EQ(q.code, 0) << q.err;
  EXPECT_EQ(lines_with(q.err, "opposite ways"), 0u) << q.err;
  const auto rotate = run_cli({"describe", "rotate"}), affine = run_cli({"describe", "affine"});
  EXPECT_NE(rotate.out.find("counter-clockwise on screen"), std::string::npos);
  EXPECT_NE(affine.out.find("clockwise on screen (torchvision's affine; rotate's angle turns the other way)"),
            std::string::npos);
}

}  // namespace
}  // namespace aug::test_first_use
