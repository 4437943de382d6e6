// `augment import albumentations train.py` and `augment import torchvision train.py`: training
// scripts in tests/data/python/ (classification and detection, as people write them) imported by
// the CLI and compared with the expected pipelines; the A.save JSON of the same pipeline; several
// pipelines in one file and --name; the refusals, each with its file:line:col.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "lib/core/error.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/pipeline/python_import.hpp"
#include "lib/stages/stage.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_import_python {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_cli;

std::string script(const char* name) { return (testing::source_dir() / "tests/data/python" / name).string(); }

// Imports with the CLI; the pipeline written to -o and stderr.
std::pair<json, std::string> import_cli(const std::vector<std::string>& args) {
  testing::TempDir dir;
  const fs::path out = dir / "out.json";
  std::vector<std::string> a = {"import"};
  a.insert(a.end(), args.begin(), args.end());
  a.insert(a.end(), {"-o", out.string()});
  const auto r = run_cli(a);
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return {json(), r.err};
  return {json::parse(testing::read_text(out)), r.err};
}

bool has_line(const std::string& text, const std::string& line) { return text.find(line) != std::string::npos; }

TEST(ImportPython, AlbumentationsClassificationScript) {
  const std::string file = script("classification_train.py");
  const auto [p, err] = import_cli({"albumentations", file, "--name", "get_train_transforms"});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"random_resized_crop","size":[224,224],"scale":[0.08,1.0],"ratio":[0.75,1.3333333333333333],
     "interpolation":"bilinear"},
    {"stage":"flip","direction":"horizontal","p":0.5},
    {"stage":"affine","angle":[-15.0,15.0],"translate":[0.0625,0.0625],"round_translate":false,"scale":[0.9,1.1],"interpolation":"bilinear",
     "border":"reflect101","p":0.5},
    {"stage":"one_of","p":0.2,"stages":[
      {"stage":"motion_blur","kernel_size":[3,5],"p":1},
      {"stage":"median_blur","kernel_size":[3,5],"p":1},
      {"stage":"gaussian_blur","sigma":[0.8,1.4]}]},
    {"stage":"hue_saturation_value","hue_shift":[-10.0,10.0],"sat_shift":[-15.0,15.0],"val_shift":[-10.0,10.0],"p":0.3},
    {"stage":"coarse_dropout","num_holes":[8,8],"hole_height":[16.0,16.0],"hole_width":[16.0,16.0],"p":0.3}
  ])")) << p.dump();
  EXPECT_FALSE(p.contains("labels"));
  EXPECT_EQ(p["description"],
            "Imported from " + file + " (get_train_transforms(), line 28; Albumentations 1.x) by augment import albumentations.");
  // The parameter's default, the positional reading, the left-out transforms: each at its place.
  for (const std::string& line :
       {file + ":27:26: size is a parameter of get_train_transforms(); its default 224 is used",
        file + ":30:13: A.RandomResizedCrop(...): positional arguments read as Albumentations 1.x's (height, width); "
               "they do not fit 2.x's (size, scale)",
        file + ":42:13: Normalize left out", file + ":43:13: ToTensorV2 left out"})
    EXPECT_TRUE(has_line(err, line)) << line << "\n" << err;
}

// The same pipeline as A.save writes it (every default spelled out) imports to the same stages:
// the keys both write agree, and the plans of both pipelines agree draw for draw.
TEST(ImportPython, SavedJsonOfTheSamePipelineImportsTheSame) {
  const auto [from_py, e1] = import_cli({"albumentations", script("classification_train.py"), "--name", "get_train_transforms"});
  const auto [from_json, e2] = import_cli({"albumentations", script("classification_train.json")});
  ASSERT_EQ(from_py["stages"].size(), from_json["stages"].size());
  std::function<void(const json&, const json&)> same = [&](const json& a, const json& b) {
    for (const auto& [k, v] : a.items()) {
      ASSERT_TRUE(b.contains(k)) << k << " in " << a.dump() << " but not in " << b.dump();
      if (k == "stages")
        for (std::size_t i = 0; i < v.size(); ++i) same(v[i], b[k][i]);
      else EXPECT_EQ(v, b[k]) << k;
    }
  };
  for (std::size_t i = 0; i < from_py["stages"].size(); ++i) same(from_py["stages"][i], from_json["stages"][i]);
  const Pipeline a = Pipeline::parse(from_py.dump(), "py"), b = Pipeline::parse(from_json.dump(), "json");
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    const Shape in{320, 240, 3, DType::U8};
    EXPECT_EQ(a.plan(seed, "x.jpg", 0, in).record, b.plan(seed, "x.jpg", 0, in).record) << seed;
  }
}

TEST(ImportPython, SeveralPipelinesAreListedAndNamePicksOne) {
  const std::string file = script("classification_train.py");
  const auto r = run_cli({"import", "albumentations", file});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(has_line(r.err, file + ": 2 albumentations pipelines; pick one with --name (a name or a line):\n  " + file +
                                  ":28:12  get_train_transforms()\n  " + file + ":49:12  get_valid_transforms()"))
      << r.err;
  const auto [valid, err] = import_cli({"albumentations", file, "--name", "get_valid_transforms"});
  EXPECT_EQ(valid["stages"], json::parse(R"([{"stage":"resize","size":[224,224],"interpolation":"bilinear"}])"));
  const auto [by_line, err2] = import_cli({"albumentations", file, "--name", "49"});
  EXPECT_EQ(by_line["stages"], valid["stages"]);
  const auto none = run_cli({"import", "albumentations", file, "--name", "get_test_transforms"});
  EXPECT_EQ(none.code, 1);
  EXPECT_TRUE(has_line(none.err, file + ": no albumentations pipeline named get_test_transforms; the file has:")) << none.err;
  // Pipelines in a dict are named by the variable and the key.
  const std::string det = script("detection_train.py");
  const auto listed = run_cli({"import", "albumentations", det});
  EXPECT_TRUE(has_line(listed.err, "  " + det + ":21:14  transforms[\"train\"]\n  " + det + ":35:12  transforms[\"val\"]"))
      << listed.err;
  // A file with the other library's pipelines says so.
  const auto other = run_cli({"import", "albumentations", script("torchvision_detection_train.py")});
  EXPECT_TRUE(has_line(other.err, "no albumentations Compose(...) in this file (it has torchvision pipelines: augment "
                                  "import torchvision"))
      << other.err;
}

