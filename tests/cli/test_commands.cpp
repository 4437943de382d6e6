// The commands other than `run`, as a user runs them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/core/utility.hpp>

#include "lib/gpu/gpu.hpp"
#include "lib/pipeline/describe.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_commands {
namespace {

using testing::run_cli;

TEST(Cli, HelpAndVersion) {
  const auto help = run_cli({"--help"});
  EXPECT_EQ(help.code, 0);
  for (const char* cmd : {"run", "validate", "stages", "describe", "schema", "devices"})
    EXPECT_NE(help.out.find(cmd), std::string::npos) << cmd;
  const auto run_help = run_cli({"run", "--help"});
  EXPECT_EQ(run_help.code, 0);
  for (const char* opt : {"--copies", "--seed", "--threads", "--format", "--quality", "--name", "--overwrite", "--resume",
                          "--manifest", "--shard", "--shards", "--max-errors", "--fail-fast", "--dry-run", "--device", "--progress",
                          "--labels", "--masks", "--mask-suffix", "--masks-output"})
    EXPECT_NE(run_help.out.find(opt), std::string::npos) << opt;
  const auto version = run_cli({"--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_EQ(version.out.rfind("augment ", 0), 0u);
  // The libraries that decide output bytes, and CUDA's runtime and driver ("none" without them).
  EXPECT_NE(version.out.find("OpenCV " + cv::getVersionString() + ", libjpeg"), std::string::npos) << version.out;
  EXPECT_NE(version.out.find(", libpng 1."), std::string::npos) << version.out;
  const gpu::Inventory inv = gpu::inventory();
  EXPECT_NE(version.out.find("CUDA runtime " + gpu::cuda_version(inv.runtime_version) + ", driver " +
                             gpu::cuda_version(inv.driver_version)),
            std::string::npos)
      << version.out;
  if (!inv.built_with_cuda) {
    EXPECT_NE(version.out.find("CUDA runtime none, driver none (built without CUDA)"), std::string::npos) << version.out;
  }
}

TEST(Cli, UsageErrorsExitOne) {
  EXPECT_EQ(run_cli({}).code, 1);
  EXPECT_EQ(run_cli({"frobnicate"}).code, 1);
  EXPECT_EQ(run_cli({"run", "-c", "x.json"}).code, 1);  // -i and -o missing
  const auto bad = run_cli({"run", "-c", "x.json", "-i", "a", "-o", "b", "--quality", "500"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("--quality"), std::string::npos);
}

TEST(Cli, ValidateEveryShippedConfig) {
  for (const auto& e : std::filesystem::directory_iterator(testing::source_dir() / "configs")) {
    const auto ext = e.path().extension();
    if ((ext != ".json" && ext != ".yaml") || e.path().filename() == "pipeline.schema.json") continue;
    const auto r = run_cli({"validate", e.path().string()});
    EXPECT_EQ(r.code, 0) << e.path() << r.err;
    EXPECT_NE(r.out.find(": valid ("), std::string::npos);
  }
}

TEST(Cli, ValidateReportsTheFirstProblemAndExitsOne) {
  testing::TempDir dir;
  std::ofstream(dir / "bad.json") << R"({"version": 1, "stages": [{"stage": "gaussian_blur", "sigma": 0}]})";
  const auto r = run_cli({"validate", (dir / "bad.json").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("bad.json:/stages/0/sigma: gaussian_blur: \"sigma\" = 0 is outside (0, 50]"), std::string::npos)
      << r.err;
  const auto missing = run_cli({"validate", (dir / "missing.json").string()});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("cannot read the pipeline file"), std::string::npos);
}

TEST(Cli, StagesDescribeSchema) {
  const auto stages = run_cli({"stages"});
  EXPECT_EQ(stages.code, 0);
  EXPECT_NE(stages.out.find("gaussian_blur"), std::string::npos);
  const auto json = run_cli({"stages", "--json"});
  EXPECT_GE(nlohmann::json::parse(json.out).size(), 9u);
  const auto markdown = run_cli({"stages", "--markdown"});
  EXPECT_EQ(markdown.code, 0);
  EXPECT_EQ(markdown.out, stage_table_markdown());
  EXPECT_NE(run_cli({"stages", "--markdown", "--json"}).code, 0) << "one format at a time";

  const auto d = run_cli({"describe", "resize"});
  EXPECT_EQ(d.code, 0);
  EXPECT_NE(d.out.find("short_side: integer or [lo, hi]"), std::string::npos);
  const auto dj = run_cli({"describe", "resize", "--json"});
  EXPECT_EQ(nlohmann::json::parse(dj.out)["schema"]["properties"]["stage"]["const"], "resize");
  const auto unknown = run_cli({"describe", "blur"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("unknown stage \"blur\""), std::string::npos);

  EXPECT_EQ(run_cli({"schema"}).out, pipeline_schema().dump(2) + "\n");
}

TEST(Cli, DevicesSaysWhatThereIs) {
  const auto r = run_cli({"devices"});
  EXPECT_EQ(r.code, 0);
  const gpu::Inventory inv = gpu::inventory();
  if (inv.devices.empty()) EXPECT_NE(r.out.find("no usable CUDA GPU: " + inv.why_none), std::string::npos) << r.out;
  else EXPECT_NE(r.out.find("cuda:0  " + inv.devices[0].name), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(run_cli({"devices", "--json"}).out);
  EXPECT_EQ(j["devices"].size(), inv.devices.size());
  // The emulated devices, and how to use them all.
  const auto three = run_cli({"devices"}, {"AUGMENT_EMULATED_GPUS=3"});
  EXPECT_NE(three.out.find("emulated, for testing: cuda-emulated:0 to cuda-emulated:2 (--device cuda-emulated:all)"),
            std::string::npos)
      << three.out;
  const auto three_json = nlohmann::json::parse(run_cli({"devices", "--json"}, {"AUGMENT_EMULATED_GPUS=3"}).out);
  EXPECT_EQ(three_json["emulated_devices"], nlohmann::json({"cuda-emulated:0", "cuda-emulated:1", "cuda-emulated:2"}));
  if (inv.devices.size() > 1) {
    EXPECT_NE(r.out.find("--device cuda:all spreads a run's images over these"), std::string::npos) << r.out;
  }
  EXPECT_EQ(j["built_with_cuda"], inv.built_with_cuda);
}

TEST(Cli, AMissingGpuIsAClearErrorAndWritesNothing) {
  const gpu::Inventory inv = gpu::inventory();
  const std::string device = "cuda:" + std::to_string(inv.devices.size());  // one past the last
  testing::TempDir dir;
  const auto r = run_cli({"run", "-c", (testing::source_dir() / "configs/default.json").string(), "-i",
                          testing::samples_dir().string(), "-o", (dir / "out").string(), "--device", device});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(device + " is not available"), std::string::npos) << r.err;
  EXPECT_TRUE(testing::list_files(dir / "out").empty());
  const auto bad = run_cli({"run", "-c", "x", "-i", "y", "-o", "z", "--device", "gpu0"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("expected cpu, auto, cuda, cuda:N"), std::string::npos);
}

TEST(Cli, ADeviceFaultStopsTheRunWithADeviceError) {
  const std::string config = (testing::source_dir() / "configs/kornia-chain.json").string();
  {  // at start-up (the probe launch): exit 1 before anything is written
    testing::TempDir dir;
    const auto r = run_cli({"run", "-c", config, "-i", testing::samples_dir().string(), "-o", (dir / "out").string(),
                            "--device", "cuda-emulated"},
                           {"AUGMENT_EMULATED_FAULT=1"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("cuda-emulated:0: cannot run augment's kernels on this device"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out"));
  }
  {  // later: the run stops with the device's error, and no image is blamed for it
    testing::TempDir dir;
    const auto r = run_cli({"run", "-c", config, "-i", testing::samples_dir().string(), "-o", (dir / "out").string(),
                            "--device", "cuda-emulated", "--threads", "1", "--copies", "4"},
                           {"AUGMENT_EMULATED_FAULT=12"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("the device failed; stopping"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cuda-emulated:0: an illegal memory access was encountered"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("(stopped: the device failed)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(", 0 failed inputs"), std::string::npos) << r.out;
  }
}

// A GPU reports a kernel's fault later, at the next synchronisation (or any later launch), so the
// fault is put on the steps run since the device last synchronised, never on one step that merely
// reported it; with AUGMENT_SYNC_LAUNCHES=1 (a synchronisation after each step) on exactly the one.
TEST(Cli, ADeviceFaultIsPutOnTheStepsThatMayHaveCausedIt) {
  const std::string config = (testing::source_dir() / "configs/kornia-chain.json").string();
  auto fault_with = [&](std::vector<std::string> env) {
    testing::TempDir dir;
    env.push_back("AUGMENT_EMULATED_FAULT=12");
    const auto r = run_cli({"run", "-c", config, "-i", testing::samples_dir().string(), "-o", (dir / "out").string(),
                            "--device", "cuda-emulated", "--threads", "1"},
                           env);
    EXPECT_EQ(r.code, 1) << r.err;
    return r.err;
  };
  const std::string exact = fault_with({"AUGMENT_SYNC_LAUNCHES=1"});
  const std::size_t at = exact.find("(in ");
  ASSERT_NE(at, std::string::npos) << exact;
  const std::string step = exact.substr(at + 4, exact.find(')', exact.find('(', at + 4)) + 1 - (at + 4));
  EXPECT_NE(step.find("(/stages/"), std::string::npos) << exact;
  EXPECT_EQ(exact.find("one of the steps"), std::string::npos) << exact;
  const std::string candidates = fault_with({});
  EXPECT_NE(candidates.find("in one of the steps since the device last synchronised: "), std::string::npos) << candidates;
  EXPECT_NE(candidates.find(step), std::string::npos) << "the step that faulted, " << step << ", is not among: " << candidates;
  EXPECT_EQ(candidates.find("kernel \""), std::string::npos) << "no single kernel is named: " << candidates;
}

TEST(Cli, EmulatedGpusAreCountedByTheEnvironment) {
  const std::string config = (testing::source_dir() / "configs/kornia-chain.json").string();
  const std::string image = (testing::samples_dir() / "chelsea.png").string();
  {
    testing::TempDir dir;
    const auto r = run_cli({"run", "-c", config, "-i", image, "-o", (dir / "out").string(), "--device", "cuda-emulated:1"},
                           {"AUGMENT_EMULATED_GPUS=2"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(testing::list_files(dir / "out").size(), 1u);
  }
  {
    testing::TempDir dir;
    const auto r = run_cli({"run", "-c", config, "-i", image, "-o", (dir / "out").string(), "--device", "cuda-emulated:2"},
                           {"AUGMENT_EMULATED_GPUS=2"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("cuda-emulated:2 does not exist: the emulated devices are cuda-emulated:0 to cuda-emulated:1"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out")) << "nothing is written for a device that does not exist";
  }
  const auto bad = run_cli({"run", "-c", config, "-i", image, "-o", "/tmp/never", "--device", "cuda-emulated"},
                           {"AUGMENT_EMULATED_GPUS=many"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("AUGMENT_EMULATED_GPUS=many: expected a number of emulated GPUs from 1 to 16"), std::string::npos)
      << bad.err;
  // verify-devices compares the CPU with every emulated GPU when there is no real one.
  if (gpu::inventory().devices.empty()) {
    const auto v = run_cli({"verify-devices", "-c", config, "-i", image}, {"AUGMENT_EMULATED_GPUS=2"});
    EXPECT_EQ(v.code, 0) << v.err;
    EXPECT_NE(v.out.find("cuda-emulated:0"), std::string::npos) << v.out;
    EXPECT_NE(v.out.find("cuda-emulated:1"), std::string::npos) << v.out;
  }
}

}  // namespace
}  // namespace aug::test_commands
