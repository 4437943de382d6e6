// `augment import albumentations`: the saved pipelines in samples/albumentations/ (a classification,
// a detection and a segmentation recipe as Albumentations users write them) imported, checked and
// run; the refusals; the docs table.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "lib/core/error.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "lib/pipeline/python_import.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_import {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_cli;

fs::path saved(const char* name) { return testing::samples_dir() / "albumentations" / name; }

// Imports `name` with the CLI into dir/NAME.json and returns the pipeline and the CLI's stderr.
std::pair<json, std::string> import_file(const fs::path& dir, const char* name) {
  const fs::path out = dir / (std::string(name) + ".json");
  const auto r = run_cli({"import", "albumentations", saved(name).string(), "-o", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  return {json::parse(testing::read_text(out)), r.err};
}

TEST(ImportAlbumentations, ClassificationRecipe) {
  testing::TempDir dir;
  const auto [p, err] = import_file(dir.path(), "classification.json");
  const json& s = p["stages"];
  ASSERT_EQ(s.size(), 7u);  // Normalize and ToTensorV2 left out
  EXPECT_NE(err.find("transform/transforms/7: Normalize left out"), std::string::npos) << err;
  EXPECT_EQ(s[0], json::parse(R"({"stage":"random_resized_crop","size":[224,224],"scale":[0.08,1.0],
                                  "ratio":[0.75,1.3333333333333333],"interpolation":"bilinear"})"));
  EXPECT_EQ(s[1], json::parse(R"({"stage":"flip","direction":"horizontal","p":0.5})"));
  // ShiftScaleRotate: scale offsets around 1, its reflect101 border kept.
  EXPECT_EQ(s[2]["stage"], "affine");
  EXPECT_NEAR(s[2]["scale"][0].get<double>(), 0.9, 1e-12);
  EXPECT_NEAR(s[2]["scale"][1].get<double>(), 1.1, 1e-12);
  EXPECT_EQ(s[2]["translate"], json::parse("[0.0625, 0.0625]"));
  EXPECT_EQ(s[2]["border"], "reflect101");
  // OneOf: the children's p become weights, the children run surely once chosen.
  EXPECT_EQ(s[3]["stage"], "one_of");
  EXPECT_EQ(s[3]["weights"], json::parse("[0.6, 0.2, 0.2]"));
  EXPECT_EQ(s[3]["p"], 0.8);
  EXPECT_FALSE(s[3]["stages"][0].contains("p"));
  EXPECT_NEAR(s[3]["stages"][2]["r_shift"][1].get<double>(), 15.0 / 255.0, 1e-15);
  // Equal children's p: no weights. GaussianBlur's sizes 3..7 as OpenCV's sigmas.
  EXPECT_FALSE(s[4].contains("weights"));
  EXPECT_NEAR(s[4]["stages"][0]["sigma"][0].get<double>(), 0.8, 1e-12);
  EXPECT_NEAR(s[4]["stages"][0]["sigma"][1].get<double>(), 1.4, 1e-12);
  EXPECT_EQ(s[4]["stages"][1]["kernel_size"], json::parse("[3, 5]"));
  // GaussNoise's variance in pixels squared, drawn as a variance: var / 255^2.
  EXPECT_NEAR(s[5]["variance"][0].get<double>(), 10.0 / (255.0 * 255.0), 1e-18);
  EXPECT_NEAR(s[5]["variance"][1].get<double>(), 50.0 / (255.0 * 255.0), 1e-18);
  EXPECT_FALSE(s[5].contains("sigma"));
  EXPECT_EQ(s[6], json::parse(R"({"stage":"coarse_dropout","num_holes":[1,8],"hole_height":[8.0,16.0],
                                  "hole_width":[8.0,16.0],"fill":0.0,"p":0.3})"));
  EXPECT_FALSE(p.contains("labels"));
}

TEST(ImportAlbumentations, DetectionRecipeKeepsItsBoxRules) {
  testing::TempDir dir;
  const auto [p, err] = import_file(dir.path(), "detection.json");
  const json& s = p["stages"];
  ASSERT_EQ(s.size(), 7u);
  EXPECT_EQ(s[0], json::parse(R"({"stage":"resize","long_side":640,"interpolation":"bilinear"})"));
  EXPECT_EQ(s[1], json::parse(R"({"stage":"pad","min_size":[640,640],"position":"center","border":"constant",
                                  "fill":[114,114,114]})"));
  EXPECT_EQ(s[2]["shear"], json::parse("[-5.0, 5.0, 0.0, 0.0]"));
  EXPECT_EQ(s[2]["fill"], 114);
  EXPECT_EQ(s[6], json::parse(R"({"stage":"jpeg","quality":[75,100],"p":0.3})"));
  EXPECT_EQ(p["labels"], json::parse(R"({"min_area":16.0,"min_visibility":0.3,"min_size":[2.0,2.0]})"));
  EXPECT_NE(err.find("pass --labels voc to augment run"), std::string::npos) << err;
}

TEST(ImportAlbumentations, SegmentationRecipeInYaml) {
  testing::TempDir dir;
  const auto [p, err] = import_file(dir.path(), "segmentation.yaml");
  const json& s = p["stages"];
  ASSERT_EQ(s.size(), 7u);
  EXPECT_EQ(s[3], json::parse(R"({"stage":"rotate90","k":[0,1,2,3],"p":0.5})"));
  EXPECT_EQ(s[4], json::parse(R"({"stage":"rotate","angle":[-30.0,30.0],"interpolation":"bilinear",
                                  "border":"constant","fill":0,"p":0.4})"));
  EXPECT_EQ(s[6]["stage"], "sequence");
  EXPECT_EQ(s[6]["stages"][0], json::parse(R"({"stage":"gamma","gamma":[0.8,1.2],"method":"albumentations"})"));
  EXPECT_EQ(p["labels"], json::parse(R"({"mask_fill":"ignore"})"));  // Rotate's mask_value 255
}

TEST(ImportAlbumentations, ImportedPipelinesRunAndAgreeAcrossDevices) {
  testing::TempDir dir;
  fs::create_directories(dir / "img");
  for (const char* f : {"astronaut.jpg", "rocket.jpg", "coffee.png"}) fs::copy_file(testing::samples_dir() / f, dir / "img" / f);
  // Labels for the detection recipe, masks for the segmentation one.
  fs::create_directories(dir / "labels");
  std::ofstream(dir / "labels/astronaut.txt") << "0 0.5 0.4 0.3 0.5\n";
  std::ofstream(dir / "labels/rocket.txt") << "1 0.45 0.5 0.1 0.8\n";
  std::ofstream(dir / "labels/coffee.txt") << "2 0.5 0.5 0.6 0.6\n";
  fs::create_directories(dir / "masks");
  for (const char* f : {"astronaut", "rocket", "coffee"}) {
    const cv::Mat photo = testing::imread((dir / "img").string() + "/" + f + (std::string(f) == "coffee" ? ".png" : ".jpg"));
    cv::Mat mask(photo.rows, photo.cols, CV_8U);
    for (int y = 0; y < mask.rows; ++y)
      for (int x = 0; x < mask.cols; ++x) mask.at<std::uint8_t>(y, x) = static_cast<std::uint8_t>((x / 64 + y / 64) % 3);
    testing::imwrite((dir / "masks").string() + "/" + f + ".png", mask);
  }
  for (const char* name : {"classification.json", "detection.json", "segmentation.yaml"}) {
    SCOPED_TRACE(name);
    const fs::path pipeline = dir / (std::string(name) + ".json");
    ASSERT_EQ(run_cli({"import", "albumentations", saved(name).string(), "-o", pipeline.string()}).code, 0);
    for (const char* device : {"cpu", "cuda-emulated"}) {
      std::vector<std::string> args = {"run", "-c", pipeline.string(), "-i", (dir / "img").string(), "-o",
                                       (dir.path() / name / device / "images").string(), "--copies", "2", "--seed", "5",
                                       "--device", device};
      if (std::string(name) == "detection.json") args.insert(args.end(), {"--labels", "yolo"});
      if (std::string(name) == "segmentation.yaml") args.insert(args.end(), {"--masks", (dir / "masks").string()});
      const auto r = run_cli(args);
      ASSERT_EQ(r.code, 0) << r.err;
    }
    int files = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir.path() / name / "cpu")) {
      if (!e.is_regular_file()) continue;
      const fs::path rel = fs::relative(e.path(), dir.path() / name / "cpu");
      EXPECT_EQ(testing::read_text(e.path()), testing::read_text(dir.path() / name / "cuda-emulated" / rel)) << rel;
      ++files;
    }
    // 3 images x 2 copies, and as many label files (and the YOLO data.yaml) or masks.
    EXPECT_EQ(files, std::string(name) == "classification.json" ? 6 : std::string(name) == "detection.json" ? 13 : 12);
  }
}

