// The GPU backend's use of the device API, recorded call by call on emulated devices: choosing
// cuda:N touches device N only, memory is pooled, and failures name what they concern.
#include <gtest/gtest.h>

#include <cstdlib>
#include <mutex>
#include <thread>

#include "lib/run/devices.hpp"
#include "lib/core/error.hpp"
#include "lib/exec/backend.hpp"
#include "lib/gpu/device_api.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_gpu_backend {
namespace {

class RecordingApi final : public gpu::DeviceApi {
 public:
  struct Call {
    std::string what;
    int device;  // current device of the calling thread when the call was made
  };

  explicit RecordingApi(int devices) : inner_(gpu::make_emulated_api(devices, "recorded")) {}

  std::vector<Call> calls() const {
    std::lock_guard lock(m_);
    return calls_;
  }
  std::size_t count(const std::string& what) const {
    std::size_t n = 0;
    for (const auto& c : calls()) n += c.what == what;
    return n;
  }
  void clear() {
    std::lock_guard lock(m_);
    calls_.clear();
  }
  std::size_t fail_allocations_above = SIZE_MAX;
  std::size_t fail_pinned_above = SIZE_MAX;
  // What the device does with launches: run them, refuse them (as a GPU without the build's
  // architecture does), or drop them silently (as a broken driver might).
  enum class Launches { Run, Refuse, Drop } launches = Launches::Run;

  bool emulated() const override { return true; }
  int driver_version() override { return record("driver_version"), inner_->driver_version(); }
  int runtime_version() override { return record("runtime_version"), inner_->runtime_version(); }
  int device_count(std::string& why) override { return record("device_count"), inner_->device_count(why); }
  gpu::DeviceInfo properties(int d) override { return record("properties"), inner_->properties(d); }
  void set_device(int d) override {
    record("set_device:" + std::to_string(d));
    inner_->set_device(d);
  }
  int current_device() override { return inner_->current_device(); }
  void* device_alloc(std::size_t n) override {
    record("device_alloc");
    if (n > fail_allocations_above) throw gpu::OutOfMemory("out of device memory (" + std::to_string(n >> 20) + " MiB more needed)");
    return inner_->device_alloc(n);
  }
  void device_free(void* p) override { record("device_free"), inner_->device_free(p); }
  void* pinned_alloc(std::size_t n) override {
    record("pinned_alloc");
    if (n > fail_pinned_above) throw gpu::OutOfMemory("out of pinned host memory (" + std::to_string(n >> 20) + " MiB more needed)");
    return inner_->pinned_alloc(n);
  }
  void pinned_free(void* p) override { record("pinned_free"), inner_->pinned_free(p); }
  gpu::Stream stream_create() override { return record("stream_create"), inner_->stream_create(); }
  void stream_destroy(gpu::Stream s) override { record("stream_destroy"), inner_->stream_destroy(s); }
  void copy_to_device(void* d, const void* s, std::size_t n, gpu::Stream st) override {
    record("copy_to_device"), inner_->copy_to_device(d, s, n, st);
  }
  void copy_to_host(void* d, const void* s, std::size_t n, gpu::Stream st) override {
    record("copy_to_host"), inner_->copy_to_host(d, s, n, st);
  }
  void copy_on_device(void* d, const void* s, std::size_t n, gpu::Stream st) override {
    record("copy_on_device"), inner_->copy_on_device(d, s, n, st);
  }
  void stream_sync(gpu::Stream s) override { record("stream_sync"), inner_->stream_sync(s); }
  k::HostQueue* host_queue(gpu::Stream s) override {
    if (launches == Launches::Run) return inner_->host_queue(s);
    faulty_.refuse = launches == Launches::Refuse;
    return &faulty_;
  }
  void invalidate(void* p, std::size_t n) override { inner_->invalidate(p, n); }
  void* event_create() override { return record("event_create"), inner_->event_create(); }
  void event_destroy(void* e) override { record("event_destroy"), inner_->event_destroy(e); }
  void event_record(void* e, gpu::Stream s) override { record("event_record"), inner_->event_record(e, s); }
  double event_elapsed_ms(void* a, void* b) override { return record("event_elapsed"), inner_->event_elapsed_ms(a, b); }