TEST(ImportPython, AlbumentationsDetectionScript) {
  const std::string file = script("detection_train.py");
  const auto [p, err] = import_cli({"albumentations", file, "--name", "train"});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"resize","long_side":640,"interpolation":"bilinear"},
    {"stage":"pad","min_size":[640,640],"position":"center","border":"constant","fill":[114,114,114]},
    {"stage":"affine","scale":[0.75,1.25,0.75,1.25],"translate":[0.1,0.1],"round_translate":false,"angle":[-10.0,10.0],"shear":[-5.0,5.0,0.0,0.0],
     "interpolation":"bilinear","border":"constant","fill":114,"p":0.5},
    {"stage":"flip","direction":"horizontal","p":0.5},
    {"stage":"one_of","p":0.8,"stages":[
      {"stage":"hue_saturation_value","hue_shift":[-8.0,8.0],"sat_shift":[-40.0,40.0],"val_shift":[-30.0,30.0],"p":1},
      {"stage":"brightness_contrast","brightness":[-0.2,0.2],"contrast":[-0.2,0.2],"brightness_by_max":true,
       "ensure_safe_range":false,"p":1}]},
    {"stage":"grayscale","method":"opencv","p":0.01},
    {"stage":"jpeg","quality":[75,100],"p":0.3}
  ])")) << p.dump();
  EXPECT_EQ(p["labels"], json::parse(R"({"min_area":16.0,"min_visibility":0.3,"min_size":[2.0,2.0]})"));
  EXPECT_TRUE(has_line(err, "pass --labels voc to augment run")) << err;
  EXPECT_TRUE(has_line(p["description"].get<std::string>(), "Albumentations 2.x")) << p["description"];
}

TEST(ImportPython, TorchvisionClassificationScript) {
  const std::string file = script("torchvision_classification_train.py");
  const auto [p, err] = import_cli({"torchvision", file, "--name", "14"});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"random_resized_crop","size":[224,224],"interpolation":"bicubic"},
    {"stage":"flip","direction":"horizontal","p":0.5},
    {"stage":"sequence","p":0.8,"stages":[
      {"stage":"color_jitter","brightness":0.4,"contrast":0.4,"saturation":0.4,"hue":0.1}]},
    {"stage":"grayscale","p":0.2},
    {"stage":"one_of","stages":[
      {"stage":"rotate","angle":[-15.0,15.0],"interpolation":"nearest"},
      {"stage":"affine","translate":[0.1,0.1],"interpolation":"nearest"}]},
    {"stage":"trivial_augment","interpolation":"bilinear"},
    {"stage":"random_erasing","random":true,"p":0.25}
  ])")) << p.dump();
  for (const std::string& line : {file + ":12:35: hflip_prob is a parameter of build_transforms(); its default 0.5 is used",
                                  file + ":21:13: transforms.ToTensor left out", file + ":22:13: transforms.Normalize left out"})
    EXPECT_TRUE(has_line(err, line)) << line << "\n" << err;
  const auto [eval, err2] = import_cli({"torchvision", file, "--name", "25"});
  EXPECT_EQ(eval["stages"], json::parse(R"([{"stage":"resize","short_side":256,"interpolation":"bilinear"},
                                             {"stage":"crop","size":[224,224],"position":"center"}])"));
}

TEST(ImportPython, TorchvisionDetectionScript) {
  const std::string file = script("torchvision_detection_train.py");
  const auto [p, err] = import_cli({"torchvision", file, "--name", "train_transforms"});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"resize","size":[640,480],"interpolation":"bilinear"},
    {"stage":"flip","direction":"horizontal","p":0.5},
    {"stage":"affine","angle":[-5.0,5.0],"translate":[0.05,0.05],"scale":[0.9,1.1],"interpolation":"nearest","fill":114},
    {"stage":"color_jitter","brightness":0.2,"contrast":0.2,"saturation":0.2,"hue":0.02},
    {"stage":"perspective","distortion_scale":0.2,"interpolation":"bilinear","p":0.3},
    {"stage":"gaussian_blur","kernel_size":5,"sigma":[0.1,1.5]},
    {"stage":"jpeg","quality":[70,95]}
  ])")) << p.dump();
  EXPECT_TRUE(has_line(err, file + ":20:13: T.SanitizeBoundingBoxes left out: augment drops the boxes")) << err;
  // The tutorial's pipeline: RandomPhotometricDistort as a sequence of its parts.
  const auto [t, terr] = import_cli({"torchvision", file, "--name", "tutorial"});
  ASSERT_EQ(t["stages"].size(), 4u) << t.dump();
  EXPECT_EQ(t["stages"][0]["stage"], "sequence");
  EXPECT_EQ(t["stages"][1]["stage"], "zoom_out");
  EXPECT_EQ(t["stages"][2], json::parse(R"({"stage":"iou_crop"})"));
  EXPECT_EQ(t["stages"][3], json::parse(R"({"stage":"flip","direction":"horizontal"})"));
  EXPECT_TRUE(has_line(terr, file + ":29:5: T.RandomPhotometricDistort: its parts as a sequence of color_jitter and "
                                    "channel_shuffle stages"))
      << terr;
}

// The SSD pair: RandomZoomOut (a fill per type gives the image's) and RandomIoUCrop.
TEST(ImportPython, TorchvisionZoomOutAndIoUCrop) {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << "import torchvision.transforms.v2 as T\n"
                         "train = T.Compose([\n"
                         "    T.RandomZoomOut(fill={'image': (124, 116, 104), 'mask': 255}, side_range=(1.0, 2.5)),\n"
                         "    T.RandomIoUCrop(min_scale=0.5, trials=20),\n"
                         "    T.RandomZoomOut(0, (1, 3), 0.25),\n"
                         "])\n";
  const auto [p, err] = import_cli({"torchvision", file.string()});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"zoom_out","side_range":[1.0,2.5],"fill":[124,116,104],"p":0.5},
    {"stage":"iou_crop","min_scale":0.5,"trials":20},
    {"stage":"zoom_out","side_range":[1,3],"fill":0,"p":0.25}
  ])")) << p.dump();
  EXPECT_TRUE(has_line(err, file.string() + ":3:5: T.RandomZoomOut: fill per type: the image's is taken; masks get "
                                            "the pipeline's labels block mask_fill"))
      << err;
  // The imported pipeline loads.
  EXPECT_NO_THROW(Pipeline::parse(p.dump(), "imported.json"));
}

// A script written into a temporary folder, imported; the CLI's error line.
std::string refusal(const std::string& library, const std::string& text, const std::string& name = "") {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << text;
  std::vector<std::string> args = {"import", library, file.string()};
  if (!name.empty()) args.insert(args.end(), {"--name", name});
  const auto r = run_cli(args);
  EXPECT_EQ(r.code, 1) << r.out;
  std::string err = r.err;
  const std::string prefix = "augment: error: " + file.string();
  const auto at = err.find(prefix);
  if (at == std::string::npos) return err;
  err = "train.py" + err.substr(at + prefix.size());
  while (!err.empty() && err.back() == '\n') err.pop_back();
  return err;
}

