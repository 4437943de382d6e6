// augment verify-devices / --verify-devices as users run it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/gpu/gpu.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_verify_cli {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

const std::string kDefault = (testing::source_dir() / "configs" / "default.json").string();

TEST(VerifyCli, BuiltInSamplesAgreeAndEveryLineSaysWhatRan) {
  testing::TempDir dir;
  const auto r = run_cli({"--verify-devices", "-c", kDefault, "--report", (dir / "v.json").string(), "--html",
                          (dir / "v.html").string()});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  const bool gpu = !gpu::inventory().devices.empty();
  std::istringstream in(r.out);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 8u) << r.out;
  // Without a GPU a banner says so above and below the table, and nowhere else; the device
  // column of every comparison names cuda-emulated.
  const std::string banner = "=== no GPU involved: cuda-emulated runs the CUDA kernels on the host ===";
  int banners = 0, rows = 0;
  for (const auto& line : lines) {
    banners += line.find("no GPU involved") != std::string::npos;
    if (line.find("cpu vs ") != std::string::npos) {
      ++rows;
      if (!gpu) {
        EXPECT_NE(line.find("cpu vs cuda-emulated:0"), std::string::npos) << line;
      }
    }
  }
  EXPECT_GT(rows, 0) << r.out;
  if (gpu) {
    EXPECT_EQ(banners, 0) << r.out;
  } else {
    EXPECT_EQ(banners, 2) << r.out;
    EXPECT_EQ(lines.front(), banner);
    EXPECT_EQ(lines.back(), banner);
  }
  EXPECT_NE(r.out.find("end to end"), std::string::npos);

  std::ifstream f(dir / "v.json");
  const auto j = nlohmann::json::parse(f);
  EXPECT_EQ(j["schema"], "augment-verify/1");
  EXPECT_EQ(j["gpu_involved"], gpu);
  EXPECT_EQ(j["images"].size(), 6u);
  EXPECT_EQ(j["summary"]["all_within_tolerance"], true);
  EXPECT_EQ(j["pipeline"]["document"]["seed"], 7);
  for (const auto& im : j["images"])
    for (const auto& s : im["stages"])
      for (const auto& c : s["comparisons"]) EXPECT_EQ(c["differing"], 0) << s["stage"];
  std::ifstream h(dir / "v.html");
  std::stringstream html;
  html << h.rdbuf();
  EXPECT_NE(html.str().find("<html>"), std::string::npos);
  if (!gpu) {
    EXPECT_NE(html.str().find("No GPU was involved"), std::string::npos);
  }
}

// With shrink-on-load, verify-devices compares what run computes: the input decoded smaller.
TEST(VerifyCli, ShrinkOnLoadIsVerifiedAsRunDecodes) {
  testing::TempDir dir;
  cv::Mat big;
  cv::resize(testing::imread((testing::samples_dir() / "astronaut.jpg").string()), big, {1024, 1024});
  fs::create_directories(dir / "in");
  ASSERT_TRUE(testing::imwrite((dir / "in/big.jpg").string(), big));
  testing::write_text(dir / "p.json", R"({"version": 1, "decode": {"shrink": true},
      "stages": [{"stage": "resize", "short_side": 200}, {"stage": "invert"}]})");
  const auto r = run_cli({"--verify-devices", "-c", (dir / "p.json").string(), "-i", (dir / "in").string(),
                          "--report", (dir / "v.json").string()});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  std::ifstream f(dir / "v.json");
  const auto j = nlohmann::json::parse(f);
  ASSERT_EQ(j["images"].size(), 1u);
  EXPECT_EQ(j["images"][0]["shape"], nlohmann::json::parse("[256, 256, 3]"));  // 1024 / 4
  EXPECT_EQ(j["summary"]["all_within_tolerance"], true);
  EXPECT_FALSE(j["images"][0].contains("jpeg_decode"));

  // --device-jpeg: a run decodes a shrunk input on the CPU (said so); the encoding is still compared.
  const auto codec = run_cli({"verify-devices", "-c", (dir / "p.json").string(), "-i", (dir / "in").string(),
                              "--device-jpeg", "--quality", "80", "--report", (dir / "codec.json").string()});
  EXPECT_EQ(codec.code, 0) << codec.out << codec.err;
  EXPECT_NE(codec.out.find("--device-jpeg: 1 image runs decoded on the CPU (shrink-on-load)"), std::string::npos)
      << codec.out;
  EXPECT_NE(codec.out.find("JPEG encoding q80 (file bytes)"), std::string::npos) << codec.out;
  std::ifstream g(dir / "codec.json");
  const auto k = nlohmann::json::parse(g);
  EXPECT_EQ(k["device_jpeg"]["quality"], 80);
  EXPECT_EQ(k["images"][0]["jpeg_decode"].size(), 0u);
  ASSERT_GE(k["images"][0]["jpeg_encode"].size(), 1u);  // one comparison per pair of devices
  for (const auto& e : k["images"][0]["jpeg_encode"]) {
    EXPECT_EQ(e["differing"], 0);
    EXPECT_GT(e["values"], 1000);
  }
}