 private:
  void record(const std::string& what) {
    std::lock_guard lock(m_);
    calls_.push_back({what, inner_->current_device()});
  }

  struct FaultyQueue final : k::HostQueue {
    bool refuse = true;
    void launch(k::HostLaunch&&) override {
      if (refuse) throw k::LaunchError("launch failed: no kernel image is available for execution on the device");
    }
  };

  std::unique_ptr<gpu::DeviceApi> inner_;
  FaultyQueue faulty_;
  mutable std::mutex m_;
  std::vector<Call> calls_;
};

Pipeline default_pipeline() { return Pipeline::load_file((testing::source_dir() / "configs/default.json").string()); }

TEST(GpuBackend, ChoosingADeviceTouchesThatDeviceOnly) {
  RecordingApi api(4);
  const Pipeline p = default_pipeline();
  const auto cpu = make_cpu_backend(2);
  {
    const auto gpu = gpu::make_gpu_backend(api, 3, 2, "cuda:3");
    std::vector<std::thread> workers;
    for (int w = 0; w < 2; ++w)
      workers.emplace_back([&, w] {
        for (const char* name : {"astronaut.jpg", "chelsea.png", "camera.png", "coffee_rgba.png"}) {
          const Image im = testing::sample(name);
          const Plan plan = p.plan(1, name, static_cast<std::uint32_t>(w), im.shape());
          EXPECT_EQ(testing::compare(gpu->run(plan, im, w), cpu->run(plan, im, w)).count, 0u) << name;
        }
      });
    for (auto& t : workers) t.join();
  }
  const auto calls = api.calls();
  ASSERT_GT(calls.size(), 20u);
  for (const auto& c : calls) {
    if (c.what.rfind("set_device:", 0) == 0) EXPECT_EQ(c.what, "set_device:3");
    else EXPECT_EQ(c.device, 3) << c.what << " was called with device " << c.device << " current";
  }
  EXPECT_GE(api.count("set_device:3"), 3u);  // the creating thread and each worker thread
  EXPECT_EQ(api.count("stream_create"), 2u);
  EXPECT_EQ(api.count("stream_destroy"), 2u);
  EXPECT_EQ(api.count("device_alloc"), api.count("device_free"));
  EXPECT_EQ(api.count("pinned_alloc"), api.count("pinned_free"));
  EXPECT_EQ(api.count("device_count") + api.count("properties"), 0u);
}

TEST(GpuBackend, NothingIsAllocatedPerImageOnceWarm) {
  RecordingApi api(1);
  const Pipeline p = default_pipeline();
  const auto gpu = gpu::make_gpu_backend(api, 0, 1, "cuda:0");
  const Image im = testing::sample("rocket.jpg");
  for (int i = 0; i < 3; ++i) gpu->run(p.plan(1, "warm" + std::to_string(i), 0, im.shape()), im, 0);
  api.clear();
  for (int i = 0; i < 20; ++i) gpu->run(p.plan(1, "img" + std::to_string(i), 0, im.shape()), im, 0);
  EXPECT_EQ(api.count("device_alloc"), 0u);
  EXPECT_EQ(api.count("pinned_alloc"), 0u);
  EXPECT_EQ(api.count("stream_sync"), 20u);  // one per image, on its own stream
  EXPECT_GE(api.count("copy_to_device"), 20u);
}

TEST(GpuBackend, OutOfMemoryNamesTheImageSize) {
  RecordingApi api(1);
  api.fail_allocations_above = 1 << 20;
  const auto gpu = gpu::make_gpu_backend(api, 0, 1, "cuda:0");
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [{"stage": "flip"}]})", "p.json");
  const Image big({1024, 1024, 3, DType::U8});
  try {
    gpu->run(p.plan(0, "big.png", 0, big.shape()), big, 0);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:0: out of device memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1024x1024x3 u8 image"), std::string::npos) << e.what();
  }
}