// torchvision's detection recipe as its reference scripts write it: RandomPhotometricDistort as a
// sequence of its parts, a fill per type given by tv_tensors types or a defaultdict with a default.
TEST(ImportPython, TorchvisionDetectionRecipeFillsPerTypeAndPhotometricDistort) {
  testing::TempDir dir;
  const fs::path file = dir / "presets.py";
  std::ofstream(file) << "from collections import defaultdict\n"
                         "import torch\n"
                         "import torchvision.transforms.v2 as T\n"
                         "from torchvision import tv_tensors\n"
                         "mean = (123.0, 117.0, 104.0)\n"
                         "a = T.Compose([T.RandomPhotometricDistort(p=1), T.RandomZoomOut(fill=defaultdict(lambda: mean, "
                         "{tv_tensors.Mask: 0})), T.RandomIoUCrop(), T.RandomHorizontalFlip(p=0.5)])\n"
                         "b = T.Compose([T.RandomZoomOut(fill={tv_tensors.Image: (1, 2, 3), 'others': 0}), "
                         "T.RandomPhotometricDistort(contrast=(0.8, 1.2))])\n";
  auto [p, err] = import_cli({"torchvision", file.string(), "--name", "a"});
  const json part = json::parse(R"([
    {"stage":"color_jitter","brightness":[0.875,1.125],"p":1.0},
    {"stage":"one_of","stages":[
      {"stage":"sequence","stages":[{"stage":"color_jitter","contrast":[0.5,1.5],"p":1.0},
                                    {"stage":"color_jitter","saturation":[0.5,1.5],"p":1.0},
                                    {"stage":"color_jitter","hue":[-0.05,0.05],"p":1.0}]},
      {"stage":"sequence","stages":[{"stage":"color_jitter","saturation":[0.5,1.5],"p":1.0},
                                    {"stage":"color_jitter","hue":[-0.05,0.05],"p":1.0},
                                    {"stage":"color_jitter","contrast":[0.5,1.5],"p":1.0}]}]},
    {"stage":"channel_shuffle","p":1.0}])");
  EXPECT_EQ(p["stages"][0], (json{{"stage", "sequence"}, {"stages", part}})) << p.dump();
  EXPECT_EQ(p["stages"][1], json::parse(R"({"stage":"zoom_out","fill":[123.0,117.0,104.0],"p":0.5})")) << p.dump();
  EXPECT_EQ(p["stages"][2], json::parse(R"({"stage":"iou_crop"})"));
  EXPECT_NO_THROW(Pipeline::parse(p.dump(), "imported.json"));
  std::tie(p, err) = import_cli({"torchvision", file.string(), "--name", "b"});
  EXPECT_EQ(p["stages"][0]["fill"], json::parse("[1,2,3]")) << p.dump();
  // The default p (0.5) goes to each part, the range given to its part.
  const json& parts = p["stages"][1]["stages"];
  EXPECT_EQ(parts[0]["p"], 0.5) << p.dump();
  EXPECT_EQ(parts[1]["stages"][0]["stages"][0], json::parse(R"({"stage":"color_jitter","contrast":[0.8,1.2],"p":0.5})"));
  EXPECT_EQ(parts[2], json::parse(R"({"stage":"channel_shuffle","p":0.5})"));
  EXPECT_NO_THROW(Pipeline::parse(p.dump(), "imported.json"));
}

// Python's built-in functions of literals, as settings are written with them.
TEST(ImportPython, BuiltinFunctionsOfLiteralsAreEvaluated) {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << "import albumentations as A\n"
                         "IMG = 224\nSIZES = [256, 320]\n"
                         "tf = A.Compose([A.Resize(int(IMG * 1.14), round(IMG / 0.875)), A.RandomCrop(min(SIZES), "
                         "max(200, 100)),\n"
                         "    A.Rotate(limit=round(12.5), p=float(1)), A.Rotate(limit=round(13.5)), A.Rotate(limit=abs(-3)),\n"
                         "    A.RandomResizedCrop(IMG, IMG, scale=tuple([0.5, 1.0]), ratio=list((0.75, 1.25)))])\n";
  const auto [p, err] = import_cli({"albumentations", file.string()});
  const json& s = p["stages"];
  EXPECT_EQ(s[0]["size"], json::parse("[256,255]")) << p.dump();  // int truncates, round(256.0) is 256
  EXPECT_EQ(s[1]["size"], json::parse("[200,256]")) << p.dump();
  EXPECT_EQ(s[2]["angle"], json::parse("[-12.0,12.0]")) << p.dump();  // half to even
  EXPECT_EQ(s[3]["angle"], json::parse("[-14.0,14.0]")) << p.dump();
  EXPECT_EQ(s[4]["angle"], json::parse("[-3.0,3.0]")) << p.dump();
  EXPECT_EQ(s[5]["scale"], json::parse("[0.5,1.0]")) << p.dump();
  EXPECT_EQ(s[5]["ratio"], json::parse("[0.75,1.25]")) << p.dump();
  EXPECT_EQ(refusal("albumentations", "import albumentations as A\ntf = A.Compose([A.Resize(int('224'), 8)])\n"),
            "train.py:2:26: int(...): only numbers are read as its arguments");
}

// A single number where Albumentations' constructor reads it as a fixed value, not a range from 0.
TEST(ImportPython, SingleNumbersThatAreFixedValues) {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << "import albumentations as A\n"
                         "tf = A.Compose([A.Posterize(num_bits=4, p=1), A.Solarize(threshold=100), "
                         "A.ZoomBlur(max_factor=1.2, step_factor=0.02), A.MultiplicativeNoise(multiplier=1.2)])\n";
  const auto [p, err] = import_cli({"albumentations", file.string()});
  const json& s = p["stages"];
  EXPECT_EQ(s[0]["bits"], 4) << p.dump();
  EXPECT_EQ(s[1]["threshold"], 100 / 255.0) << p.dump();
  EXPECT_EQ(s[2]["step_factor"], 0.02) << p.dump();
  EXPECT_EQ(s[2]["max_factor"], json::parse("[1.0,1.2]")) << p.dump();
  EXPECT_EQ(s[3]["multiplier"], json::parse("[1.2,1.2]")) << p.dump();
  EXPECT_EQ(refusal("albumentations", "import albumentations as A\ntf = A.Compose([A.Posterize(num_bits=[3, 4, 5])])\n"),
            "train.py:2:17: num_bits per channel ([3,4,5]) has no equivalent: posterize keeps the same bits in every "
            "channel; give one number or one range");
}

