// `augment merge`: the manifests and COCO files of shards run into separate folders, joined, are
// the files one run over everything writes, byte for byte; disagreeing files are refused.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/testing.hpp"

namespace aug::test_merge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_cli;

// img/ with 7 photographs in two folders and their COCO file (ids from 11, annotations from 101).
void dataset(const fs::path& root) {
  json coco = {{"info", {{"description", "merge test"}}},
               {"categories", {{{"id", 1}, {"name", "thing"}}}},
               {"images", json::array()},
               {"annotations", json::array()}};
  for (int i = 0; i < 7; ++i) {
    const std::string name = (i < 4 ? "a/p" : "b/q") + std::to_string(i) + ".png";
    fs::create_directories((root / "img" / name).parent_path());
    fs::copy_file(testing::samples_dir() / (i % 2 ? "camera.png" : "chelsea.png"), root / "img" / name);
    coco["images"].push_back({{"id", 11 + i}, {"file_name", name}, {"width", i % 2 ? 512 : 451}, {"height", i % 2 ? 512 : 300}});
    for (int k = 0; k < 1 + i % 3; ++k)
      coco["annotations"].push_back({{"id", 101 + 10 * i + k}, {"image_id", 11 + i}, {"category_id", 1}, {"iscrowd", 0},
                                     {"bbox", {10 + 20 * k, 20, 60, 40}}, {"area", 2400}});
  }
  testing::write_text(root / "ann.json", coco.dump());
  testing::write_text(root / "p.json", R"({"version": 1, "seed": 5, "stages": [
      {"stage": "rotate", "angle": [-15, 15]}, {"stage": "flip", "p": 0.5},
      {"stage": "random_resized_crop", "size": [128, 96], "scale": [0.5, 1.0]}]})");
}

// A run of shard `shard` ("" for all) into `out`, with its manifest and COCO file.
void run_into(const fs::path& root, const std::string& out, const std::string& shard, const std::string& copies) {
  std::vector<std::string> args{"run", "-c", (root / "p.json").string(), "-i", (root / "img").string(), "-o",
                                (root / out).string(), "--labels", "coco=" + (root / "ann.json").string(),
                                "--manifest", (root / (out + ".jsonl")).string(), "--copies", copies};
  if (!shard.empty()) args.insert(args.end(), {"--shard", shard});
  const auto r = run_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
}

TEST(Merge, ShardsInSeparateFoldersJoinToTheFullRunsFiles) {
  for (const std::string copies : {"1", "2"}) {  // ids kept, and renumbered
    SCOPED_TRACE("copies " + copies);
    testing::TempDir dir;
    dataset(dir.path());
    run_into(dir.path(), "full", "", copies);
    run_into(dir.path(), "s0", "0/3", copies);
    run_into(dir.path(), "s1", "1/3", copies);
    run_into(dir.path(), "s2", "2/3", copies);
    // Each shard has part of the images.
    EXPECT_LT(json::parse(testing::read_text(dir / "s0/ann.json"))["images"].size(), 7u * std::stoul(copies));

    auto r = run_cli({"merge", (dir / "s2.jsonl").string(), (dir / "s0.jsonl").string(), (dir / "s1.jsonl").string(),
                      "-o", (dir / "merged.jsonl").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(testing::read_text(dir / "merged.jsonl"), testing::read_text(dir / "full.jsonl"));
    r = run_cli({"merge", (dir / "s1/ann.json").string(), (dir / "s2/ann.json").string(), (dir / "s0/ann.json").string(),
                 "-o", (dir / "merged.json").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(testing::read_text(dir / "merged.json"), testing::read_text(dir / "full/ann.json"));
    EXPECT_NE(r.err.find(std::to_string(7 * std::stoul(copies)) + " images (0 in more than one file)"), std::string::npos)
        << r.err;
    // The same shard twice (a task that ran again) changes nothing.
    r = run_cli({"merge", (dir / "s0.jsonl").string(), (dir / "s0.jsonl").string(), (dir / "s1.jsonl").string(),
                 (dir / "s2.jsonl").string(), "-o", (dir / "again.jsonl").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(testing::read_text(dir / "again.jsonl"), testing::read_text(dir / "full.jsonl"));
  }
}

TEST(Merge, FilesThatAreNotShardsOfOneRunAreRefused) {
  testing::TempDir dir;
  dataset(dir.path());
  run_into(dir.path(), "s0", "0/2", "1");
  run_into(dir.path(), "s1", "1/2", "1");
  // Another category list.
  json other = json::parse(testing::read_text(dir / "s1/ann.json"));
  other["categories"][0]["name"] = "other";
  testing::write_text(dir / "other.json", other.dump());
  auto r = run_cli({"merge", (dir / "s0/ann.json").string(), (dir / "other.json").string(), "-o", (dir / "m.json").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("other.json: \"categories\" differs from"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "m.json"));
  // The same output with another record (another seed).
  std::string lines = testing::read_text(dir / "s0.jsonl");
  const std::string first = lines.substr(0, lines.find('\n'));
  json changed = json::parse(first);
  changed["seed"] = 99;
  testing::write_text(dir / "x.jsonl", changed.dump() + "\n");
  r = run_cli({"merge", (dir / "s0.jsonl").string(), (dir / "x.jsonl").string(), "-o", (dir / "m.jsonl").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("x.jsonl:1: the output " + changed["output"].get<std::string>() + " is also in"),
            std::string::npos)
      << r.err;
  // Malformed lines, mixed kinds, an output that is an input.
  testing::write_text(dir / "bad.jsonl", "{\"input\": \"a.png\"}\n");
  r = run_cli({"merge", (dir / "bad.jsonl").string(), "-o", (dir / "m.jsonl").string()});
  EXPECT_NE(r.err.find("bad.jsonl:1: not a manifest record"), std::string::npos) << r.err;
  r = run_cli({"merge", (dir / "s0.jsonl").string(), (dir / "s0/ann.json").string(), "-o", (dir / "m.jsonl").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("one kind at a time"), std::string::npos) << r.err;
  r = run_cli({"merge", (dir / "s0.jsonl").string(), "-o", (dir / "s0.jsonl").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("is one of the inputs"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aug::test_merge