// A transform is listed once in the import table: a stage that gains an import rule for a transform
// the importer listed as not available takes that line's place (lib/pipeline/albumentations.cpp).
TEST(ImportAlbumentations, EachTransformHasOneRowInTheImportTable) {
  std::istringstream table(albumentations_table_markdown());
  std::map<std::string, int> rows;
  std::string line;
  while (std::getline(table, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    const std::string names = line.substr(2, line.find(" |") - 2);
    std::istringstream each(names);
    std::string n;
    while (std::getline(each, n, ',')) {
      n.erase(0, n.find_first_not_of(' '));
      ++rows[n];
    }
  }
  EXPECT_GT(rows.size(), 60u);
  for (const auto& [name, count] : rows) EXPECT_EQ(count, 1) << name;
}

TEST(ImportAlbumentations, UnsupportedTransformsAreListedWithTheClosestStage) {
  const auto r = run_cli({"import", "albumentations", saved("unsupported.json").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  for (const char* line : {"4 transform(s) augment does not have",
                           "transform/transforms/1: FDA (no close stage: it needs other images",
                           "transform/transforms/2/transforms/0: Superpixels (no close stage: superpixel replacement)",
                           "transform/transforms/2/transforms/1: Lambda (no close stage: arbitrary Python code",
                           "transform/transforms/3: IAAAffine (closest stage: affine)"})
    EXPECT_NE(r.err.find(line), std::string::npos) << line << "\n" << r.err;
}

std::string import_error(const std::string& text) {
  try {
    import_albumentations(json::parse(text), "a.json");
  } catch (const PipelineError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string compose(const std::string& transforms) {
  return R"({"__version__": "1.4.4", "transform": {"__class_fullname__": "Compose", "p": 1.0, "transforms": [)" +
         transforms + "]}}";
}

// Albumentations' own transforms without a stage are named as such, with the closest stage where
// there is one, not taken for a class of the pipeline's code.
TEST(ImportAlbumentations, AlbumentationsTransformsWithoutAStageAreNamedAsSuch) {
  const std::string e = import_error(compose(R"({"__class_fullname__": "RandomGravel"},
                                                {"__class_fullname__": "PlasmaShadow"},
                                                {"__class_fullname__": "AutoContrast"})"));
  for (const char* line : {"transform/transforms/0: RandomGravel (no close stage: gravel particles)",
                           "transform/transforms/1: PlasmaShadow (closest stage: shadow;",
                           "transform/transforms/2: AutoContrast (closest stage: autocontrast;"})
    EXPECT_NE(e.find(line), std::string::npos) << line << "\n" << e;
  EXPECT_EQ(e.find("own code"), std::string::npos) << e;
}

// Saved pipelines as projects keep them: a NoOp in a OneOf is its chance of doing nothing; 2.x's
// RandomCrop pads up to the window, placed by pad_position; 2.x's GaussianBlur defaults to sigma
// (0.5, 3) and a fixed blur_limit is the kernel size; shift limits of at most 1 are said to be read
// as fractions; a pixel hole range may start at 0.
TEST(ImportAlbumentations, SavedFormsOfRealPipelines) {
  const json saved = json::parse(R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "p": 1.0,
    "transforms": [
      {"__class_fullname__": "OneOf", "p": 0.8, "transforms": [
        {"__class_fullname__": "HorizontalFlip", "p": 0.3}, {"__class_fullname__": "VerticalFlip", "p": 0.3},
        {"__class_fullname__": "NoOp", "p": 0.4}]},
      {"__class_fullname__": "RandomCrop", "height": 64, "width": 96, "pad_if_needed": true, "pad_position": "center",
       "border_mode": 0, "fill": 0, "p": 1.0},
      {"__class_fullname__": "GaussianBlur", "p": 0.5},
      {"__class_fullname__": "GaussianBlur", "blur_limit": [5, 5], "sigma_limit": [1, 2], "p": 0.5},
      {"__class_fullname__": "RGBShift", "r_shift_limit": 0.1, "g_shift_limit": 0.1, "b_shift_limit": 0.1, "p": 0.5},
      {"__class_fullname__": "CoarseDropout", "num_holes_range": [1, 8], "hole_height_range": [0, 32],
       "hole_width_range": [0, 32], "p": 0.5}]}})");
  const Imported imp = import_albumentations(saved, "real.json");
  const auto& st = imp.pipeline["stages"];
  ASSERT_EQ(st.size(), 6u) << imp.pipeline.dump();
  EXPECT_EQ(st[0]["stage"], "one_of");
  EXPECT_NEAR(st[0]["p"].get<double>(), 0.8 * 0.6, 1e-12) << st[0].dump();
  EXPECT_EQ(st[0]["stages"].size(), 2u) << st[0].dump();
  EXPECT_EQ(json::parse(st[1].dump()), json::parse(R"({"stage":"sequence","stages":[
    {"stage":"pad","min_size":[96,64],"position":"center","border":"constant","fill":0.0},
    {"stage":"crop","size":[96,64],"position":"random"}]})")) << st[1].dump();
  EXPECT_EQ(st[2]["sigma"], json::parse("[0.5, 3.0]")) << st[2].dump();
  EXPECT_EQ(st[3]["sigma"], json::parse("[1.0, 2.0]")) << st[3].dump();
  EXPECT_EQ(st[3]["kernel_size"], 5) << st[3].dump();
  EXPECT_EQ(st[4]["r_shift"], json::parse("[-0.1, 0.1]")) << st[4].dump();
  EXPECT_EQ(st[5]["hole_height"], json::parse("[0.0, 32.0]")) << st[5].dump();
  const auto noted = [&](const std::string& what) {
    return std::any_of(imp.notes.begin(), imp.notes.end(), [&](const std::string& n) { return n.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(noted("NoOp in OneOf: its weight 0.4 of 1 becomes the one_of's p 0.48")) << imp.notes.size();
  EXPECT_TRUE(noted("read as fractions of the range"));
  EXPECT_TRUE(noted("Albumentations 2.x sizes the kernel from sigma its own way"));
  EXPECT_NO_THROW(Pipeline::parse(imp.pipeline.dump(), "real.json"));

  // 1.x: Affine with none of its five draws takes 1.x's defaults; SomeOf applies its picks surely;
  // from 1.4 ShiftScaleRotate draws the x and y scales apart (before, one scale).
  const auto v1 = [](const std::string& version, const std::string& transforms) {
    return import_albumentations(json::parse(R"({"__version__": ")" + version + R"(", "transform": {"__class_fullname__":
      "Compose", "p": 1.0, "transforms": [)" + transforms + "]}}"), "v1.json");
  };
  const Imported a = v1("1.3.1", R"({"__class_fullname__": "Affine", "p": 0.5},
      {"__class_fullname__": "SomeOf", "n": 1, "p": 1.0, "transforms": [{"__class_fullname__": "HorizontalFlip", "p": 0.2},
       {"__class_fullname__": "CoarseDropout", "p": 0.7}]},
      {"__class_fullname__": "ShiftScaleRotate", "scale_limit": 0.2, "p": 0.5})");
  const auto& s1 = a.pipeline["stages"];
  EXPECT_EQ(json::parse(s1[0].dump())["scale"], json::parse("[0.9, 1.1, 0.9, 1.1]")) << s1[0].dump();
  EXPECT_EQ(json::parse(s1[0].dump())["angle"], json::parse("[-15.0, 15.0]")) << s1[0].dump();
  EXPECT_FALSE(s1[1]["stages"][0].contains("p")) << s1[1].dump();
  EXPECT_EQ(s1[1]["stages"][1]["p"], 1) << s1[1].dump();
  EXPECT_EQ(json::parse(s1[2].dump())["scale"], json::parse("[0.8, 1.2]")) << s1[2].dump();
  const Imported b = v1("1.4.4", R"({"__class_fullname__": "ShiftScaleRotate", "scale_limit": 0.2, "p": 0.5})");
  EXPECT_EQ(json::parse(b.pipeline["stages"][0].dump())["scale"], json::parse("[0.8, 1.2, 0.8, 1.2]"));
}

TEST(ImportAlbumentations, RefusalsNameTheFileThePlaceAndTheReason) {
  EXPECT_EQ(import_error(R"({"version": 1, "stages": []})"),
            "a.json: not a pipeline saved by Albumentations (A.save / to_dict): no \"transform\"");
  EXPECT_EQ(import_error(compose(R"({"__class_fullname__": "Resize", "height": 8, "width": 8, "interpolation": 6})")),
            "a.json: transform/transforms/0: \"interpolation\" = 6 (cv2.INTER_NEAREST_EXACT or another) has no stage "
            "equivalent; use 0 to 5");
  EXPECT_EQ(import_error(compose(R"({"__class_fullname__": "Affine", "translate_percent": 0.1, "translate_px": 4})")),
            "a.json: transform/transforms/0: translate_percent and translate_px are both given");
  EXPECT_EQ(import_error(compose(R"({"__class_fullname__": "Rotate", "limit": "x"})")),
            "a.json: transform/transforms/0: \"limit\" must be a number or a pair of numbers, not \"x\"");
  EXPECT_EQ(import_error(compose(R"({"__class_fullname__": "FDA"}, {"__class_fullname__": "Fancy"})")),
            "a.json: 2 transform(s) augment does not have; replace or remove them and import again:\n"
            "  transform/transforms/0: FDA (no close stage: it needs other images (a reference set))\n"
            "  transform/transforms/1: Fancy (no close stage: not an Albumentations transform augment knows; a class "
            "of the pipeline's own code cannot be imported)");
  // A value out of a stage's range is caught when the imported pipeline is loaded.
  testing::TempDir dir;
  std::ofstream(dir / "big.json") << compose(R"({"__class_fullname__": "Rotate", "limit": 400, "p": 1.0})");
  const auto r = run_cli({"import", "albumentations", (dir / "big.json").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("big.json (imported):/stages/0/angle: rotate:"), std::string::npos) << r.err;
}

// What pipelines written for Albumentations 1.x use: ReplayCompose (at the top and inside), the
// removed transforms (Flip, Cutout, IAAAdditiveGaussianNoise, JpegCompression) and keypoint_params.
TEST(ImportAlbumentations, OldPipelinesImport) {
  const json saved = json::parse(R"({"__version__": "1.1.0", "transform": {
    "__class_fullname__": "albumentations.core.composition.ReplayCompose", "p": 1.0,
    "keypoint_params": {"format": "xy", "remove_invisible": true},
    "transforms": [
      {"__class_fullname__": "Flip", "p": 0.5},
      {"__class_fullname__": "ReplayCompose", "transforms": [
        {"__class_fullname__": "Cutout", "num_holes": 2, "max_h_size": 4, "max_w_size": 4, "p": 0.5},
        {"__class_fullname__": "IAAAdditiveGaussianNoise", "p": 0.2}]},
      {"__class_fullname__": "JpegCompression", "quality_lower": 80, "quality_upper": 95}]}})");
  const Imported imp = import_albumentations(saved, "old.json");
  const auto& st = imp.pipeline["stages"];
  ASSERT_EQ(st.size(), 3u) << imp.pipeline.dump();
  EXPECT_EQ(st[0]["stage"], "flip");
  EXPECT_EQ(st[1]["stage"], "sequence");
  EXPECT_FALSE(st[1].contains("p"));  // a composition runs surely unless it says otherwise
  EXPECT_EQ(st[1]["stages"][0]["stage"], "coarse_dropout");
  EXPECT_EQ(st[1]["stages"][1]["stage"], "gaussian_noise");
  EXPECT_EQ(st[2]["stage"], "jpeg");
  bool keypoints_noted = false;
  for (const std::string& n : imp.notes) keypoints_noted |= n.find("keypoint_params format \"xy\"") != std::string::npos;
  EXPECT_TRUE(keypoints_noted);
  EXPECT_NO_THROW(Pipeline::parse(imp.pipeline.dump(), "old.json"));
}

// OneOrOther: its two transforms with weights p and 1 - p, each applied surely (a stage whose own
// default p is below 1 gets p 1); from a saved file and from Python's first= / second=. 2.x's Pad
// and imgaug's flips.
TEST(ImportAlbumentations, OneOrOtherPadAndImgaugFlips) {
  const json saved = json::parse(R"({"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "p": 1.0,
    "transforms": [
      {"__class_fullname__": "OneOrOther", "p": 0.3, "transforms": [
        {"__class_fullname__": "GlassBlur", "p": 0.5}, {"__class_fullname__": "IAAFliplr", "p": 0.5}]},
      {"__class_fullname__": "OneOf", "p": 0.8, "transforms": [
        {"__class_fullname__": "GlassBlur", "p": 0.3}, {"__class_fullname__": "IAAFlipud", "p": 0.7}]},
      {"__class_fullname__": "Pad", "padding": [4, 8], "fill": 10, "border_mode": 0, "p": 1.0}]}})");
  const Imported imp = import_albumentations(saved, "oneorother.json");
  const auto& st = imp.pipeline["stages"];
  ASSERT_EQ(st.size(), 3u) << imp.pipeline.dump();
  EXPECT_EQ(json::parse(st[0].dump()), json::parse(R"({"stage": "one_of", "weights": [0.3, 0.7], "stages": [
      {"stage": "glass_blur", "sigma": 0.7, "max_delta": 4, "iterations": 2, "p": 1},
      {"stage": "flip", "direction": "horizontal"}]})"))
      << st[0].dump();
  // glass_blur's own default p is 0.5: once chosen it must still run surely.
  EXPECT_EQ(st[1]["stages"][0]["p"], 1) << st[1].dump();
  EXPECT_EQ(json::parse(st[1]["stages"][1].dump()), json::parse(R"({"stage": "flip", "direction": "vertical"})")) << st[1].dump();
  EXPECT_EQ(json::parse(st[2].dump()), json::parse(R"({"stage": "pad", "padding": [4, 8], "border": "constant", "fill": 10})"))
      << st[2].dump();
  EXPECT_NO_THROW(Pipeline::parse(imp.pipeline.dump(), "oneorother.json"));
  // The same written as Python, with first= and second=.
  testing::TempDir dir;
  testing::write_text(dir / "t.py",
                      "import albumentations as A\nt = A.Compose([A.OneOrOther(first=A.GlassBlur(p=1), "
                      "second=A.IAAFliplr(), p=0.3)])\n");
  const Imported py = import_albumentations_python((dir / "t.py").string(), "");
  EXPECT_EQ(py.pipeline["stages"][0], st[0]) << py.pipeline.dump();
}

// Affine's per-axis and asymmetric forms: a scale dict per axis, an asymmetric translate_percent,
// translate_px per axis; keep_ratio makes one scale; single numbers are fixed values.
TEST(ImportAlbumentations, AffinePerAxisScaleAndAsymmetricShifts) {
  const json saved = json::parse(R"({"__version__": "1.4.4", "transform": {"__class_fullname__": "Compose", "p": 1.0,
    "transforms": [
      {"__class_fullname__": "Affine", "scale": {"x": [0.8, 1.0], "y": [1.1, 1.3]}, "translate_percent": [-0.1, 0.2]},
      {"__class_fullname__": "Affine", "translate_px": {"x": [-8, 8], "y": [0, 4]}, "rotate": [-10, 10]},
      {"__class_fullname__": "Affine", "scale": {"x": [0.8, 1.0], "y": [1.1, 1.3]}, "keep_ratio": true},
      {"__class_fullname__": "Affine", "scale": 0.85, "rotate": 20, "shear": 0.05, "translate_percent": 0.1},
      {"__class_fullname__": "Affine", "translate_px": 10, "shear": {"x": 5}}]}})");
  const Imported imp = import_albumentations(saved, "affine.json");
  const auto& st = imp.pipeline["stages"];
  ASSERT_EQ(st.size(), 5u) << imp.pipeline.dump();
  EXPECT_EQ(st[0]["scale"], json::parse("[0.8, 1.0, 1.1, 1.3]")) << st[0].dump();
  EXPECT_EQ(st[0]["translate"], json::parse("[-0.1, 0.2, -0.1, 0.2]")) << st[0].dump();
  EXPECT_EQ(st[1]["translate_px"], json::parse("[-8, 8, 0, 4]")) << st[1].dump();
  EXPECT_FALSE(st[1].contains("translate")) << st[1].dump();
  EXPECT_EQ(st[2]["scale"], json::parse("[0.8, 1.0]")) << st[2].dump();
  // A number is that value for every image (Albumentations' to_tuple(v, v)), not a range around 0;
  // an axis a dict leaves out is 1 for shear, as Albumentations' code reads it.
  EXPECT_EQ(st[3]["scale"], json::parse("[0.85, 0.85]")) << st[3].dump();
  EXPECT_EQ(st[3]["angle"], 20.0) << st[3].dump();
  EXPECT_EQ(st[3]["shear"], json::parse("[0.05, 0.05, 0.05, 0.05]")) << st[3].dump();
  EXPECT_EQ(st[3]["translate"], json::parse("[0.1, 0.1, 0.1, 0.1]")) << st[3].dump();
  EXPECT_EQ(st[4]["translate_px"], json::parse("[10, 10, 10, 10]")) << st[4].dump();
  EXPECT_EQ(st[4]["shear"], json::parse("[5.0, 5.0, 1.0, 1.0]")) << st[4].dump();
  EXPECT_NO_THROW(Pipeline::parse(imp.pipeline.dump(), "affine.json"));
}