// LongestMaxSize / SmallestMaxSize: a list of max_size values (one drawn per image) and 2.x's
// max_size_hw.
TEST(ImportPython, MaxSizeListsAndMaxSizeHw) {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << "import albumentations as A\n"
                         "tf = A.Compose([A.SmallestMaxSize(max_size=[480, 512]), A.LongestMaxSize(max_size_hw=(640, 640)),"
                         " A.LongestMaxSize(max_size=[800])])\n";
  const auto [p, err] = import_cli({"albumentations", file.string()});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"one_of","stages":[{"stage":"resize","short_side":480,"interpolation":"bilinear"},
                                {"stage":"resize","short_side":512,"interpolation":"bilinear"}]},
    {"stage":"resize","long_side":640,"interpolation":"bilinear"},
    {"stage":"resize","long_side":800,"interpolation":"bilinear"}
  ])")) << p.dump();
  EXPECT_NO_THROW(Pipeline::parse(p.dump(), "imported.json"));
  EXPECT_EQ(refusal("albumentations", "import albumentations as A\ntf = A.Compose([A.LongestMaxSize(max_size_hw=(480, 640))])\n"),
            "train.py:2:17: max_size_hw [480,640] with height and width different has no stage equivalent (resize "
            "sets a long or a short side, not a box to fit); give max_size, or max_size_hw with two equal values");
}

// torchvision's detection and segmentation references: the multi-scale and large-scale-jitter recipes,
// RandomResize, and Resize's max_size (the longer side's cap, on the resize stage).
TEST(ImportPython, TorchvisionReferenceResizesAndFixedSizeCrop) {
  testing::TempDir dir;
  const fs::path file = dir / "presets.py";
  std::ofstream(file) << "import torchvision.transforms.v2 as T\n"
                         "multiscale = T.Compose([T.RandomShortestSize(min_size=(480, 800), max_size=1333)])\n"
                         "lsj = T.Compose([T.ScaleJitter(target_size=(1024, 1024)), T.FixedSizeCrop(size=(1024, 1024), "
                         "fill=(1, 2, 3))])\n"
                         "seg = T.Compose([T.RandomResize(min_size=260, max_size=1041)])\n"
                         "val = T.Compose([T.Resize(800, max_size=1333)])\n"
                         "bad = T.Compose([T.ScaleJitter(target_size=(512, 1024))])\n";
  auto [p, err] = import_cli({"torchvision", file.string(), "--name", "multiscale"});
  EXPECT_EQ(p["stages"], json::parse(R"([{"stage":"one_of","stages":[
    {"stage":"resize","short_side":480,"max_size":1333,"interpolation":"bilinear"},
    {"stage":"resize","short_side":800,"max_size":1333,"interpolation":"bilinear"}]}])")) << p.dump();
  std::tie(p, err) = import_cli({"torchvision", file.string(), "--name", "lsj"});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"resize","long_side":[102,2048],"interpolation":"bilinear"},
    {"stage":"sequence","stages":[
      {"stage":"pad","min_size":[1024,1024],"position":"top-left","border":"constant","fill":[1,2,3]},
      {"stage":"crop","size":[1024,1024],"position":"random"}]}])")) << p.dump();
  EXPECT_NO_THROW(Pipeline::parse(p.dump(), "imported.json"));
  std::tie(p, err) = import_cli({"torchvision", file.string(), "--name", "seg"});
  EXPECT_EQ(p["stages"], json::parse(R"([{"stage":"resize","short_side":[260,1040],"interpolation":"bilinear"}])"));
  std::tie(p, err) = import_cli({"torchvision", file.string(), "--name", "val"});
  EXPECT_EQ(p["stages"], json::parse(R"([{"stage":"resize","short_side":800,"max_size":1333,"interpolation":"bilinear"}])"));
  // max_size caps the longer side, the shorter one following (rounded half to even); below the cap
  // short_side alone decides.
  const Pipeline val = Pipeline::parse(p.dump(), "val.json");
  EXPECT_EQ(val.plan(0, "a.jpg", 0, Shape{3000, 1000, 3, DType::U8}).out, (Shape{1333, 444, 3, DType::U8}));
  EXPECT_EQ(val.plan(0, "a.jpg", 0, Shape{1000, 3000, 3, DType::U8}).out, (Shape{444, 1333, 3, DType::U8}));
  EXPECT_EQ(val.plan(0, "a.jpg", 0, Shape{640, 427, 3, DType::U8}).out, (Shape{1199, 800, 3, DType::U8}));
  EXPECT_EQ(refusal("torchvision", testing::read_text(file), "bad"),
            "train.py:6:44: T.ScaleJitter(...): target_size with height and width different has no stage equivalent "
            "(resize sets a long or a short side, not a box to fit); give a square size, not (512, 1024)");
}

// x if COND else y where COND is a literal setting (or == / != of literals): the branch it picks; the
// other is not read. A condition known only when the code runs is refused at its place.
TEST(ImportPython, ConditionalExpressionsWithLiteralConditions) {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << "import albumentations as A\n"
                         "AUG = False\ncfg = {'strong': 1}\n"
                         "def get(mode='train'):\n"
                         "    return A.Compose([A.HorizontalFlip() if mode == 'train' else A.NoOp(), A.Blur() if mode != "
                         "'train' else A.VerticalFlip()])\n"
                         "a = A.Compose([A.Blur() if AUG else A.Resize(8, 8), A.ToSepia() if cfg['strong'] else "
                         "A.Lambda(image=f), A.Rotate(limit=30 if AUG else 10)])\n";
  auto [p, err] = import_cli({"albumentations", file.string(), "--name", "get"});
  EXPECT_EQ(p["stages"], json::parse(R"([{"stage":"flip","direction":"horizontal","p":0.5},
                                         {"stage":"flip","direction":"vertical","p":0.5}])")) << p.dump();
  std::tie(p, err) = import_cli({"albumentations", file.string(), "--name", "a"});
  ASSERT_EQ(p["stages"].size(), 3u) << p.dump();
  EXPECT_EQ(p["stages"][0]["stage"], "resize");
  EXPECT_EQ(p["stages"][1]["stage"], "sepia");  // the Lambda in the branch not taken is not read
  EXPECT_EQ(p["stages"][2]["angle"], json::parse("[-10.0,10.0]"));
  EXPECT_EQ(refusal("albumentations", "import albumentations as A\nimport sys\n"
                                      "tf = A.Compose([A.Blur() if sys.argv else A.NoOp()])\n"),
            "train.py:3:26: a conditional expression (x if c else y) whose condition is not a literal: its value is "
            "known only when the code runs");
}

