// Class-balanced copies as a user runs them: `augment run --balance repeat-factor[:T]` and
// `--copies-per-class FILE` over small YOLO datasets with a rare class, the copies each image gets
// held against LVIS's repeat-factor formula, the plan printed and recorded, and shards that plan as
// the whole run does.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "tests/support/testing.hpp"

namespace aug::test_balance {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

// ds/images/imNNN.png (small solid images) with YOLO labels: `rare` of the `n` images hold class 1
// (with a class 0 object beside it), the others class 0 only; ds/data.yaml names them.
void dataset(const fs::path& root, int n, const std::set<int>& rare) {
  fs::create_directories(root / "images");
  for (int i = 0; i < n; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "im%03d", i);
    testing::imwrite((root / "images" / (std::string(name) + ".png")).string(),
                cv::Mat(12 + i % 5, 16, CV_8UC3, cv::Scalar(i % 256, 80, 160)));
    std::string rows = "0 0.5 0.5 0.25 0.25\n";
    if (rare.count(i)) rows += "1 0.3 0.3 0.2 0.2\n";
    testing::write_text(root / "labels" / (std::string(name) + ".txt"), rows);
  }
  testing::write_text(root / "data.yaml", "names:\n  0: car\n  1: unicycle\n");
}

void pipeline(const fs::path& file) {
  testing::write_text(file, R"({"version": 1, "seed": 7, "stages": [{"stage": "flip", "p": 0.5}]})");
}

// Outputs per input from a dry run's listing ("images/im007.png -> out/im007_3.png").
std::map<std::string, int> planned(const std::string& listing) {
  std::map<std::string, int> copies;
  std::istringstream lines(listing);
  std::string line;
  while (std::getline(lines, line)) {
    const auto arrow = line.find(" -> ");
    // Not the plan's lines ("balance (...): 400 inputs -> 416 outputs") nor a label's ("  labels -> ").
    if (arrow != std::string::npos && line.rfind("  ", 0) != 0 && line.compare(arrow - 4, 4, ".png") == 0)
      ++copies[line.substr(0, arrow)];
  }
  return copies;
}

TEST(Balance, RepeatFactorGivesTheFormulasCopiesAndFrequency) {
  testing::TempDir dir;
  dataset(dir / "ds", 50, {7});
  pipeline(dir / "p.json");
  // f(unicycle) = 1/50, t = 0.1: r = sqrt(0.1 / 0.02) = sqrt(5), 4 copies each -> 4 sqrt(5) = 8.94 for
  // the rare image, rounded to 8 or 9; f(car) = 1: r = 1, 4 copies.
  const auto r = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "ds/images").string(), "-o",
                          (dir / "out").string(), "--labels", "yolo", "--copies", "4", "--balance", "repeat-factor:0.1",
                          "--manifest", (dir / "m.jsonl").string(), "--log-format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const double want = 4 * std::sqrt(5.0);
  std::map<std::string, int> copies;
  int with_rare = 0, outputs = 0;
  for (const auto& f : testing::list_files(dir / "out")) {
    if (fs::path(f).extension() != ".txt") continue;
    ++outputs;
    ++copies[f.substr(0, f.find('_'))];
    const std::string rows = testing::read_text(dir / "out" / f);
    if (rows.find("\n1 ") != std::string::npos || rows.rfind("1 ", 0) == 0) ++with_rare;
  }
  ASSERT_EQ(copies.size(), 50u);
  for (const auto& [stem, n] : copies) {
    if (stem == "im007") {
      EXPECT_TRUE(n == int(std::floor(want)) || n == int(std::ceil(want))) << n;
    } else {
      EXPECT_EQ(n, 4) << stem;
    }
  }
  // The rare class's output frequency is what the plan said, and within one copy of the formula's.
  EXPECT_EQ(with_rare, copies["im007"]);
  const double observed = double(with_rare) / outputs, expected = want / (49 * 4 + want);
  EXPECT_NEAR(observed, expected, 1.0 / outputs);
  std::cerr << "unicycle: input frequency 0.02, output frequency expected " << expected << ", observed " << observed
            << "\n";

  // The plan in the JSON summary and in every manifest line.
  const auto summary = nlohmann::json::parse(r.out.substr(r.out.rfind("\n{") + 1));
  ASSERT_TRUE(summary["balance"].is_object()) << r.out;
  EXPECT_EQ(summary["balance"]["method"], "repeat-factor t=0.1");
  EXPECT_EQ(summary["balance"]["outputs"], outputs);
  const auto& classes = summary["balance"]["classes"];
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[1]["class"], "1 (unicycle)");
  EXPECT_EQ(classes[1]["images"], 1);
  EXPECT_NEAR(classes[1]["repeat"].get<double>(), std::sqrt(5.0), 1e-12);
  EXPECT_EQ(classes[1]["outputs"], with_rare);
  std::istringstream lines(testing::read_text(dir / "m.jsonl"));
  std::string line;
  int records = 0;
  while (std::getline(lines, line)) {
    const auto rec = nlohmann::json::parse(line);
    ++records;
    const bool rare = rec["input"] == "im007.png";
    EXPECT_EQ(rec["balance"]["copies"], rare ? copies["im007"] : 4) << line;
    EXPECT_NEAR(rec["balance"]["repeat"].get<double>(), rare ? std::sqrt(5.0) : 1.0, 1e-12) << line;
  }
  EXPECT_EQ(records, outputs);
}