// The corpus of real training pipelines (tests/data/albumentations-corpus, with their sources):
// each imports and loads, or is refused with every transform augment lacks named by its place and
// its closest stage (or why there is none); never another error. The count that import is a floor
// (tests/data/albumentations-corpus/IMPORT.md has the list; measure_import.py regenerates it).
// The same pipeline written as a training script (NN_x.py) imports to the same stages, or is
// refused too.
TEST(ImportAlbumentations, RealPipelinesImportOrNameWhatTheyLack) {
  const fs::path dir = testing::source_dir() / "tests" / "data" / "albumentations-corpus";
  int files = 0, imported = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const std::string name = entry.path().filename().string();
    fs::path script = entry.path();
    script.replace_extension(".py");
    try {
      const Imported imp = import_albumentations_file(entry.path().string());
      EXPECT_FALSE(imp.pipeline["stages"].empty()) << name;
      ++imported;
      const Imported py = import_albumentations_python(script.string(), "");
      EXPECT_EQ(py.pipeline["stages"], imp.pipeline["stages"]) << script;
      EXPECT_EQ(py.pipeline.value("labels", json()), imp.pipeline.value("labels", json())) << script;
    } catch (const PipelineError& e) {
      EXPECT_THROW(import_albumentations_python(script.string(), ""), PipelineError) << script;
      const std::string what = e.what();
      EXPECT_NE(what.find("transform(s) augment does not have"), std::string::npos) << name << ": " << what;
      std::size_t lines = 0;
      for (std::size_t at = what.find("\n  "); at != std::string::npos; at = what.find("\n  ", at + 1)) {
        ++lines;
        const std::size_t end = what.find('\n', at + 1);
        const std::string line = what.substr(at + 3, end == std::string::npos ? std::string::npos : end - at - 3);
        EXPECT_TRUE(line.find("(closest stage: ") != std::string::npos || line.find("(no close stage") != std::string::npos)
            << name << ": " << line;
      }
      EXPECT_GT(lines, 0u) << name;
    }
  }
  EXPECT_GE(files, 40);
  EXPECT_GE(imported, 40) << "of " << files;
}

}  // namespace
}  // namespace aug::test_import