// PadIfNeeded to a divisor (segmentation pipelines pad to a multiple of 32).
TEST(ImportPython, PadIfNeededToADivisor) {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << "import albumentations as A\nimport cv2\n"
                         "tf = A.Compose([A.PadIfNeeded(min_height=None, min_width=None, pad_height_divisor=32, "
                         "pad_width_divisor=32, border_mode=cv2.BORDER_CONSTANT, value=0)])\n";
  const auto [p, err] = import_cli({"albumentations", file.string()});
  EXPECT_EQ(p["stages"], json::parse(R"([{"stage":"pad","divisor":[32,32],"position":"center","border":"constant","fill":0}])"))
      << p.dump();
  EXPECT_EQ(refusal("albumentations", "import albumentations as A\ntf = A.Compose([A.PadIfNeeded(min_height=None, "
                                      "min_width=64, pad_height_divisor=32)])\n"),
            "train.py:2:17: a divisor on one side and a minimum size on the other has no stage equivalent; give both "
            "divisors (min_height and min_width None) or both minimum sizes");
}

// RandomOrder (both libraries) draws its picks' order; Albumentations' Erasing draws its own way;
// torchvision's batch MixUp and CutMix become the partner stages, with what differs said.
TEST(ImportPython, RandomOrderErasingMixUpAndCutMix) {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << "import albumentations as A\n"
                         "tf = A.Compose([A.Erasing(scale=(0.05, 0.2), ratio=(0.5, 2), fill=(255, 0, 51), p=1),\n"
                         "    A.RandomOrder([A.HorizontalFlip(), A.VerticalFlip(p=1)], n=2),\n"
                         "    A.SomeOf([A.HorizontalFlip(), A.Transpose()], n=3)])\n";
  const auto [p, err] = import_cli({"albumentations", file.string()});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"random_erasing","sampling":"albumentations","scale":[0.05,0.2],"ratio":[0.5,2.0],"value":[1.0,0.0,0.2],"p":1.0},
    {"stage":"some_of","n":2,"random_order":true,"stages":[{"stage":"flip","direction":"horizontal","p":0.5},
                                                          {"stage":"flip","direction":"vertical"}]},
    {"stage":"some_of","n":2,"stages":[{"stage":"flip","direction":"horizontal","p":0.5},
                                       {"stage":"rotate90","k":0,"transpose":true,"p":0.5}]}
  ])")) << p.dump();
  EXPECT_TRUE(has_line(err, "SomeOf: n = 3 exceeds its 2 transforms; all of them are applied")) << err;

  const fs::path tv = dir / "tv.py";
  std::ofstream(tv) << "from torchvision.transforms import v2\n"
                       "t = v2.Compose([v2.RandomOrder([v2.RandomHorizontalFlip(), v2.RandomGrayscale()]),\n"
                       "                v2.MixUp(alpha=0.4, num_classes=10), v2.CutMix(num_classes=10)])\n";
  const auto [q, e2] = import_cli({"torchvision", tv.string()});
  EXPECT_EQ(q["stages"], json::parse(R"([
    {"stage":"some_of","n":2,"random_order":true,"stages":[{"stage":"flip","direction":"horizontal","p":0.5},
                                                          {"stage":"grayscale","p":0.1}]},
    {"stage":"mixup","alpha":0.4,"p":1.0},
    {"stage":"cutmix","alpha":1.0,"p":1.0}
  ])")) << q.dump();
  EXPECT_TRUE(has_line(e2, "tv.py:3:17: v2.MixUp: the partner is drawn from the run's inputs instead of the batch"))
      << e2;
}

// Morphological's scale is the element's (width, height) as OpenCV reads it: kept in that order.
TEST(ImportPython, MorphologicalScaleIsTheElementsWidthAndHeight) {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << "import albumentations as A\n"
                         "tf = A.Compose([A.Morphological(scale=(5, 3), operation='erosion', p=1),\n"
                         "                A.Morphological(3), A.Morphological()])\n";
  const auto [p, err] = import_cli({"albumentations", file.string()});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"morphological","kernel_size":[5,3],"operation":"erosion","p":1.0},
    {"stage":"morphological","kernel_size":3,"p":0.5},
    {"stage":"morphological","p":0.5}
  ])")) << p.dump();
  EXPECT_EQ(refusal("albumentations", "import albumentations as A\ntf = A.Compose([A.Morphological(operation='open')])\n"),
            "train.py:2:17: operation \"open\" is not dilation or erosion");
}

// PlanckianJitter imports with Albumentations' own temperature draws (1.x's temperature_limit too).
TEST(ImportPython, PlanckianJitterDrawsAlbumentationsTemperatures) {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << "import albumentations as A\n"
                         "tf = A.Compose([A.PlanckianJitter(mode='cied', temperature_range=(4500, 9000),\n"
                         "                                  sampling_method='gaussian', p=0.3), A.PlanckianJitter()])\n";
  const auto [p, err] = import_cli({"albumentations", file.string()});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"planckian_jitter","method":"albumentations","mode":"CIED","temperature_range":[4500.0,9000.0],
     "sampling_method":"gaussian","p":0.3},
    {"stage":"planckian_jitter","method":"albumentations","p":0.5}
  ])")) << p.dump();
  const fs::path old = dir / "old.py";
  std::ofstream(old) << "import albumentations as A\n"
                        "tf = A.Compose([A.PlanckianJitter(temperature_limit=(3000, 8000), always_apply=False)])\n";
  const auto [q, e2] = import_cli({"albumentations", old.string()});
  EXPECT_EQ(q["stages"][0]["temperature_range"], json::parse("[3000.0, 8000.0]")) << q.dump();
}

TEST(ImportPython, RandomGridShuffleKeepsRowsAndColumns) {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << "import albumentations as A\n"
                         "tf = A.Compose([A.RandomGridShuffle(grid=(2, 4), p=0.3), A.RandomGridShuffle()])\n";
  const auto [p, err] = import_cli({"albumentations", file.string()});
  EXPECT_EQ(p["stages"], json::parse(R"([{"stage":"grid_shuffle","grid":[2,4],"p":0.3},{"stage":"grid_shuffle","p":0.5}])"))
      << p.dump();
}

