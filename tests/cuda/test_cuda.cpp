// On a real CUDA GPU: every stage against the CPU path, bit for bit for integer images. Without a
// GPU every test here is reported as skipped, never as passed. Built again into <build>/sim/ (a CUDA
// build with tests, cmake/Cuda.cmake), they run on simulated GPUs whose kernels the PTX interpreter executes (docs/ptx-interpreter.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <opencv2/core.hpp>

#include "lib/core/error.hpp"
#include "lib/gpu/gpu.hpp"
#include "tests/stages/stage_cases.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug {
namespace {

// The CUDA index of the usable GPU at `position` in the inventory, or -1. The inventory leaves out
// GPUs too old for this build, so the first usable GPU need not be cuda:0: tests address GPUs by
// their index, never by their place in the list.
int usable_gpu(std::size_t position, std::string& why_not) {
  const gpu::Inventory inv = gpu::inventory();
  if (inv.devices.size() > position) return inv.devices[position].index;
  why_not = inv.devices.empty() ? inv.why_none : "this machine has fewer usable GPUs";
  return -1;
}

// Declares `int var`, the CUDA index of the usable GPU at `position`; skips the test without one.
#define REQUIRE_GPU(var, position) \
  std::string var##_why_not; \
  [[maybe_unused]] const int var = usable_gpu((position), var##_why_not); \
  if (var < 0) GTEST_SKIP() << "needs " << (position) + 1 << " usable GPU(s): " << var##_why_not

// The stage comparisons' inputs. AUGMENT_TEST_PHOTO_SIZE=WxH (set where the GPUs are simulated,
// .ci/gpu-sim) compares the centre W x H of the photograph instead of all of it: the same kernels
// on fewer pixels, at a cost an interpreter can pay.
std::vector<testing::Input> gpu_inputs(DType t, int c) {
  std::vector<testing::Input> inputs = testing::parity_inputs(t, c);
  const char* size = std::getenv("AUGMENT_TEST_PHOTO_SIZE");
  if (!size || !*size) return inputs;
  int w = 0, h = 0;
  char end = 0;
  if (std::sscanf(size, "%dx%d%c", &w, &h, &end) != 2 || w < 1 || h < 1)
    throw std::invalid_argument(std::string("AUGMENT_TEST_PHOTO_SIZE=") + size + ": expected WIDTHxHEIGHT, e.g. 96x64");
  for (testing::Input& in : inputs) {
    const int cw = std::min(w, in.image.width()), ch = std::min(h, in.image.height());
    if (cw == in.image.width() && ch == in.image.height()) continue;
    const cv::Rect centre((in.image.width() - cw) / 2, (in.image.height() - ch) / 2, cw, ch);
    in.image = testing::from_mat(testing::mat(in.image)(centre).clone());
    in.name += " (centre " + std::to_string(cw) + "x" + std::to_string(ch) + ")";
  }
  return inputs;
}

// Every registered stage's declared cases (StageSpec::cases), as the catalog suite runs them
// against cuda-emulated. The generator runs in InitGoogleTest, after static initialisation.
class CudaParity : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaParity, GpuEqualsCpu) {
  REQUIRE_GPU(index, 0);
  const StageSpec& s = testing::stage_spec(GetParam());
  ASSERT_FALSE(s.cases.empty()) << s.name << " declares no cases";
  const auto cpu = make_cpu_backend(1);
  const auto gpu = gpu::open_backend(index, 1);
  for (const std::string& params : s.cases) {
    const Pipeline p = testing::declared_pipeline(s.name, params);
    int compared = 0;
    for (DType t : testing::kDtypes)
      for (int c : testing::kChannels) {
        if (!s.supports(t) || !s.supports_channels(c)) continue;
        for (const testing::Input& in : gpu_inputs(t, c)) {
          Plan plan;
          try {
            plan = p.plan(11, in.name, 0, in.image.shape());
          } catch (const InputError&) {
            continue;
          }
          const auto d = testing::compare(gpu->run(plan, in.image, 0), cpu->run(plan, in.image, 0),
                                          testing::parity_tolerance(s, t));
          EXPECT_EQ(d.count, 0u) << s.name << " " << params << " on " << in.name << " " << dtype_name(t) << " c" << c
                                 << ": " << d.str();
          ++compared;
        }
      }
    EXPECT_GT(compared, 0) << s.name << " case " << params << " compared no input";
  }
}

INSTANTIATE_TEST_SUITE_P(Stages, CudaParity, ::testing::ValuesIn(testing::stage_names()),
                         [](const auto& info) { return info.param; });

TEST(Cuda, EveryGpuGivesTheCpuBytes) {
  REQUIRE_GPU(first, 0);
  const Pipeline p = Pipeline::load_file((testing::source_dir() / "configs/default.json").string());
  const auto cpu = make_cpu_backend(1);
  for (const auto& d : gpu::inventory().devices) {
    const auto gpu = gpu::open_backend(d.index, 1);
    for (const char* name : {"astronaut.jpg", "rocket.jpg", "coffee_rgba.png", "camera.png"})
      for (std::uint32_t copy = 0; copy < 4; ++copy) {
        const Image im = testing::sample(name);
        const Plan plan = p.plan(7, name, copy, im.shape());
        EXPECT_EQ(testing::compare(gpu->run(plan, im, 0), cpu->run(plan, im, 0)).count, 0u)
            << "cuda:" << d.index << " " << name << " copy " << copy;
      }
  }
}

TEST(Cuda, CliOutputsAreTheCpuBytes) {
  REQUIRE_GPU(index, 0);
  testing::TempDir dir;
  const std::string cfg = (testing::source_dir() / "configs/default.json").string();
  const std::string gpu = "cuda:" + std::to_string(index);
  for (const std::string& device : {std::string("cpu"), gpu, std::string("auto")}) {
    const auto r = testing::run_cli({"run", "-c", cfg, "-i", testing::samples_dir().string(), "-o",
                                     (dir / device).string(), "--copies", "3", "--device", device});
    ASSERT_EQ(r.code, 0) << r.err;
    // auto takes the first usable GPU by its index, which is `gpu`
    if (device == "auto") {
      EXPECT_NE(r.err.find("using " + gpu + " ("), std::string::npos) << r.err;
    }
  }
  const auto files = testing::list_files(dir / "cpu");
  EXPECT_FALSE(files.empty());
  for (const auto& f : files)
    for (const std::string& device : {gpu, std::string("auto")})
      EXPECT_TRUE(testing::read_bytes(dir / "cpu" / f) == testing::read_bytes(dir / device / f)) << device << " " << f;
}

// --device-jpeg on a real GPU: JPEG reconstructed and quantised on it, the CPU's bytes, in the
// inputs' formats and all as JPEG at two qualities.
TEST(Cuda, DeviceJpegOutputsAreTheCpuBytes) {
  REQUIRE_GPU(index, 0);
  testing::TempDir dir;
  const std::string cfg = (testing::source_dir() / "configs/default.json").string();
  const std::string gpu = "cuda:" + std::to_string(index);
  for (const std::string format : {"keep", "jpg"})
    for (const std::string quality : {"50", "95"}) {
      const std::string tag = format + quality;
      for (const std::string& device : {std::string("cpu"), gpu}) {
        std::vector<std::string> args{"run", "-c", cfg, "-i", testing::samples_dir().string(), "-o",
                                      (dir / (device + tag)).string(), "--copies", "2", "--device", device,
                                      "--format", format, "--quality", quality};
        if (device != "cpu") args.push_back("--device-jpeg");
        const auto r = testing::run_cli(args);
        ASSERT_EQ(r.code, 0) << r.err;
      }
      const auto files = testing::list_files(dir / ("cpu" + tag));
      EXPECT_FALSE(files.empty());
      for (const auto& f : files)
        EXPECT_TRUE(testing::read_bytes(dir / ("cpu" + tag) / f) == testing::read_bytes(dir / (gpu + tag) / f))
            << tag << " " << f;
    }
}

TEST(Cuda, ASecondGpuWhenThereIsOne) {
  REQUIRE_GPU(second, 1);
  const Pipeline p = testing::one_stage(R"({"stage": "gaussian_blur", "sigma": 2})");
  const Image im = testing::sample("chelsea.png");
  const Plan plan = p.plan(1, "x", 0, im.shape());
  EXPECT_EQ(testing::compare(gpu::open_backend(second, 1)->run(plan, im, 0), make_cpu_backend(1)->run(plan, im, 0)).count, 0u);
}

// Several real GPUs in one run: each gets images, and the outputs are the CPU's bytes.
TEST(Cuda, SeveralGpusShareARunAndWriteTheCpuBytes) {
  REQUIRE_GPU(first, 0);
  REQUIRE_GPU(second, 1);
  testing::TempDir dir;
  const std::string cfg = (testing::source_dir() / "configs/default.json").string();
  const std::string pair = "cuda:" + std::to_string(first) + ",cuda:" + std::to_string(second);
  for (const std::string& device : {std::string("cpu"), pair, std::string("cuda:all")}) {
    const auto r = testing::run_cli({"run", "-c", cfg, "-i", testing::samples_dir().string(), "-o",
                                     (dir / device).string(), "--copies", "3", "--threads", "8", "--device", device});
    ASSERT_EQ(r.code, 0) << device << ": " << r.err;
    if (device != "cpu") {
      EXPECT_NE(r.out.find("augment: cuda:" + std::to_string(first) + ": "), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("augment: cuda:" + std::to_string(second) + ": "), std::string::npos) << r.out;
    }
  }
  const auto files = testing::list_files(dir / "cpu");
  EXPECT_EQ(files.size(), 18u);
  for (const auto& f : files)
    for (const std::string& device : {pair, std::string("cuda:all")})
      EXPECT_TRUE(testing::read_bytes(dir / "cpu" / f) == testing::read_bytes(dir / device / f)) << device << " " << f;
}

}  // namespace
}  // namespace aug
