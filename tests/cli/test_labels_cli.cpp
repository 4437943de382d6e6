// `augment run --labels/--masks` as a user runs it: every format read, moved and written back.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "lib/datasets/masks.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_labels_cli {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

// ds/images/{a,b}.png (camera.png, 512 x 512) with YOLO labels in ds/labels.
void yolo_dataset(const fs::path& root) {
  fs::create_directories(root / "images");
  fs::copy_file(testing::samples_dir() / "camera.png", root / "images/a.png");
  fs::copy_file(testing::samples_dir() / "camera.png", root / "images/b.png");
  testing::write_text(root / "labels/a.txt", "0 0.25 0.5 0.1 0.2\n3 0.1 0.1 0.3 0.1 0.3 0.35 0.1 0.35\n");
  testing::write_text(root / "labels/b.txt", "1 0.5 0.5 0.2 0.2\n");
}

TEST(LabelsCli, YoloLabelsFollowAFlipAndSurviveAColourStageByteForByte) {
  testing::TempDir dir;
  yolo_dataset(dir / "ds");
  testing::write_text(dir / "colour.json", R"({"version": 1, "stages": [{"stage": "invert"}]})");
  auto r = run_cli({"run", "-c", (dir / "colour.json").string(), "-i", (dir / "ds/images").string(), "-o",
                    (dir / "c/images").string(), "--labels", "yolo"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(testing::read_text(dir / "c/labels/a.txt"), testing::read_text(dir / "ds/labels/a.txt"));
  EXPECT_EQ(testing::read_text(dir / "c/labels/b.txt"), testing::read_text(dir / "ds/labels/b.txt"));
  EXPECT_NE(r.out.find("labels: 3 objects kept, 0 dropped"), std::string::npos) << r.out;

  testing::write_text(dir / "flip.json", R"({"version": 1, "stages": [{"stage": "flip", "direction": "horizontal"}]})");
  r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds/images").string(), "-o",
               (dir / "f/images").string(), "--labels", "yolo", "--device", "cuda-emulated"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(testing::read_text(dir / "f/labels/a.txt"),
            "0 0.750000 0.500000 0.100000 0.200000\n3 0.900000 0.100000 0.700000 0.100000 0.700000 0.350000 0.900000 0.350000\n");
}

TEST(LabelsCli, AMalformedLabelFileFailsItsImageOnlyAndNamesTheLine) {
  testing::TempDir dir;
  yolo_dataset(dir / "ds");
  testing::write_text(dir / "ds/labels/b.txt", "1 0.5 0.5 0.2 0.2\n1 0.5 0.5 0.2\n");
  testing::write_text(dir / "flip.json", R"({"version": 1, "stages": [{"stage": "flip"}]})");
  const auto r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds/images").string(), "-o",
                          (dir / "o").string(), "--labels", "yolo"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("b.txt:2"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir / "o/a.png"));
  EXPECT_TRUE(fs::exists(dir / "o/a.txt"));
  EXPECT_FALSE(fs::exists(dir / "o/b.png"));  // nothing half-labelled
  EXPECT_FALSE(fs::exists(dir / "o/b.txt"));
}

// The three ways labels went missing without a word: a labels folder where --labels yolo does not
// look, YOLO rows in pixels, COCO file_names that match no input.
TEST(LabelsCli, ALabelsFolderElsewhereIsSaidBeforeTheRunAndCounted) {
  testing::TempDir dir;
  yolo_dataset(dir / "ds");
  fs::rename(dir / "ds/labels", dir / "ds/annotations");
  testing::write_text(dir / "flip.json", R"({"version": 1, "stages": [{"stage": "flip"}]})");
  auto r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds/images").string(), "-o",
                    (dir / "o/images").string(), "--labels", "yolo"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("none of the 2 inputs has labels; for a.png they would be in " +
                       (dir / "ds/labels/a.txt").string()),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("labels: 0 objects kept, 0 dropped; 2 inputs without labels"), std::string::npos) << r.out;
  // One of two without: no warning (a background image is normal), but the count.
  fs::create_directories(dir / "ds/labels");
  fs::copy_file(dir / "ds/annotations/a.txt", dir / "ds/labels/a.txt");
  r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds/images").string(), "-o",
               (dir / "p/images").string(), "--labels", "yolo"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("without labels"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("no labels"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("2 objects kept, 0 dropped; 1 input without labels"), std::string::npos) << r.out;
  // Most without: a warning with the count.
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "ds/images/c.png");
  r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds/images").string(), "-o",
               (dir / "q/images").string(), "--labels", "yolo", "--dry-run"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("2 of the 3 inputs have no labels (the first: b.png"), std::string::npos) << r.err;
}