TEST(GpuBackend, PinnedMemoryExhaustionIsAnImageError) {
  RecordingApi api(1);
  const auto gpu = gpu::make_gpu_backend(api, 0, 1, "cuda:0");
  api.fail_pinned_above = 1 << 20;
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [{"stage": "flip"}]})", "p.json");
  const Image big({1024, 1024, 3, DType::U8});
  try {
    gpu->run(p.plan(0, "big.png", 0, big.shape()), big, 0);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("out of pinned host memory"), std::string::npos) << e.what();
  }
  api.fail_pinned_above = SIZE_MAX;  // the device is still usable afterwards
  EXPECT_NO_THROW(gpu->run(p.plan(0, "big.png", 0, big.shape()), big, 0));
}

TEST(GpuBackend, ADeviceThatCannotRunTheKernelsFailsWhenOpened) {
  for (const auto mode : {RecordingApi::Launches::Refuse, RecordingApi::Launches::Drop}) {
    RecordingApi api(1);
    api.launches = mode;
    try {
      gpu::make_gpu_backend(api, 0, 1, "cuda:0");
      FAIL() << "expected a DeviceError";
    } catch (const DeviceError& e) {
      const std::string m = e.what();
      if (mode == RecordingApi::Launches::Refuse) EXPECT_NE(m.find("no kernel image is available"), std::string::npos) << m;
      else EXPECT_NE(m.find("the probe kernel returned wrong values"), std::string::npos) << m;
    }
    EXPECT_EQ(api.count("device_alloc"), api.count("device_free"));
    EXPECT_EQ(api.count("stream_create"), api.count("stream_destroy"));
  }
}

TEST(GpuBackend, ARefusedLaunchStopsTheRunInsteadOfFailingTheImage) {
  RecordingApi api(1);
  const auto gpu = gpu::make_gpu_backend(api, 0, 1, "cuda:0");
  api.launches = RecordingApi::Launches::Refuse;
  const Pipeline p = default_pipeline();
  const Image im = testing::sample("chelsea.png");
  EXPECT_THROW(gpu->run(p.plan(1, "chelsea.png", 0, im.shape()), im, 0), DeviceError);
}

TEST(GpuBackend, SlotsDoNotGrowWithWorkers) {
  RecordingApi api(1);
  const Pipeline p = default_pipeline();
  const auto cpu = make_cpu_backend(16);  // one host context per worker, like the GPU's callers
  {
    const auto gpu = gpu::make_gpu_backend(api, 0, 16, "cuda:0");
    std::vector<std::thread> workers;
    for (int w = 0; w < 16; ++w)
      workers.emplace_back([&, w] {
        const Image im = testing::sample("camera.png");
        const Plan plan = p.plan(1, "camera.png", static_cast<std::uint32_t>(w), im.shape());
        EXPECT_EQ(testing::compare(gpu->run(plan, im, w), cpu->run(plan, im, w)).count, 0u);
      });
    for (auto& t : workers) t.join();
  }
  EXPECT_EQ(api.count("stream_create"), 4u);
  EXPECT_EQ(api.count("pinned_alloc"), api.count("pinned_free"));
}

TEST(GpuBackend, SyncLaunchesSynchronisesAfterEachStage) {
  RecordingApi api(1);
  const auto gpu = gpu::make_gpu_backend(api, 0, 1, "cuda:0");
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [{"stage": "flip"}, {"stage": "invert", "p": 1}]})", "p.json");
  const Image im = testing::sample("camera.png");
  const Plan plan = p.plan(0, "camera.png", 0, im.shape());
  api.clear();
  gpu->run(plan, im, 0);
  EXPECT_EQ(api.count("stream_sync"), 1u);
  ::setenv("AUGMENT_SYNC_LAUNCHES", "1", 1);
  api.clear();
  gpu->run(plan, im, 0);
  ::unsetenv("AUGMENT_SYNC_LAUNCHES");
  EXPECT_EQ(api.count("stream_sync"), 3u);  // after each of the two stages, then the download
}

TEST(GpuBackend, EmulatedDeviceIsTheDefaultWithoutCuda) {
  const auto emu = make_emulated_backend(1);
  EXPECT_EQ(emu->name(), "cuda-emulated:0");
}

}  // namespace
}  // namespace aug::test_gpu_backend
