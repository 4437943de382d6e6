// The GPU backend's use of the device API, recorded call by call on emulated devices: choosing
// cuda:N touches device N only, memory is pooled, and failures name what they concern.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "lib/run/devices.hpp"
#include "lib/core/error.hpp"
#include "lib/exec/backend.hpp"
#include "lib/gpu/device_api.hpp"
#include "lib/io/codec.hpp"
#include "lib/io/jpeg_coefficients.hpp"
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
    upload_sources_.clear();
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
    {
      std::lock_guard lock(m_);
      if (device_live_ + n > device_capacity)
        throw gpu::OutOfMemory("out of device memory (" + std::to_string(n >> 20) + " MiB more needed)");
    }
    void* p = inner_->device_alloc(n);
    std::lock_guard lock(m_);
    device_live_ += n;
    device_sizes_[p] = n;
    return p;
  }
  void device_free(void* p) override {
    record("device_free"), inner_->device_free(p);
    std::lock_guard lock(m_);
    device_live_ -= device_sizes_[p];
    device_sizes_.erase(p);
  }
  std::size_t device_capacity = SIZE_MAX;  // bytes of device memory live at once
  std::size_t device_live() const {
    std::lock_guard lock(m_);
    return device_live_;
  }
  void* pinned_alloc(std::size_t n) override {
    record("pinned_alloc");
    if (n > fail_pinned_above) throw gpu::OutOfMemory("out of pinned host memory (" + std::to_string(n >> 20) + " MiB more needed)");
    void* p = inner_->pinned_alloc(n);
    ++pinned_live;
    return p;
  }
  void pinned_free(void* p) override {
    record("pinned_free"), inner_->pinned_free(p);
    --pinned_live;
  }
  std::atomic<int> pinned_live{0};  // pinned allocations not freed (clear() leaves it)
  gpu::Stream stream_create() override { return record("stream_create"), inner_->stream_create(); }
  void stream_destroy(gpu::Stream s) override { record("stream_destroy"), inner_->stream_destroy(s); }
  void copy_to_device(void* d, const void* s, std::size_t n, gpu::Stream st) override {
    record("copy_to_device"), inner_->copy_to_device(d, s, n, st);
    std::lock_guard lock(m_);
    upload_sources_.push_back(s);
  }
  void copy_to_host(void* d, const void* s, std::size_t n, gpu::Stream st) override {
    record("copy_to_host"), inner_->copy_to_host(d, s, n, st);
    std::lock_guard lock(m_);
    last_download_destination_ = d;
  }
  // Whether an upload since the last clear() read from `p`.
  bool uploaded_from(const void* p) const {
    std::lock_guard lock(m_);
    return std::find(upload_sources_.begin(), upload_sources_.end(), p) != upload_sources_.end();
  }
  const void* last_download_destination() const {
    std::lock_guard lock(m_);
    return last_download_destination_;
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
  std::vector<const void*> upload_sources_;
  std::size_t device_live_ = 0;
  std::map<void*, std::size_t> device_sizes_;
  const void* last_download_destination_ = nullptr;
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

TEST(GpuBackend, ImagesInItsPinnedBuffersTravelWithoutAStagingCopy) {
  RecordingApi api(2);
  const Pipeline p = default_pipeline();
  const auto cpu = make_cpu_backend(1);
  const auto bytes = testing::read_bytes(testing::samples_dir() / "astronaut.jpg");
  const Image plain = decode_image(bytes.data(), bytes.size(), {});
  Image kept;
  {
    const auto gpu = gpu::make_gpu_backend(api, 1, 1, "cuda:1");
    DecodeOptions options;
    options.allocate = gpu->input_allocator();
    ASSERT_TRUE(options.allocate);
    for (int i = 0; i < 4; ++i) {
      const Image in = decode_image(bytes.data(), bytes.size(), options);
      EXPECT_EQ(testing::compare(in, plain).count, 0u);
      const Plan plan = p.plan(1, "astronaut" + std::to_string(i), 0, in.shape());
      api.clear();
      const Image out = gpu->run(plan, in, 0);
      EXPECT_TRUE(api.uploaded_from(in.data())) << "uploaded from where it was decoded";
      EXPECT_EQ(api.last_download_destination(), out.data()) << "downloaded into the result itself";
      EXPECT_EQ(testing::compare(out, cpu->run(plan, plain, 0)).count, 0u);
      // A plain input goes through the staging buffer, with the same result.
      api.clear();
      const Image staged = gpu->run(plan, plain, 0);
      EXPECT_FALSE(api.uploaded_from(plain.data()));
      EXPECT_GE(api.count("copy_to_device"), 1u);
      EXPECT_EQ(testing::compare(staged, out).count, 0u);
      kept = out;
    }
    {  // --device-jpeg: coefficients read into the pool are uploaded from there, and the
       // result's coefficients are downloaded into the pool too; the same values as staged.
      std::string why;
      DecodeOptions plain_options;
      auto pinned_coefficients = read_jpeg_for_device(bytes.data(), bytes.size(), options, &why);
      const auto plain_coefficients = read_jpeg_for_device(bytes.data(), bytes.size(), plain_options, &why);
      ASSERT_TRUE(pinned_coefficients && plain_coefficients) << why;
      const Plan plan = p.plan(1, "coded", 0, plain.shape());
      const auto shared_pinned = std::make_shared<const JpegCoefficients>(std::move(*pinned_coefficients));
      api.clear();
      const CodedImage coded = gpu->run_coded(plan, {Image(), shared_pinned}, 90, 0);
      EXPECT_TRUE(api.uploaded_from(shared_pinned->coefficients.data()));
      ASSERT_TRUE(coded.jpeg);
      EXPECT_EQ(api.last_download_destination(), coded.jpeg->coefficients.data());
      const auto shared_plain = std::make_shared<const JpegCoefficients>(*plain_coefficients);
      api.clear();
      const CodedImage staged = gpu->run_coded(plan, {Image(), shared_plain}, 90, 0);
      EXPECT_FALSE(api.uploaded_from(shared_plain->coefficients.data()));
      ASSERT_TRUE(staged.jpeg);
      ASSERT_EQ(staged.jpeg->coefficients.size(), coded.jpeg->coefficients.size());
      EXPECT_TRUE(std::equal(staged.jpeg->coefficients.begin(), staged.jpeg->coefficients.end(),
                             coded.jpeg->coefficients.begin()));
    }

    // Once warm, the buffers come back and are reused: nothing more is allocated.
    api.clear();
    for (int i = 0; i < 5; ++i) {
      const Image in = decode_image(bytes.data(), bytes.size(), options);
      gpu->run(p.plan(1, "again" + std::to_string(i), 0, in.shape()), in, 0);
    }
    EXPECT_EQ(api.count("pinned_alloc"), 0u);
    for (const auto& c : api.calls()) EXPECT_EQ(c.device, 1) << c.what;
  }
  // A result outlives the backend, its pinned buffer with it (still readable: not poisoned, not
  // unmapped), which is freed when the last image holding it goes.
  const Image expected = cpu->run(p.plan(1, "astronaut3", 0, plain.shape()), plain, 0);
  EXPECT_EQ(testing::compare(kept, expected).count, 0u);
  EXPECT_GT(api.pinned_live.load(), 0);
  kept = Image();
  EXPECT_EQ(api.pinned_live.load(), 0);
}

TEST(GpuBackend, WithoutPinnedMemoryTheAllocatorGivesPlainImages) {
  RecordingApi api(1);
  const auto gpu = gpu::make_gpu_backend(api, 0, 1, "cuda:0");
  api.fail_pinned_above = 1 << 20;
  const ImageAllocator allocate = gpu->input_allocator();
  Image big = allocate({1024, 1024, 3, DType::U8});  // 3 MiB: refused, so plain memory
  ASSERT_FALSE(big.empty());
  big.data()[big.shape().bytes() - 1] = 7;  // writable to its end
  const Image small = allocate({64, 64, 3, DType::U8});  // pinned
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [{"stage": "flip"}]})", "p.json");
  EXPECT_NO_THROW(gpu->run(p.plan(0, "small.png", 0, small.shape()), small, 0));
  EXPECT_TRUE(api.uploaded_from(small.data()));
}