TEST(LabelsCli, YoloRowsInPixelsAreAnErrorNamingTheLine) {
  testing::TempDir dir;
  yolo_dataset(dir / "ds");
  testing::write_text(dir / "ds/labels/b.txt", "1 0.5 0.5 0.2 0.2\n1 256 256 50 40\n");
  testing::write_text(dir / "flip.json", R"({"version": 1, "stages": [{"stage": "flip"}]})");
  const auto r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds/images").string(), "-o",
                          (dir / "o").string(), "--labels", "yolo"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("b.txt:2: value 2 is 256, above 1: YOLO coordinates are fractions"), std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::exists(dir / "o/a.txt"));
  EXPECT_FALSE(fs::exists(dir / "o/b.txt"));
  // 1 itself (a box touching the right edge) and pose visibilities of 2 are fine.
  testing::write_text(dir / "ds/labels/b.txt", "1 0.9 0.5 0.2 0.2\n1 1 1 0 0\n");
  const auto ok = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds/images").string(), "-o",
                           (dir / "p").string(), "--labels", "yolo"});
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST(LabelsCli, YoloOutputGetsADataYamlWithTheNamesAndTheOtherSplits) {
  testing::TempDir dir;
  // An Ultralytics layout: images/train and images/val, data.yaml at the root naming 3 classes.
  yolo_dataset(dir / "ds/tmp");
  fs::create_directories(dir / "ds/images");
  fs::rename(dir / "ds/tmp/images", dir / "ds/images/train");
  fs::create_directories(dir / "ds/labels");
  fs::rename(dir / "ds/tmp/labels", dir / "ds/labels/train");
  fs::create_directories(dir / "ds/images/val");
  testing::write_text(dir / "ds/data.yaml",
                      "path: .\ntrain: images/train\nval: images/val\nkpt_shape: [17, 3]\nnames:\n  0: person\n"
                      "  1: 'bicycle, red'\n  2: car\n");
  testing::write_text(dir / "flip.json", R"({"version": 1, "stages": [{"stage": "flip"}]})");
  const auto r = run_cli({"--log-format", "json", "run", "-c", (dir / "flip.json").string(), "-i",
                          (dir / "ds/images/train").string(), "-o", (dir / "aug/images/train").string(), "--labels",
                          "yolo"});
  ASSERT_EQ(r.code, 0) << r.err;
  // a.txt has class 3, which data.yaml does not name: said, and counted in --json.
  EXPECT_NE(r.err.find("class id 3 (1 object) is not among the 3 names of " + (dir / "ds/data.yaml").string()),
            std::string::npos)
      << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["unknown_classes"], nlohmann::json({{"3", 1}})) << r.out;
  // aug/data.yaml: its own train split, the input's val, the names and kpt_shape carried over.
  const std::string yaml = testing::read_text(dir / "aug/data.yaml");
  EXPECT_NE(yaml.find("train: images/train\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("val: " + fs::weakly_canonical(dir / "ds/images/val").generic_string() + "\n"), std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("kpt_shape: [17, 3]\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("nc: 3\nnames:\n  0: person\n  1: 'bicycle, red'\n  2: car\n"), std::string::npos) << yaml;
  // The val split augmented into the same dataset: one file naming both outputs.
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "ds/images/val/v.png");
  const auto v = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds/images/val").string(), "-o",
                          (dir / "aug/images/val").string(), "--labels", "yolo"});
  ASSERT_EQ(v.code, 0) << v.err;
  const std::string both = testing::read_text(dir / "aug/data.yaml");
  EXPECT_NE(both.find("train: images/train\nval: images/val\n"), std::string::npos) << both;
  // Without a data.yaml: the ids written, named by their number; nothing to check them against.
  fs::remove(dir / "ds/data.yaml");
  const auto w = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds/images/train").string(), "-o",
                          (dir / "plain").string(), "--labels", "yolo"});
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_EQ(w.err.find("not among"), std::string::npos) << w.err;
  const std::string plain = testing::read_text(dir / "plain/data.yaml");
  EXPECT_NE(plain.find("train: .\nval: .\nnc: 4\nnames:\n  0: '0'\n  1: '1'\n  2: '2'\n  3: '3'\n"), std::string::npos)
      << plain;
}