TEST(Balance, StochasticRoundingKeepsTheMeanAndTheDefaultThresholdLeavesCommonClassesAlone) {
  testing::TempDir dir;
  std::set<int> rare;
  for (int i = 0; i < 400; i += 10) rare.insert(i);  // f = 0.1
  dataset(dir / "ds", 400, rare);
  pipeline(dir / "p.json");
  // t = 0.25: r = sqrt(2.5) = 1.581 for the 40 images with class 1: each 1 or 2 copies, 2 with
  // probability 0.581. The sum of 40 such draws has mean 63.25 and standard deviation 3.1.
  const auto r = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "ds/images").string(), "-o",
                          (dir / "out").string(), "--labels", "yolo", "--balance", "repeat-factor:0.25", "--dry-run"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("balance (repeat-factor t=0.25): 400 inputs -> "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 (unicycle)"), std::string::npos) << r.out;
  int rare_total = 0;
  for (const auto& [input, n] : planned(r.out)) {
    const int i = std::stoi(input.substr(input.size() - 7, 3));
    if (rare.count(i)) {
      EXPECT_TRUE(n == 1 || n == 2) << input << ": " << n;
      rare_total += n;
    } else {
      EXPECT_EQ(n, 1) << input;
    }
  }
  const double mean = 40 * std::sqrt(2.5), sd = std::sqrt(40 * 0.5811 * 0.4189);
  EXPECT_NEAR(rare_total, mean, 4 * sd);
  std::cerr << "40 images at r = 1.581: " << rare_total << " copies, expected " << mean << "\n";

  // The default threshold (0.001) repeats nothing at f = 0.1.
  const auto d = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "ds/images").string(), "-o",
                          (dir / "out").string(), "--labels", "yolo", "--balance", "repeat-factor", "--dry-run"});
  ASSERT_EQ(d.code, 0) << d.err;
  for (const auto& [input, n] : planned(d.out)) EXPECT_EQ(n, 1) << input;
}

TEST(Balance, ShardsPlanWhatTheWholeRunPlans) {
  testing::TempDir dir;
  dataset(dir / "ds", 60, {3, 41});
  pipeline(dir / "p.json");
  const auto args = [&](const std::string& out) {
    return std::vector<std::string>{"run", "-c", (dir / "p.json").string(), "-i", (dir / "ds/images").string(), "-o",
                                    (dir / out).string(), "--labels", "yolo", "--copies", "2", "--balance",
                                    "repeat-factor:0.3"};
  };
  ASSERT_EQ(run_cli(args("whole")).code, 0);
  std::set<std::string> sharded;
  for (int k = 0; k < 3; ++k) {
    auto a = args("shard" + std::to_string(k));
    a.insert(a.end(), {"--shard", std::to_string(k) + "/3"});
    const auto r = run_cli(a);
    ASSERT_EQ(r.code, 0) << r.err;
    for (const auto& f : testing::list_files(dir / ("shard" + std::to_string(k)))) {
      if (f == "data.yaml") continue;
      EXPECT_TRUE(sharded.insert(f).second) << f;
      EXPECT_EQ(testing::read_bytes(dir / ("shard" + std::to_string(k)) / f), testing::read_bytes(dir / "whole" / f)) << f;
    }
  }
  std::set<std::string> whole;
  for (const auto& f : testing::list_files(dir / "whole"))
    if (f != "data.yaml") whole.insert(f);
  EXPECT_EQ(sharded, whole);
  EXPECT_GT(whole.size(), 2u * 60 * 2);  // the rare images got more than 2 copies
}

TEST(Balance, CopiesPerClassFileByNameOrId) {
  testing::TempDir dir;
  dataset(dir / "ds", 10, {2, 5});
  pipeline(dir / "p.json");
  testing::write_text(dir / "targets.json", R"({"unicycle": 6})");
  testing::write_text(dir / "targets.txt", "# rare ones\n1 3\n");
  for (const auto& [file, want] : std::vector<std::pair<std::string, int>>{{"targets.json", 6}, {"targets.txt", 3}}) {
    const auto r = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "ds/images").string(), "-o",
                            (dir / "out").string(), "--labels", "yolo", "--copies-per-class", (dir / file).string(),
                            "--dry-run"});
    ASSERT_EQ(r.code, 0) << r.err;
    for (const auto& [input, n] : planned(r.out)) {
      const bool rare = input.find("im002") != std::string::npos || input.find("im005") != std::string::npos;
      EXPECT_EQ(n, rare ? want : 1) << file << ": " << input;
    }
  }
}

TEST(Balance, RefusalsNameWhatIsWrong) {
  testing::TempDir dir;
  dataset(dir / "ds", 3, {1});
  pipeline(dir / "p.json");
  const std::vector<std::string> base{"run", "-c", (dir / "p.json").string(), "-i", (dir / "ds/images").string(),
                                      "-o", (dir / "out").string()};
  const auto with = [&](std::vector<std::string> extra) {
    auto a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return run_cli(a);
  };
  auto r = with({"--balance", "repeat-factor"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("--balance needs the labels"), std::string::npos) << r.err;
  r = with({"--labels", "yolo", "--balance", "repeat-factor:2"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("must be a number in (0, 1]"), std::string::npos) << r.err;
  r = with({"--labels", "yolo", "--balance", "class-aware"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("expected repeat-factor"), std::string::npos) << r.err;
  testing::write_text(dir / "bad.txt", "1 3\nunicycle\n");
  r = with({"--labels", "yolo", "--copies-per-class", (dir / "bad.txt").string()});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("bad.txt:2: expected \"CLASS COPIES\""), std::string::npos) << r.err;
  r = with({"--labels", "yolo", "--copies-per-class", (dir / "bad.txt").string(), "--balance", "repeat-factor"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
}  // namespace aug::test_balance