// RingingOvershoot's blur_limit through randrange(lo, hi + 1, 2) (+1 when even, 2.x): odd sizes.
TEST(ImportPython, RingingOvershootSizesAreTheOddOnesDrawn) {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << "import albumentations as A\nimport numpy as np\n"
                         "tf = A.Compose([A.RingingOvershoot(blur_limit=(6, 14), cutoff=(0.5, 1.0), p=1),\n"
                         "                A.RingingOvershoot(blur_limit=(5, 12)), A.RingingOvershoot()])\n";
  const auto [p, err] = import_cli({"albumentations", file.string()});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"ringing_overshoot","kernel_size":[7,15],"cutoff":[0.5,1.0],"p":1.0},
    {"stage":"ringing_overshoot","kernel_size":[5,11],"p":0.5},
    {"stage":"ringing_overshoot","p":0.5}
  ])")) << p.dump();
}

// XYMasking's numbers are ranges from 0 (Albumentations' to_tuple(n, 0)).
TEST(ImportPython, XYMaskingNumbersAreRangesFromZero) {
  testing::TempDir dir;
  const fs::path file = dir / "train.py";
  std::ofstream(file) << "import albumentations as A\n"
                         "tf = A.Compose([A.XYMasking(num_masks_x=(1, 3), num_masks_y=2, mask_x_length=(10, 20),\n"
                         "                            mask_y_length=8, fill=255, p=1), A.ToRGB()])\n";
  const auto [p, err] = import_cli({"albumentations", file.string()});
  EXPECT_EQ(p["stages"], json::parse(R"([{"stage":"xy_masking","num_masks_x":[1,3],"num_masks_y":[0,2],
    "mask_x_length":[10,20],"mask_y_length":[0,8],"fill":1.0,"p":1.0},{"stage":"to_rgb"}])"))
      << p.dump();
}

TEST(ImportPython, RefusalsNameFileLineAndColumn) {
  const std::string head = "import albumentations as A\nimport cv2\n";
  EXPECT_EQ(refusal("albumentations", head + "def size():\n    return 224\ntf = A.Compose([A.Resize(size(), 224)])\n"),
            "train.py:5:26: size(...): a call to a function that is not a transform; only literals and transforms are read");
  EXPECT_EQ(refusal("albumentations", head +
                                          "class Data:\n    def __init__(self, size):\n        self.size = size\n"
                                          "        self.tf = A.Compose([A.Resize(self.size, self.size)])\n"),
            "train.py:6:39: self.size: an attribute of self, known only when the code runs; only literals are read");
  EXPECT_EQ(refusal("albumentations", head + "N = 'x'\ntf = A.Compose([A.Resize(8, 8), A.Blur(blur_limit=f\"r_{N}\")])\n"),
            "train.py:4:51: an f-string: its value is known only when the code runs; write the string out");
  EXPECT_EQ(refusal("albumentations", head + "tf = A.Compose([A.Resize(s, s) for s in (224, 256)])\n"),
            "train.py:3:16: a list comprehension: its value is known only when the code runs; write the items out");
  EXPECT_EQ(refusal("albumentations", head + "tf = A.Compose([\n    A.HorizontalFlip(True, 0.5, 3)])\n"),
            "train.py:4:33: A.HorizontalFlip(...): positional argument 3 (3) is one too many: Albumentations 1.x takes "
            "(always_apply, p); 2.x takes (p)");
  EXPECT_EQ(refusal("albumentations", head + "tf = A.Compose([A.Resize(224, 224, 1, False, 1.0, 7)])\n"),
            "train.py:3:51: A.Resize(...): positional argument 6 (7) cannot be placed: Albumentations 1.x takes "
            "(height, width, interpolation, always_apply, p); 2.x: argument 4 (False) is not a mask_interpolation");
  EXPECT_EQ(refusal("albumentations", head + "def get(size):\n    return A.Compose([A.Resize(size, size)])\n"),
            "train.py:4:32: size is a parameter of get() without a default: its value is known only when the code runs");
  EXPECT_EQ(refusal("albumentations", head + "import sys\nif sys.argv:\n    S = 512\nelse:\n    S = 256\n"
                                             "tf = A.Compose([A.Resize(S, S)])\n"),
            "train.py:8:26: S is bound under a condition, loop or try (line 7): its value is known only when the code runs");
  EXPECT_EQ(refusal("albumentations", head + "from config import SIZE\ntf = A.Compose([A.Resize(SIZE, SIZE)])\n"),
            "train.py:4:26: SIZE is imported (config.SIZE): only literals written in this file are read");
  EXPECT_EQ(refusal("albumentations", head + "tf = A.Compose([A.Resize(8, 8, interpolation=6)])\n"),
            "train.py:3:17: \"interpolation\" = 6 (cv2.INTER_NEAREST_EXACT or another) has no stage equivalent; use 0 "
            "to 5");
  EXPECT_EQ(refusal("albumentations", head + "tf = A.Compose([A.OneOf([A.Rotate(limit=400, p=1)])])\n"),
            "train.py:3:26: imported as /stages/0/stages/0/angle: rotate: \"angle\" = -400.0 is outside [-360, 360]");
  EXPECT_EQ(refusal("albumentations", head + "s = \"\"\"never closed\ntf = A.Compose([])\n"),
            "train.py:3:5: unterminated triple-quoted string");
  EXPECT_EQ(refusal("torchvision", "import torchvision.transforms as T\ntf = T.Compose([T.RandomCrop(32, 4, True, 0, 'reflect', 9)])\n"),
            "train.py:2:57: T.RandomCrop(...): positional argument 6 (9) is one too many: torchvision's RandomCrop takes "
            "(size, padding, pad_if_needed, fill, padding_mode)");
  // Lambda is refused as a transform, by name, whatever its arguments are.
  const std::string lambda =
      refusal("torchvision", "from torchvision import transforms\ntf = transforms.Compose([transforms.Lambda(lambda x: x)])\n");
  EXPECT_TRUE(has_line(lambda, "train.py:2:26: Lambda (no close stage: arbitrary Python code)")) << lambda;
  EXPECT_EQ(refusal("torchvision", "from torchvision import transforms as T\ntf = T.Compose([T.Resize((256, 256), max_size=300)])\n"),
            "train.py:2:47: T.Resize(...): max_size applies only where size is one side (an int), not 300");
}