TEST(LabelsCli, CocoCategoryIdsMissingFromTheCategoriesAreReported) {
  testing::TempDir dir;
  fs::create_directories(dir / "in");
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "in/a.png");
  testing::write_text(dir / "ann.json", R"({"images": [{"id": 1, "file_name": "a.png", "width": 512, "height": 512}],
    "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 10, 50, 50]},
                    {"id": 2, "image_id": 1, "category_id": 7, "bbox": [100, 100, 50, 50]},
                    {"id": 3, "image_id": 1, "category_id": 7, "bbox": [200, 200, 50, 50]}],
    "categories": [{"id": 1, "name": "cat"}]})");
  testing::write_text(dir / "flip.json", R"({"version": 1, "stages": [{"stage": "flip"}]})");
  const auto r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "in").string(), "-o",
                          (dir / "out").string(), "--labels", "coco=" + (dir / "ann.json").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("class id 7 (2 objects) is not among the 1 names of " + (dir / "ann.json").string() +
                       "'s categories"),
            std::string::npos)
      << r.err;
}

// Oriented boxes through a horizontal flip: YOLO-OBB (fractions) and DOTA (pixels, labelTxt/, its
// header lines, category and difficult flag kept); the corners move exactly (x -> W - x).
TEST(LabelsCli, OrientedBoxesInYoloObbAndDotaFollowAFlip) {
  testing::TempDir dir;
  fs::create_directories(dir / "ds/images");
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "ds/images/a.png");  // 512 x 512
  testing::write_text(dir / "ds/labels/a.txt", "2 0.25 0.125 0.5 0.25 0.4375 0.5 0.1875 0.375\n");
  testing::write_text(dir / "ds/labelTxt/a.txt",
                      "imagesource:GoogleEarth\ngsd:0.146343590398\n"
                      "128.0 64.0 256.0 128.0 224.0 256.0 96.0 192.0 small-vehicle 1\n"
                      "10 10 20 10 20 30 10 30 plane 0\n");
  testing::write_text(dir / "flip.json", R"({"version": 1, "stages": [{"stage": "flip", "direction": "horizontal"}]})");
  auto r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds/images").string(), "-o",
                    (dir / "o/images").string(), "--labels", "yolo-obb"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(testing::read_text(dir / "o/labels/a.txt"),
            "2 0.750000 0.125000 0.500000 0.250000 0.562500 0.500000 0.812500 0.375000\n");
  r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds/images").string(), "-o",
               (dir / "d/images").string(), "--labels", "dota"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("labels: 2 objects kept, 0 dropped"), std::string::npos) << r.out;
  EXPECT_EQ(testing::read_text(dir / "d/labelTxt/a.txt"),
            "imagesource:GoogleEarth\ngsd:0.146343590398\n"
            "384.0 64.0 256.0 128.0 288.0 256.0 416.0 192.0 small-vehicle 1\n"
            "502.0 10.0 492.0 10.0 492.0 30.0 502.0 30.0 plane 0\n");
  // A YOLO-OBB row with another number of values names the line.
  testing::write_text(dir / "ds/labels/a.txt", "2 0.25 0.125 0.5 0.25\n");
  r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds/images").string(), "-o",
               (dir / "e/images").string(), "--labels", "yolo-obb"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("a.txt:1: expected an oriented box (class x1 y1 x2 y2 x3 y3 x4 y4), found 5 values"),
            std::string::npos)
      << r.err;
}

