// Devices emulated with host memory: copies are memcpy, streams are tokens, kernels run as host
// loops (the backend sees emulated() and passes a host Exec). Used for --device cuda-emulated,
// for verify-devices without a GPU, and by the tests of the GPU backend.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

#include "lib/gpu/device_api.hpp"

namespace aug::gpu {

namespace {

thread_local int t_current = -1;
using Clock = std::chrono::steady_clock;

class EmulatedApi final : public DeviceApi {
 public:
  EmulatedApi(int devices, std::string name) : devices_(devices), name_(std::move(name)) {}

  bool emulated() const override { return true; }
  int driver_version() override { return 0; }
  int runtime_version() override { return 0; }
  int device_count(std::string&) override { return devices_; }
  DeviceInfo properties(int device) override { return DeviceInfo{device, name_, 0, 0, 0}; }

  void set_device(int device) override { t_current = device; }
  int current_device() override { return t_current < 0 ? 0 : t_current; }

  void* device_alloc(std::size_t bytes) override { return allocate(bytes); }
  void device_free(void* p) override { std::free(p); }
  void* pinned_alloc(std::size_t bytes) override { return allocate(bytes); }
  void pinned_free(void* p) override { std::free(p); }
  Stream stream_create() override { return reinterpret_cast<Stream>(++streams_); }
  void stream_destroy(Stream) override {}
  void copy_to_device(void* dst, const void* src, std::size_t bytes, Stream) override { std::memcpy(dst, src, bytes); }
  void copy_to_host(void* dst, const void* src, std::size_t bytes, Stream) override { std::memcpy(dst, src, bytes); }
  void copy_on_device(void* dst, const void* src, std::size_t bytes, Stream) override { std::memcpy(dst, src, bytes); }
  void stream_sync(Stream) override {}
  void* event_create() override { return new Clock::time_point(); }
  void event_destroy(void* e) override { delete static_cast<Clock::time_point*>(e); }
  void event_record(void* e, Stream) override { *static_cast<Clock::time_point*>(e) = Clock::now(); }
  double event_elapsed_ms(void* a, void* b) override {
    return std::chrono::duration<double, std::milli>(*static_cast<Clock::time_point*>(b) -
                                                     *static_cast<Clock::time_point*>(a))
        .count();
  }

 private:
  static void* allocate(std::size_t bytes) {
    void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!p) throw OutOfMemory("out of host memory");
    return p;
  }

  int devices_;
  std::string name_;
  std::atomic<std::uintptr_t> streams_{0};
};

}  // namespace

std::unique_ptr<DeviceApi> make_emulated_api(int devices, const std::string& name) {
  return std::make_unique<EmulatedApi>(devices, name);
}

}  // namespace aug::gpu