TEST(VerifyCli, TypesAreComparedAndShownWithHeatMaps) {
  testing::TempDir dir;
  const auto r = run_cli({"verify-devices", "-c", (testing::source_dir() / "configs/bench-p1.json").string(), "--dtypes",
                          "u8,f32", "--images", "2", "--html", (dir / "v.html").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("u8 vs f32"), std::string::npos);
  EXPECT_NE(r.out.find("differs"), std::string::npos);
  std::ifstream h(dir / "v.html");
  std::stringstream html;
  html << h.rdbuf();
  EXPECT_NE(html.str().find("data:image/png;base64,"), std::string::npos);
  EXPECT_NE(html.str().find("amplified"), std::string::npos);
}

// The page's text without its tags, as a reader sees it.
std::string page_text(const std::string& html) {
  std::string text;
  bool tag = false;
  for (char c : html) {
    if (c == '<') tag = true;
    else if (c == '>') tag = false;
    else if (!tag) text += c;
  }
  return text;
}

// The HTML page leads with the verdict and what was compared, gives each comparison's PSNR, and keeps
// the comparisons between sample types after the devices', as information.
TEST(VerifyCli, HtmlLeadsWithTheVerdictAndSetsTypeComparisonsApart) {
  testing::TempDir dir;
  const std::string p1 = (testing::source_dir() / "configs/bench-p1.json").string();
  const auto r = run_cli({"verify-devices", "-c", p1, "--dtypes", "u8,f32", "--images", "2", "--html",
                          (dir / "v.html").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = testing::read_text(dir / "v.html");
  const std::string text = page_text(html);
  const std::size_t verdict = text.find("PASS"), devices = text.find("Devices, stage by stage"),
                    info = text.find("Information (does not decide the verdict)");
  ASSERT_NE(verdict, std::string::npos) << text;
  ASSERT_NE(devices, std::string::npos) << text;
  ASSERT_NE(info, std::string::npos) << text;
  EXPECT_LT(verdict, devices);
  EXPECT_LT(devices, info);
  EXPECT_EQ(text.find("FAIL"), std::string::npos);
  EXPECT_NE(text.find("Compared cpu, "), std::string::npos) << text;
  EXPECT_NE(text.find(" on 2 images as u8, f32 through 3 stages (resize, gaussian_blur, channel_gain)"),
            std::string::npos) << text;
  // The device table has a PSNR column; the type comparisons, and their "differs", come after it only.
  const std::size_t psnr = text.find("PSNR", devices);
  ASSERT_LT(psnr, info);
  const std::string rows = text.substr(psnr, info - psnr);
  EXPECT_TRUE(rows.find("inf") != std::string::npos || rows.find(" dB") != std::string::npos) << rows;
  EXPECT_GT(text.find("u8 vs f32"), info);
  EXPECT_GT(text.find("differs"), info);
  EXPECT_GT(text.find("amplified"), info);
  EXPECT_EQ(html.find("class=\"ok\">differs"), std::string::npos);  // information is not shown as a pass
}

TEST(VerifyCli, UsageAndDeviceErrorsExitOne) {
  const bool gpu = !gpu::inventory().devices.empty();
  if (!gpu) {
    const auto need = run_cli({"verify-devices", "-c", kDefault, "--require-gpu"});
    EXPECT_EQ(need.code, 1);
    EXPECT_NE(need.err.find("--require-gpu: there is no usable CUDA GPU"), std::string::npos) << need.err;
    const auto missing = run_cli({"verify-devices", "-c", kDefault, "--devices", "cpu,cuda:0"});
    EXPECT_EQ(missing.code, 1);
    EXPECT_NE(missing.err.find("cuda:0 is not available"), std::string::npos) << missing.err;
  }
  EXPECT_EQ(run_cli({"verify-devices", "-c", kDefault, "--tolerance", "nosuch=1"}).code, 1);
  EXPECT_EQ(run_cli({"verify-devices", "-c", kDefault, "--tolerance", "flip"}).code, 1);
  EXPECT_EQ(run_cli({"verify-devices", "-c", kDefault, "--dtypes", "u12"}).code, 1);
  EXPECT_EQ(run_cli({"verify-devices", "-c", kDefault, "-i", "/nonexistent"}).code, 1);
  EXPECT_EQ(run_cli({"verify-devices", "-c", kDefault, "--devices", "cpu"}).code, 1);
  EXPECT_EQ(run_cli({"verify-devices", "-c", kDefault, "--device-jpeg", "--quality", "0"}).code, 1);
  const auto explicit_emulated = run_cli({"verify-devices", "-c", kDefault, "--devices", "cpu,cuda-emulated", "--images", "1"});
  EXPECT_EQ(explicit_emulated.code, 0) << explicit_emulated.err;
}

// --devices is read by the parser of run's --device lists: the same checks, naming --devices.
TEST(VerifyCli, DeviceListsAreCheckedAsRunChecksThem) {
  const auto twice = run_cli({"verify-devices", "-c", kDefault, "--devices", "cpu,cuda-emulated:0,cuda-emulated"});
  EXPECT_EQ(twice.code, 1);
  EXPECT_NE(twice.err.find("--devices cuda-emulated:0,cuda-emulated: cuda-emulated:0 is named twice"), std::string::npos)
      << twice.err;
  const auto bad = run_cli({"verify-devices", "-c", kDefault, "--devices", "cpu,gpu0"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("--devices gpu0: expected cpu, auto"), std::string::npos) << bad.err;
  const auto all = run_cli({"verify-devices", "-c", kDefault, "--devices", "cuda-emulated:all", "--images", "1"},
                           {"AUGMENT_EMULATED_GPUS=2"});
  EXPECT_EQ(all.code, 0) << all.err;
  EXPECT_NE(all.out.find("cuda-emulated:1"), std::string::npos) << all.out;
}

}  // namespace
}  // namespace aug::test_verify_cli