TEST(GpuBackend, SmallTablesStayOnTheDeviceAndAreFoundByContent) {
  RecordingApi api(1);
  const auto gpu = gpu::make_gpu_backend(api, 0, 1, "cuda:0");
  const auto cpu = make_cpu_backend(1);
  // Resizing to a fixed size uploads index and weight tables that depend only on the input size.
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [{"stage": "resize", "size": [97, 61]}]})", "p.json");
  const Image a = testing::sample("astronaut.jpg");
  const Image b = testing::sample("chelsea.png");  // another size than a's
  auto run = [&](const Image& im) {
    const Plan plan = p.plan(0, "x", 0, im.shape());
    api.clear();
    EXPECT_EQ(testing::compare(gpu->run(plan, im, 0), cpu->run(plan, im, 0)).count, 0u);
    return api.count("copy_to_device");
  };
  EXPECT_GT(run(a), 1u);   // the image and its tables
  EXPECT_EQ(run(a), 1u);   // the image only: the same tables are on the device
  EXPECT_GT(run(b), 1u);   // another size, other tables
  EXPECT_EQ(run(a), 1u);   // the first ones are still there
  // More distinct tables than the cache holds: places are taken back, results stay right.
  for (int w = 0; w < 40; ++w) {
    Image im({120 + w, 90, 3, DType::U8});
    for (std::size_t i = 0; i < im.shape().bytes(); ++i) im.data()[i] = static_cast<std::uint8_t>(i * 7 + w);
    run(im);
  }
  EXPECT_GT(run(a), 1u);  // replaced by the newer tables
  EXPECT_EQ(api.count("device_alloc"), 0u);
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