// A list of transforms built step by step, as training scripts often do: append, extend, insert and
// += of literals, in order, up to the Compose that takes it; a change under a condition, or any
// other change, is refused at its place. * and ** unpack literal sequences and dicts into a call.
TEST(ImportPython, ListsBuiltStepByStepAndUnpackedArguments) {
  testing::TempDir dir;
  const fs::path file = dir / "t.py";
  std::ofstream(file) << "import albumentations as A\n"
                         "SIZE = (96, 128)\n"
                         "BLUR = {'blur_limit': 5, 'p': 0.25}\n"
                         "def steps():\n"
                         "    t = [A.HorizontalFlip()]\n"
                         "    t.append(A.VerticalFlip(p=0.3))\n"
                         "    t.extend([A.Resize(*SIZE)])\n"
                         "    t += [A.Blur(**BLUR)]\n"
                         "    t.insert(0, A.Transpose(p=0.2))\n"
                         "    out = A.Compose(t)\n"
                         "    t.append(A.ToGray())  # after the Compose: not part of it\n"
                         "    return out\n";
  const auto [p, err] = import_cli({"albumentations", file.string()});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"rotate90","k":0,"transpose":true,"p":0.2},
    {"stage":"flip","direction":"horizontal","p":0.5},
    {"stage":"flip","direction":"vertical","p":0.3},
    {"stage":"resize","size":[128,96],"interpolation":"bilinear"},
    {"stage":"box_blur","kernel_size":[3,5],"p":0.25}
  ])")) << p.dump();

  const std::string head = "import albumentations as A\n";
  EXPECT_EQ(refusal("albumentations", head + "def f(train):\n    t = [A.HorizontalFlip()]\n    if train:\n"
                                             "        t.append(A.VerticalFlip())\n    return A.Compose(t)\n"),
            "train.py:5:9: t is changed (.append()) under a condition or loop: its value is known only when the code "
            "runs");
  EXPECT_EQ(refusal("albumentations", head + "t = [A.HorizontalFlip(), A.VerticalFlip()]\nt.pop()\ntf = A.Compose(t)\n"),
            "train.py:3:1: t is changed here (.pop()): only lists built with append, extend, insert and += of "
            "literals are read");
  EXPECT_EQ(refusal("albumentations", head + "t = [A.HorizontalFlip()]\nt[0] = A.VerticalFlip()\ntf = A.Compose(t)\n"),
            "train.py:3:1: t is changed here (.other()): only lists built with append, extend, insert and += of "
            "literals are read");
  EXPECT_EQ(refusal("albumentations", head + "S = 8\nS *= 2\ntf = A.Compose([A.Resize(S, S)])\n"),
            "train.py:3:1: S is changed here (.other()): only lists built with append, extend, insert and += of "
            "literals are read");
  EXPECT_EQ(refusal("albumentations", head + "N = 3\ntf = A.Compose([A.Resize(*N)])\n"),
            "train.py:3:26: '*' unpacking of 3: only a literal list or tuple is read");
  // [*base, ...] splices a literal list; a settings dict's unreadable entry is refused only if used;
  // Normalize's arguments are not read (the import leaves it out).
  testing::TempDir dir2;
  const fs::path more = dir2 / "m.py";
  std::ofstream(more) << "import os\nimport albumentations as A\n"
                         "CFG = {'size': 64, 'root': os.environ['DATA'], 'mean': (0.5, 0.5, 0.5)}\n"
                         "base = [A.Resize(CFG['size'], CFG['size'])]\n"
                         "class C:\n    mean = os.getenv('MEAN')\n"
                         "tf = A.Compose([*base, A.HorizontalFlip(), A.Normalize(mean=C.mean)])\n";
  const auto [m, merr] = import_cli({"albumentations", more.string()});
  EXPECT_EQ(m["stages"], json::parse(R"([{"stage":"resize","size":[64,64],"interpolation":"bilinear"},
    {"stage":"flip","direction":"horizontal","p":0.5}])")) << m.dump();
  EXPECT_EQ(refusal("albumentations", head + "import os\nCFG = {'size': os.getcwd()}\ntf = A.Compose([A.Resize(CFG['size'], 8)])\n"),
            "train.py:3:16: os.getcwd(...): a call to a function that is not a transform; only literals and transforms "
            "are read");

  // Lambda is refused as a transform, whatever its arguments are.
  const std::string lambda = refusal("albumentations", head + "def f(x, **k):\n    return x\ntf = A.Compose([A.Lambda(image=f)])\n");
  EXPECT_TRUE(has_line(lambda, "train.py:4:17: Lambda (no close stage: arbitrary Python code)")) << lambda;
}

// torchvision scripts as projects write them: RandomApply over nn.ModuleList, PIL's resampling
// constants, a pipeline stored in a dict entry (named by it), RandomErasing after Normalize (its
// value in normalized units), a Compose changed after it is built (refused), nothing left (said).
TEST(ImportPython, TorchvisionScriptsAsProjectsWriteThem) {
  testing::TempDir dir;
  const fs::path file = dir / "tv.py";
  std::ofstream(file) << "import torch.nn as nn\nfrom PIL import Image\nimport torchvision.transforms as T\n"
                         "data_transforms = {}\n"
                         "data_transforms['train'] = T.Compose([\n"
                         "    T.RandomResizedCrop(96, interpolation=Image.BICUBIC),\n"
                         "    T.RandomApply(nn.ModuleList([T.ColorJitter(0.4, 0.4, 0.4, 0.1)]), p=0.8),\n"
                         "    T.ToTensor(), T.Normalize(mean=(0.5, 0.4, 0.3), std=(0.2, 0.2, 0.2)),\n"
                         "    T.RandomErasing(p=0.3, value=1)])\n"
                         "bare = T.Compose([T.ToTensor(), T.Normalize((0.5,), (0.5,))])\n";
  const auto [p, err] = import_cli({"torchvision", file.string(), "--name", "data_transforms[\"train\"]"});
  EXPECT_EQ(p["stages"], json::parse(R"([
    {"stage":"random_resized_crop","size":[96,96],"interpolation":"bicubic"},
    {"stage":"sequence","p":0.8,"stages":[{"stage":"color_jitter","brightness":0.4,"contrast":0.4,"saturation":0.4,"hue":0.1}]},
    {"stage":"random_erasing","value":[0.7,0.6000000000000001,0.5],"p":0.3}
  ])")) << p.dump();
  EXPECT_TRUE(has_line(err, "after Normalize: its value is in normalized units: the fill is mean + std value")) << err;
  const auto [by_key, e2] = import_cli({"torchvision", file.string(), "--name", "train"});
  EXPECT_EQ(by_key["stages"], p["stages"]);
  const auto [bare, e3] = import_cli({"torchvision", file.string(), "--name", "bare"});
  EXPECT_TRUE(bare["stages"].empty());
  EXPECT_TRUE(has_line(e3, "the imported pipeline has no stage: every transform was left out")) << e3;
  EXPECT_EQ(refusal("torchvision", "import torchvision.transforms as T\nt = T.Compose([T.RandomHorizontalFlip()])\n"
                                   "t.transforms.insert(0, T.RandomVerticalFlip())\n"),
            "train.py:3:1: t is changed here (t.transforms) after it is built: the pipeline that runs is not the one "
            "written; write it out in the Compose");
}

