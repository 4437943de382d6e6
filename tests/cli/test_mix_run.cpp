// Runs of stages that read other images (mosaic, mixup, cutmix) as a user runs them: partners come
// from the whole input list, so a run split into shards (then `augment merge`), one worker or
// several, the CPU or the emulated device, all write the same bytes (images, YOLO labels, label
// maps, manifest); the manifest names each output's partners; a partner that cannot be read fails
// only the outputs that drew it, naming it.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "tests/support/testing.hpp"

namespace aug::test_mix_run {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_cli;

// ds/images/ with 9 photographs (two sizes, gray among them) with YOLO labels and label maps.
void dataset(const fs::path& root) {
  const char* photos[] = {"chelsea.png", "astronaut.jpg", "coffee.png", "camera.png", "rocket.jpg"};
  for (int i = 0; i < 9; ++i) {
    const std::string stem = "a" + std::to_string(i);
    const std::string sub = i < 5 ? "x/" : "y/";
    cv::Mat im = testing::imread((testing::samples_dir() / photos[i % 5]).string(), cv::IMREAD_UNCHANGED);
    cv::resize(im, im, cv::Size(), 0.3, 0.3, cv::INTER_AREA);
    fs::create_directories(root / "images" / sub);
    testing::imwrite((root / "images" / sub / (stem + ".png")).string(), im);
    cv::Mat mask(im.rows, im.cols, CV_8UC1, cv::Scalar(0));
    cv::rectangle(mask, cv::Rect(im.cols / 4, im.rows / 4, im.cols / 2, im.rows / 2), cv::Scalar(1 + i % 3), cv::FILLED);
    fs::create_directories(root / "masks" / sub);
    testing::imwrite((root / "masks" / sub / (stem + ".png")).string(), mask);
    testing::write_text(root / "labels" / sub / (stem + ".txt"),
                        std::to_string(i % 3) + " 0.5 0.5 0.5 0.5\n" + std::to_string((i + 1) % 3) + " 0.2 0.2 0.1 0.2\n");
  }
  testing::write_text(root / "p.json", R"({"version": 1, "seed": 4, "stages": [
      {"stage": "mosaic", "p": 1, "target_size": [120, 160], "cell_shape": [100, 110]},
      {"stage": "mixup", "p": 0.5},
      {"stage": "cutmix", "p": 0.5},
      {"stage": "flip", "p": 0.5}]})");
}

testing::Result run_into(const fs::path& root, const std::string& out, std::vector<std::string> extra) {
  std::vector<std::string> args{"run", "-c", (root / "p.json").string(), "-i", (root / "images").string(), "-o",
                                (root / out).string(), "--labels", "yolo", "--masks", (root / "masks").string(),
                                "--masks-output", (root / (out + "-masks")).string(), "--manifest",
                                (root / (out + ".jsonl")).string(), "--copies", "2"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(args);
}

// Every file under `dir`, relative path -> bytes.
std::map<std::string, std::vector<std::uint8_t>> files(const fs::path& dir) {
  std::map<std::string, std::vector<std::uint8_t>> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).generic_string()] = testing::read_bytes(e.path());
  return out;
}

TEST(MixRun, ShardsThreadsAndDevicesWriteTheSameBytes) {
  testing::TempDir dir;
  dataset(dir.path());
  auto r = run_into(dir.path(), "full", {"--threads", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto full = files(dir / "full");
  const auto full_masks = files(dir / "full-masks");
  ASSERT_EQ(full_masks.size(), 18u);

  // Three shards into separate folders: together, the same files; their manifests merge to the full one.
  std::map<std::string, std::vector<std::uint8_t>> joined, joined_masks;
  for (int k = 0; k < 3; ++k) {
    const std::string out = "s" + std::to_string(k);
    r = run_into(dir.path(), out, {"--shard", std::to_string(k) + "/3"});
    ASSERT_EQ(r.code, 0) << r.err;
    for (auto& [name, bytes] : files(dir / out)) joined[name] = bytes;
    for (auto& [name, bytes] : files(dir / (out + "-masks"))) joined_masks[name] = bytes;
  }
  EXPECT_EQ(joined, full);
  EXPECT_EQ(joined_masks, full_masks);
  r = run_cli({"merge", (dir / "s1.jsonl").string(), (dir / "s0.jsonl").string(), (dir / "s2.jsonl").string(), "-o",
               (dir / "merged.jsonl").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(testing::read_text(dir / "merged.jsonl"), testing::read_text(dir / "full.jsonl"));

  // One worker; the emulated device.
  r = run_into(dir.path(), "one", {"--threads", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(files(dir / "one"), full);
  EXPECT_EQ(testing::read_text(dir / "one.jsonl"), testing::read_text(dir / "full.jsonl"));
  r = run_into(dir.path(), "emu", {"--device", "cuda-emulated", "--threads", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(files(dir / "emu"), full);
  EXPECT_EQ(files(dir / "emu-masks"), full_masks);

  // The manifest names each output's partners: other inputs, from either folder.
  std::istringstream lines(testing::read_text(dir / "full.jsonl"));
  std::string line;
  std::set<std::string> partners;
  int outputs = 0;
  while (std::getline(lines, line)) {
    const json j = json::parse(line);
    if (!j.contains("stages")) continue;
    ++outputs;
    const json& mosaic = j["stages"][0]["params"];
    ASSERT_EQ(mosaic["partners"].size(), 3u) << line;
    for (const auto& p : mosaic["partners"]) {
      EXPECT_NE(p.get<std::string>(), j["input"].get<std::string>());
      partners.insert(p.get<std::string>());
    }
    // Labels of several images: more rows than the input's two.
    EXPECT_GT(j["labels"]["kept"].get<int>(), 2) << line;
  }
  EXPECT_EQ(outputs, 18);
  EXPECT_GE(partners.size(), 6u);
  EXPECT_TRUE(partners.count("y/a5.png") || partners.count("y/a6.png")) << "partners from every folder";
}

TEST(MixRun, AnUnreadablePartnerFailsOnlyTheOutputsThatDrewIt) {
  testing::TempDir dir;
  dataset(dir.path());
  testing::write_text(dir / "images" / "x" / "a2.png", "not a png");
  const auto r = run_into(dir.path(), "out", {"--threads", "2"});
  EXPECT_EQ(r.code, 2) << r.err;  // finished, some outputs failed
  EXPECT_NE(r.err.find("its partner"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a2.png"), std::string::npos) << r.err;
  // Outputs whose partners were all readable are written.
  std::size_t written = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "out"))
    written += e.is_regular_file() && e.path().extension() == ".png";
  EXPECT_GT(written, 0u);
  EXPECT_LT(written, 16u);
}

}  // namespace
}  // namespace aug::test_mix_run