TEST(LabelsCli, CocoImagesMatchingNoInputAreCountedAndNamed) {
  testing::TempDir dir;
  fs::create_directories(dir / "img");
  nlohmann::json coco = {{"categories", {{{"id", 1}, {"name", "thing"}}}}, {"images", nlohmann::json::array()},
                         {"annotations", nlohmann::json::array()}};
  for (int i = 0; i < 5; ++i) {
    const std::string name = "p" + std::to_string(i) + ".png";
    if (i < 2) fs::copy_file(testing::samples_dir() / "camera.png", dir / "img" / name);
    coco["images"].push_back({{"id", i + 1}, {"file_name", "train/" + name}, {"width", 512}, {"height", 512}});
    coco["annotations"].push_back({{"id", 100 + i}, {"image_id", i + 1}, {"category_id", 1}, {"iscrowd", 0},
                                   {"bbox", {10 * i, 20, 30, 40}}, {"area", 1200}});
  }
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "img/extra.png");
  testing::write_text(dir / "ann.json", coco.dump());
  testing::write_text(dir / "flip.json", R"({"version": 1, "stages": [{"stage": "flip"}]})");
  const auto r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "img").string(), "-o",
                          (dir / "o").string(), "--labels", "coco=" + (dir / "ann.json").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("3 of its images match no input (train/p2.png, train/p3.png, train/p4.png)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("2 objects kept, 0 dropped; 1 input without labels; 3 labelled images matching no input"),
            std::string::npos)
      << r.out;
}