TEST(GpuBackend, ImagesThatDoNotFitBesideEachOtherWaitAndOnlyTooLargeOnesFail) {
  RecordingApi api(1);
  api.device_capacity = 10u << 20;  // one 3 MiB image's two buffers fit (about 9 MiB), two images' do not
  const auto gpu = gpu::make_gpu_backend(api, 0, 2, "cuda:0");
  const auto cpu = make_cpu_backend(2);
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [{"stage": "flip"}, {"stage": "invert", "p": 1}]})", "p.json");
  std::vector<std::thread> workers;
  for (int w = 0; w < 2; ++w)
    workers.emplace_back([&, w] {
      for (int i = 0; i < 4; ++i) {
        Image im({1024, 1024, 3, DType::U8});
        for (std::size_t k = 0; k < im.shape().bytes(); ++k) im.data()[k] = static_cast<std::uint8_t>(k * 13 + w + i);
        const Plan plan = p.plan(0, "im" + std::to_string(w) + std::to_string(i), 0, im.shape());
        try {
          EXPECT_EQ(testing::compare(gpu->run(plan, im, w), cpu->run(plan, im, w)).count, 0u);
        } catch (const std::exception& e) {
          ADD_FAILURE() << "an image that fits the device alone failed: " << e.what();
        }
      }
    });
  for (auto& t : workers) t.join();
  const Image huge({2048, 2048, 3, DType::U8});  // 12 MiB: more than the device, alone
  try {
    gpu->run(p.plan(0, "huge.png", 0, huge.shape()), huge, 0);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("out of device memory"), std::string::npos) << m;
    EXPECT_NE(m.find("2048x2048x3 u8 image"), std::string::npos) << m;
    EXPECT_NE(m.find("with no other image on the device"), std::string::npos) << m;
  }
  // And the device still runs what fits.
  Image im({1024, 1024, 3, DType::U8});
  std::memset(im.data(), 3, im.shape().bytes());
  EXPECT_NO_THROW(gpu->run(p.plan(0, "after.png", 0, im.shape()), im, 1));
}

TEST(GpuBackend, OutgrownBuffersAreFreedOnlyWhenTheDeviceIsIdle) {
  RecordingApi api(1);
  const auto cpu = make_cpu_backend(1);
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [{"stage": "flip"}, {"stage": "gaussian_blur", "sigma": 2, "p": 1}]})", "p.json");
  {
    const auto gpu = gpu::make_gpu_backend(api, 0, 1, "cuda:0");
    api.clear();
    for (int side = 64; side <= 1024; side *= 2) {  // each image larger than the last: buffers grow
      Image im({side, side / 2, 3, DType::U8});
      for (std::size_t k = 0; k < im.shape().bytes(); ++k) im.data()[k] = static_cast<std::uint8_t>(k * 31 + side);
      const Plan plan = p.plan(0, "grow", 0, im.shape());
      EXPECT_EQ(testing::compare(gpu->run(plan, im, 0), cpu->run(plan, im, 0)).count, 0u) << side;
    }
    EXPECT_GT(api.count("device_alloc"), 4u);
    EXPECT_EQ(api.count("device_free"), 0u) << "a free waits for the whole device on CUDA";
    EXPECT_EQ(api.count("pinned_free"), 0u);
  }
  EXPECT_EQ(api.device_live(), 0u);  // all of it freed when the backend closed
  EXPECT_EQ(api.pinned_live.load(), 0);
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