// Where 1.x and 2.x read positional arguments differently, the types, then the file's keywords decide.
TEST(ImportPython, PositionalArgumentsFollowTheRelease) {
  testing::TempDir dir;
  const fs::path file = dir / "t.py";
  std::ofstream(file) << "import albumentations as A\n"
                         "tf = A.Compose([A.RandomResizedCrop((200, 300), (0.5, 1.0)), A.HorizontalFlip(0.25),\n"
                         "                A.GaussNoise((0.1, 0.2)), A.CoarseDropout(fill=0)])\n";
  const auto [p, err] = import_cli({"albumentations", file.string()});
  const json& s = p["stages"];
  EXPECT_EQ(s[0]["size"], json::parse("[300, 200]"));  // 2.x: size (h, w), scale
  EXPECT_EQ(s[0]["scale"], json::parse("[0.5, 1.0]"));
  EXPECT_EQ(s[1]["p"], 0.25);  // 2.x: p (1.x's always_apply is a bool)
  EXPECT_EQ(s[2]["sigma"], json::parse("[0.1, 0.2]"));  // std_range: the file's fill= is 2.x's
  EXPECT_TRUE(has_line(err, file.string() + ":3:17: A.GaussNoise(...): positional arguments read as Albumentations 2.x's "
                                            "(std_range), not 1.x's (var_limit) (the file's other calls are written for 2.x)"))
      << err;
}

// Parameters a call leaves out take the defaults of the release the file is written for: 2.x's
// (GaussNoise's std_range, CoarseDropout's holes, the constant border of Rotate, PadIfNeeded and the
// field warps, GridDistortion's normalized) where its keywords are 2.x's, 1.x's where they are 1.x's.
TEST(ImportPython, LeftOutParametersTakeTheDefaultsOfTheFilesRelease) {
  testing::TempDir dir;
  const fs::path v2 = dir / "v2.py", v1 = dir / "v1.py";
  const std::string calls = "A.GaussNoise(), A.CoarseDropout(), A.Rotate(limit=10), A.GridDistortion(),\n"
                            "                A.PadIfNeeded(64, 64), A.ElasticTransform()";
  std::ofstream(v2) << "import albumentations as A\n"
                       "tf = A.Compose([A.Blur(p=0.1), A.ImageCompression(quality_range=(50, 90)),\n"
                       "                " + calls + "])\n";
  std::ofstream(v1) << "import albumentations as A\n"
                       "tf = A.Compose([A.Blur(always_apply=False, p=0.1), A.ImageCompression(quality_lower=50),\n"
                       "                " + calls + "])\n";
  const auto [p2, err2] = import_cli({"albumentations", v2.string()});
  const json& s2 = p2["stages"];
  ASSERT_EQ(s2.size(), 8u) << p2.dump();
  EXPECT_EQ(s2[2]["sigma"], json::parse("[0.2, 0.44]")) << s2[2];
  EXPECT_EQ(s2[3]["num_holes"], json::parse("[1, 2]")) << s2[3];
  EXPECT_EQ(s2[3]["hole_height"], json::parse("[0.1, 0.2]")) << s2[3];
  EXPECT_EQ(s2[4]["border"], "constant") << s2[4];
  EXPECT_EQ(s2[5]["normalized"], true) << s2[5];
  EXPECT_EQ(s2[5]["border"], "constant") << s2[5];
  EXPECT_EQ(s2[6]["border"], "constant") << s2[6];
  EXPECT_EQ(s2[7]["noise_distribution"], "gaussian") << s2[7];
  EXPECT_EQ(s2[7]["border"], "constant") << s2[7];

  const auto [p1, err1] = import_cli({"albumentations", v1.string()});
  const json& s1 = p1["stages"];
  ASSERT_EQ(s1.size(), 8u) << p1.dump();
  EXPECT_EQ(s1[3]["num_holes"], json::parse("[8, 8]")) << s1[3];
  EXPECT_EQ(s1[4]["border"], "reflect101") << s1[4];
  EXPECT_EQ(s1[5]["normalized"], false) << s1[5];
  EXPECT_EQ(s1[6]["border"], "reflect101") << s1[6];
  EXPECT_EQ(s1[7]["noise_distribution"], "uniform") << s1[7];
  // 1.x's ElasticTransform warped by alpha_affine 50 first unless told otherwise: said, not dropped.
  EXPECT_TRUE(has_line(err1, "alpha_affine 50 (1.x's random affine pre-warp, its default before 1.4, removed in "
                             "Albumentations 1.4) is left out"))
      << err1;

  // A script that does not say: 1.x's defaults, with a note naming the transforms concerned; --release
  // says it (and is noted where the script's keywords say otherwise).
  const fs::path plain = dir / "plain.py";
  std::ofstream(plain) << "import albumentations as A\ntf = A.Compose([A.HorizontalFlip(), A.GaussNoise(), A.Rotate()])\n";
  const auto [q1, e1] = import_cli({"albumentations", plain.string()});
  EXPECT_EQ(q1["stages"][1]["variance"][1], 50.0 / (255.0 * 255.0)) << q1;
  EXPECT_TRUE(has_line(e1, plain.string() + ":2:6: nothing in the script says whether it is written for Albumentations "
                                            "1.x or 2.x; the parameters it leaves out of GaussNoise, Rotate take 1.x's "
                                            "defaults, which 2.x changed (--release 2 reads them as 2.x's)"))
      << e1;
  const auto [q2, e2] = import_cli({"albumentations", plain.string(), "--release", "2"});
  EXPECT_EQ(q2["stages"][1]["sigma"], json::parse("[0.2, 0.44]")) << q2;
  EXPECT_EQ(q2["stages"][2]["border"], "constant") << q2;
  EXPECT_FALSE(has_line(e2, "nothing in the script says")) << e2;
  const auto [q3, e3] = import_cli({"albumentations", v2.string(), "--release", "1"});
  EXPECT_EQ(q3["stages"][4]["border"], "reflect101") << q3;
  EXPECT_TRUE(has_line(e3, "read as Albumentations 1.x (--release), although its keywords are 2.x's")) << e3;
  const auto bad = run_cli({"import", "torchvision", plain.string(), "--release", "2"});
  EXPECT_EQ(bad.code, 1) << bad.err;
  EXPECT_TRUE(has_line(bad.err, "--release is for Albumentations scripts")) << bad.err;
}

}  // namespace
}  // namespace aug::test_import_python