TEST(LabelsCli, DryRunListsTheLabelFilesAndABadFormatIsAUsageError) {
  testing::TempDir dir;
  yolo_dataset(dir / "ds");
  testing::write_text(dir / "flip.json", R"({"version": 1, "stages": [{"stage": "flip"}]})");
  auto r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds").string(), "-o", (dir / "o").string(),
                    "--labels", "yolo", "--dry-run"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("labels -> " + (dir / "o/labels/a.txt").string()), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "o"));
  r = run_cli({"run", "-c", (dir / "flip.json").string(), "-i", (dir / "ds").string(), "-o", (dir / "o").string(),
               "--labels", "kitti"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--labels kitti: expected yolo, yolo-obb, dota, voc or coco=FILE"), std::string::npos) << r.err;
}

TEST(LabelsCli, CocoAndVocRoundTripAndFollowARotation) {
  testing::TempDir dir;
  fs::create_directories(dir / "voc/JPEGImages");
  fs::copy_file(testing::samples_dir() / "chelsea.png", dir / "voc/JPEGImages/cat.png");
  const std::string xml =
      "<annotation>\n  <filename>cat.png</filename>\n  <size><width>451</width><height>300</height><depth>3</depth></size>\n"
      "  <object>\n    <name>cat</name>\n    <difficult>1</difficult>\n    <bndbox><xmin>101</xmin><ymin>51</ymin>"
      "<xmax>300</xmax><ymax>250</ymax></bndbox>\n  </object>\n</annotation>\n";
  testing::write_text(dir / "voc/Annotations/cat.xml", xml);
  const nlohmann::json coco = {
      {"info", {{"description", "test"}}},
      {"categories", {{{"id", 1}, {"name", "cat"}}}},
      {"images", {{{"id", 42}, {"file_name", "cat.png"}, {"width", 451}, {"height", 300}}}},
      {"annotations",
       {{{"id", 7}, {"image_id", 42}, {"category_id", 1}, {"bbox", {100, 50, 200, 200}}, {"area", 20000}, {"iscrowd", 0},
         {"segmentation", {{100, 50, 300, 50, 300, 250, 100, 250}}}}}}};
  testing::write_text(dir / "ann.json", coco.dump());

  testing::write_text(dir / "id.json", R"({"version": 1, "stages": [{"stage": "channel_gain", "r": 1, "g": 1, "b": 1}]})");
  auto r = run_cli({"run", "-c", (dir / "id.json").string(), "-i", (dir / "voc/JPEGImages").string(), "-o",
                    (dir / "v/JPEGImages").string(), "--labels", "voc"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(testing::read_text(dir / "v/Annotations/cat.xml"), xml);
  r = run_cli({"run", "-c", (dir / "id.json").string(), "-i", (dir / "voc/JPEGImages").string(), "-o",
               (dir / "c").string(), "--labels", "coco=" + (dir / "ann.json").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(testing::read_text(dir / "c/ann.json")), coco);

  // A quarter turn: the 200 x 200 box keeps its size, the image becomes 300 x 451.
  testing::write_text(dir / "turn.json", R"({"version": 1, "stages": [{"stage": "rotate90", "k": 1}]})");
  r = run_cli({"run", "-c", (dir / "turn.json").string(), "-i", (dir / "voc/JPEGImages").string(), "-o",
               (dir / "c2").string(), "--labels", "coco=" + (dir / "ann.json").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = nlohmann::json::parse(testing::read_text(dir / "c2/ann.json"));
  ASSERT_EQ(out["images"].size(), 1u);
  EXPECT_EQ(out["images"][0]["width"], 300);
  EXPECT_EQ(out["images"][0]["height"], 451);
  const auto bbox = out["annotations"][0]["bbox"];
  // (x, y) -> (y, W - x) in the edge frame: x 100..300 becomes y 151..351.
  EXPECT_DOUBLE_EQ(bbox[0].get<double>(), 50);
  EXPECT_DOUBLE_EQ(bbox[1].get<double>(), 151);
  EXPECT_DOUBLE_EQ(bbox[2].get<double>(), 200);
  EXPECT_DOUBLE_EQ(bbox[3].get<double>(), 200);
  EXPECT_DOUBLE_EQ(out["annotations"][0]["area"].get<double>(), 40000);
  EXPECT_EQ(out["categories"], coco["categories"]);
}

TEST(LabelsCli, CocoKeepsEveryImageAcrossShardsAndResumedRuns) {
  testing::TempDir dir;
  fs::create_directories(dir / "img");
  nlohmann::json coco = {{"categories", {{{"id", 1}, {"name", "thing"}}}}, {"images", nlohmann::json::array()},
                         {"annotations", nlohmann::json::array()}};
  for (int i = 0; i < 6; ++i) {
    const std::string name = "p" + std::to_string(i) + ".png";
    fs::copy_file(testing::samples_dir() / "camera.png", dir / "img" / name);
    coco["images"].push_back({{"id", i + 1}, {"file_name", name}, {"width", 512}, {"height", 512}});
    coco["annotations"].push_back({{"id", 100 + i}, {"image_id", i + 1}, {"category_id", 1}, {"iscrowd", 0},
                                   {"bbox", {10 * i, 20, 30, 40}}, {"area", 1200}});
  }
  testing::write_text(dir / "ann.json", coco.dump());
  testing::write_text(dir / "flip.json", R"({"version": 1, "stages": [{"stage": "flip", "direction": "vertical"}]})");
  const std::string labels = "coco=" + (dir / "ann.json").string();
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"run", "-c", (dir / "flip.json").string(), "-i", (dir / "img").string(), "-o",
                                  (dir / "o").string(), "--labels", labels};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  };
  auto r = run({"--shard", "0/2"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::size_t first = nlohmann::json::parse(testing::read_text(dir / "o/ann.json"))["images"].size();
  EXPECT_LT(first, 6u);
  r = run({"--shard", "1/2", "--resume"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto out = nlohmann::json::parse(testing::read_text(dir / "o/ann.json"));
  EXPECT_EQ(out["images"].size(), 6u);
  EXPECT_EQ(out["annotations"].size(), 6u);
  // A resumed run with nothing left to do keeps them all; the vertical flip moved every box.
  r = run({"--resume"});
  ASSERT_EQ(r.code, 0) << r.err;
  out = nlohmann::json::parse(testing::read_text(dir / "o/ann.json"));
  ASSERT_EQ(out["annotations"].size(), 6u);
  for (const auto& a : out["annotations"]) EXPECT_DOUBLE_EQ(a["bbox"][1].get<double>(), 512 - 20 - 40);
}

TEST(LabelsCli, PaletteMasksKeepTheirPaletteAndAgreeAcrossDevices) {
  testing::TempDir dir;
  fs::create_directories(dir / "img");
  fs::copy_file(testing::samples_dir() / "coffee.png", dir / "img/cup.png");
  const cv::Mat photo = testing::imread((dir / "img/cup.png").string());
  labels::Mask m{Image(Shape{photo.cols, photo.rows, 1, DType::U8}), labels::Palette{{{0, 0, 0}, {128, 0, 0}, {0, 128, 0}}, {}}};
  for (int y = 0; y < photo.rows; ++y)
    for (int x = 0; x < photo.cols; ++x) m.image.view<std::uint8_t>().row(y)[x] = static_cast<std::uint8_t>(x < 100 ? 1 : (y < 50 ? 2 : 0));
  const auto png = labels::encode_mask_png(m);
  fs::create_directories(dir / "masks");
  testing::write_bytes(dir / "masks/cup_mask.png", png);
  testing::write_text(dir / "p.json", R"({"version": 1, "labels": {"mask_fill": "ignore"}, "stages": [
        {"stage": "rotate", "angle": 20}, {"stage": "resize", "size": [200, 150]}]})");
  for (const char* device : {"cpu", "cuda-emulated"}) {
    const auto r = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "img").string(), "-o",
                            (dir / device).string(), "--masks", (dir / "masks").string(), "--mask-suffix", "_mask.png",
                            "--device", device});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  // Beside each output folder, as labels are: OUT_masks (OUT named images: masks).
  const fs::path cpu = dir / "cpu_masks/cup_mask.png";
  EXPECT_EQ(testing::read_bytes(cpu), testing::read_bytes(dir / "cuda-emulated_masks/cup_mask.png"));
  const labels::Mask out = labels::read_mask(cpu);
  ASSERT_TRUE(out.palette);
  ASSERT_EQ(out.palette->colors.size(), 256u);  // grown to hold the fill, 255 in VOC's void colour
  EXPECT_EQ(out.palette->colors[1], (std::array<std::uint8_t, 3>{128, 0, 0}));
  EXPECT_EQ(out.palette->colors[255], (std::array<std::uint8_t, 3>{224, 224, 192}));
  EXPECT_EQ(out.image.shape().width, 200);
  std::set<int> values;
  for (int y = 0; y < 150; ++y)
    for (int x = 0; x < 200; ++x) values.insert(out.image.view<std::uint8_t>().row(y)[x]);
  EXPECT_EQ(values, (std::set<int>{0, 1, 2, 255}));  // the labels and the "ignore" corners, nothing blended
  // Several GPUs: each mask moves on the device its image ran on, with the CPU's bytes.
  for (const char* device : {"cpu", "cuda-emulated:0,cuda-emulated:1"}) {
    const auto r = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "img").string(), "-o",
                            (dir / "copies" / device).string(), "--masks", (dir / "masks").string(), "--mask-suffix",
                            "_mask.png", "--copies", "4", "--threads", "2", "--device", device},
                           {"AUGMENT_EMULATED_GPUS=2"});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  for (const char* folder : {"", "_masks"}) {
    const std::string cpu_out = std::string("copies/cpu") + folder,
                      gpus_out = std::string("copies/cuda-emulated:0,cuda-emulated:1") + folder;
    const auto files = testing::list_files(dir / cpu_out);
    EXPECT_EQ(files.size(), 4u);
    EXPECT_EQ(testing::list_files(dir / gpus_out), files);
    for (const auto& f : files) EXPECT_EQ(testing::read_bytes(dir / cpu_out / f), testing::read_bytes(dir / gpus_out / f)) << f;
  }
}

// Crops whose window is drawn from the labels: crop_near_bbox with no shift cuts out an object's box,
// whose label becomes the whole output; crop_non_empty_mask's window (objects standing in for a label
// map) always keeps an object.
TEST(LabelsCli, LabelDrawnCropsWriteTheLabelsOfTheirWindows) {
  testing::TempDir dir;
  fs::create_directories(dir / "ds/images");
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "ds/images/a.png");
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "ds/images/b.png");
  // 512 x 512: a's box is (96, 192)-(160, 320), b's (192, 192)-(320, 320).
  testing::write_text(dir / "ds/labels/a.txt", "0 0.25 0.5 0.125 0.25\n");
  testing::write_text(dir / "ds/labels/b.txt", "1 0.5 0.5 0.25 0.25\n");
  testing::write_text(dir / "near.json", R"({"version": 1, "stages": [{"stage": "crop_near_bbox", "max_part_shift": 0}]})");
  auto r = run_cli({"run", "-c", (dir / "near.json").string(), "-i", (dir / "ds/images").string(), "-o",
                    (dir / "n/images").string(), "--labels", "yolo"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(testing::read_text(dir / "n/labels/a.txt"), "0 0.500000 0.500000 1.000000 1.000000\n");
  EXPECT_EQ(testing::read_text(dir / "n/labels/b.txt"), "1 0.500000 0.500000 1.000000 1.000000\n");
  const cv::Mat a = testing::imread((dir / "n/images/a.png").string(), cv::IMREAD_UNCHANGED);
  EXPECT_EQ(a.cols, 64);
  EXPECT_EQ(a.rows, 128);
  const cv::Mat src = testing::imread((testing::samples_dir() / "camera.png").string(), cv::IMREAD_UNCHANGED);
  EXPECT_EQ(cv::norm(a, src(cv::Rect(96, 192, 64, 128)), cv::NORM_INF), 0);

  testing::write_text(dir / "mask.json", R"({"version": 1, "stages": [{"stage": "crop_non_empty_mask", "size": [100, 80]}]})");
  r = run_cli({"run", "-c", (dir / "mask.json").string(), "-i", (dir / "ds/images").string(), "-o",
               (dir / "m/images").string(), "--labels", "yolo", "--copies", "4", "--device", "cuda-emulated"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto files = testing::list_files(dir / "m/labels");
  EXPECT_EQ(files.size(), 8u);
  for (const auto& f : files) {
    const std::string text = testing::read_text(dir / "m/labels" / f);
    EXPECT_FALSE(text.empty()) << f << ": the window lost every object";
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << f;
  }
  EXPECT_NE(r.out.find("labels: 8 objects kept, 0 dropped"), std::string::npos) << r.out;
}

// The YOLO rows of a label file, as numbers.
std::vector<std::vector<double>> yolo_rows(const std::string& text) {
  std::vector<std::vector<double>> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream v(line);
    std::vector<double> row;
    for (double x; v >> x;) row.push_back(x);
    if (!row.empty()) rows.push_back(row);
  }
  return rows;
}
std::vector<std::vector<double>> yolo_rows(const fs::path& file) { return yolo_rows(testing::read_text(file)); }

TEST(LabelsCli, LabelAwareCropsKeepTheirObjectsWholeInTheWrittenLabels) {
  testing::TempDir dir;
  yolo_dataset(dir / "ds");
  // bbox_safe_crop: every object of every copy kept, inside the image.
  testing::write_text(dir / "safe.json", R"({"version": 1, "stages": [{"stage": "bbox_safe_crop", "size": [256, 256]}]})");
  auto r = run_cli({"run", "-c", (dir / "safe.json").string(), "-i", (dir / "ds/images").string(), "-o",
                    (dir / "s/images").string(), "--labels", "yolo", "--copies", "4"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("labels: 12 objects kept, 0 dropped"), std::string::npos) << r.out;
  auto files = testing::list_files(dir / "s/labels");
  ASSERT_EQ(files.size(), 8u);
  for (const auto& f : files) {
    const auto rows = yolo_rows(dir / "s/labels" / f);
    EXPECT_EQ(rows.size(), f.front() == 'a' ? 2u : 1u) << f;
    for (const auto& row : rows)
      for (std::size_t i = 1; i < row.size(); ++i) {
        EXPECT_GE(row[i], 0.0) << f;
        EXPECT_LE(row[i], 1.0) << f;
      }
  }
  // crop_with_object: b's one box (102.4 pixels square) is whole in every 200 x 200 window.
  testing::write_text(dir / "one.json", R"({"version": 1, "stages": [{"stage": "crop_with_object", "size": [200, 200]}]})");
  r = run_cli({"run", "-c", (dir / "one.json").string(), "-i", (dir / "ds/images").string(), "-o",
               (dir / "w/images").string(), "--labels", "yolo", "--copies", "4", "--device", "cuda-emulated"});
  ASSERT_EQ(r.code, 0) << r.err;
  files = testing::list_files(dir / "w/labels");
  ASSERT_EQ(files.size(), 8u);
  for (const auto& f : files) {
    const auto rows = yolo_rows(dir / "w/labels" / f);
    EXPECT_GE(rows.size(), 1u) << f;
    if (f.front() != 'b') continue;
    ASSERT_EQ(rows.size(), 1u) << f;
    ASSERT_EQ(rows[0].size(), 5u) << f;
    EXPECT_NEAR(rows[0][3], 102.4 / 200, 1.0 / 200) << f;  // its width and height, unclipped
    EXPECT_NEAR(rows[0][4], 102.4 / 200, 1.0 / 200) << f;
  }
}

// iou_crop reads the boxes as it draws: every written label file holds exactly the boxes whose
// centre its window (from the manifest) holds, clipped to it; the others are counted as dropped.
// zoom_out shifts every box by its drawn left and top on the larger canvas.
TEST(LabelsCli, IouCropKeepsTheBoxesWhoseCentreItsWindowHoldsAndZoomOutShiftsThem) {
  testing::TempDir dir;
  fs::create_directories(dir / "ds/images");
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "ds/images/a.png");  // 512 x 512
  const std::vector<std::vector<double>> boxes{
      {0, 0.2, 0.2, 0.2, 0.2}, {1, 0.7, 0.25, 0.3, 0.2}, {2, 0.3, 0.75, 0.2, 0.3}, {3, 0.8, 0.8, 0.25, 0.25}};
  std::string text;
  for (const auto& b : boxes) {
    char line[96];
    std::snprintf(line, sizeof line, "%d %g %g %g %g\n", static_cast<int>(b[0]), b[1], b[2], b[3], b[4]);
    text += line;
  }
  testing::write_text(dir / "ds/labels/a.txt", text);
  testing::write_text(dir / "crop.json", R"({"version": 1, "stages": [{"stage": "iou_crop", "sampler_options": [0.0, 0.3]}]})");
  auto r = run_cli({"run", "-c", (dir / "crop.json").string(), "-i", (dir / "ds/images").string(), "-o",
                    (dir / "c/images").string(), "--labels", "yolo", "--copies", "6", "--manifest",
                    (dir / "c.jsonl").string(), "--device", "cuda-emulated"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream manifest(dir / "c.jsonl");
  int outputs = 0, kept = 0, dropped = 0;
  for (std::string line; std::getline(manifest, line);) {
    const nlohmann::json m = nlohmann::json::parse(line);
    const nlohmann::json w = m["stages"][0]["params"];
    ASSERT_FALSE(w.value("identity", false)) << line;  // no option 1: a window is always found here
    const double x = w["x"], y = w["y"], ww = w["width"], wh = w["height"];
    std::vector<std::vector<double>> want;
    for (const auto& b : boxes) {
      const double x0 = (b[1] - b[3] / 2) * 512, x1 = (b[1] + b[3] / 2) * 512, y0 = (b[2] - b[4] / 2) * 512,
                   y1 = (b[2] + b[4] / 2) * 512, cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
      if (!(x < cx && cx < x + ww && y < cy && cy < y + wh)) {
        ++dropped;
        continue;
      }
      const double a0 = std::max(x0, x) - x, a1 = std::min(x1, x + ww) - x, b0 = std::max(y0, y) - y,
                   b1 = std::min(y1, y + wh) - y;
      want.push_back({b[0], (a0 + a1) / 2 / ww, (b0 + b1) / 2 / wh, (a1 - a0) / ww, (b1 - b0) / wh});
      ++kept;
    }
    const std::string out = m["output"];
    const auto got = yolo_rows(testing::read_text(dir / "c/labels" / (out.substr(0, out.rfind('.')) + ".txt")));
    ASSERT_EQ(got.size(), want.size()) << out;
    for (std::size_t i = 0; i < got.size(); ++i)
      for (std::size_t k = 0; k < 5; ++k) EXPECT_NEAR(got[i][k], want[i][k], 1.5e-6) << out << " row " << i;
    ++outputs;
  }
  EXPECT_EQ(outputs, 6);
  EXPECT_GT(dropped, 0);
  EXPECT_NE(r.out.find("labels: " + std::to_string(kept) + " objects kept, " + std::to_string(dropped) + " dropped"),
            std::string::npos)
      << r.out;

  testing::write_text(dir / "zoom.json", R"({"version": 1, "stages": [{"stage": "zoom_out", "p": 1}]})");
  r = run_cli({"run", "-c", (dir / "zoom.json").string(), "-i", (dir / "ds/images").string(), "-o",
               (dir / "z/images").string(), "--labels", "yolo", "--manifest", (dir / "z.jsonl").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json m = nlohmann::json::parse(testing::read_text(dir / "z.jsonl"));
  const auto pad = m["stages"][0]["params"]["padding"].get<std::array<double, 4>>();
  const double cw = 512 + pad[0] + pad[2], ch = 512 + pad[1] + pad[3];
  const auto got = yolo_rows(testing::read_text(dir / "z/labels/a.txt"));
  ASSERT_EQ(got.size(), boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const auto& b = boxes[i];
    EXPECT_NEAR(got[i][1], (b[1] * 512 + pad[0]) / cw, 1.5e-6);
    EXPECT_NEAR(got[i][2], (b[2] * 512 + pad[1]) / ch, 1.5e-6);
    EXPECT_NEAR(got[i][3], b[3] * 512 / cw, 1.5e-6);
    EXPECT_NEAR(got[i][4], b[4] * 512 / ch, 1.5e-6);
  }
  EXPECT_NE(r.out.find("labels: 4 objects kept, 0 dropped"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace aug::test_labels_cli
