// Every call augment makes to a GPU runtime, behind one thin interface. The CUDA runtime
// implements it on real devices; the host implementation emulates devices ("cuda-emulated:N":
// their own mapped memory, deferred streams, checked launches; see emulated_api.cpp) and runs
// kernel bodies as host loops, so the whole GPU backend runs, and is tested, on machines without
// a GPU. Tests can wrap either to record the calls.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/core/launch.hpp"
#include "lib/gpu/gpu.hpp"

namespace aug::gpu {

using Stream = void*;

// Out of device memory: the caller names the image and its size.
struct OutOfMemory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class DeviceApi {
 public:
  virtual ~DeviceApi() = default;

  // True when "device" memory is host memory and kernels must run as host loops.
  virtual bool emulated() const = 0;

  // Enumeration; none of these creates a context.
  virtual int driver_version() = 0;   // 0: no driver
  virtual int runtime_version() = 0;
  virtual int device_count(std::string& why_none) = 0;
  virtual DeviceInfo properties(int device) = 0;

  // The calling thread's current device. set_device creates that device's context.
  virtual void set_device(int device) = 0;
  virtual int current_device() = 0;

  // Resources of the current device.
  virtual void* device_alloc(std::size_t bytes) = 0;  // throws OutOfMemory
  virtual void device_free(void* p) = 0;
  virtual void* pinned_alloc(std::size_t bytes) = 0;  // page-locked host memory
  virtual void pinned_free(void* p) = 0;
  virtual Stream stream_create() = 0;                 // non-blocking
  virtual void stream_destroy(Stream s) = 0;
  virtual void copy_to_device(void* dst, const void* pinned_src, std::size_t bytes, Stream s) = 0;  // async
  virtual void copy_to_host(void* pinned_dst, const void* src, std::size_t bytes, Stream s) = 0;    // async
  virtual void copy_on_device(void* dst, const void* src, std::size_t bytes, Stream s) = 0;         // async
  virtual void stream_sync(Stream s) = 0;  // waits for this stream only; throws on a device error
  // An emulated device's stream, where kernels are queued (nullptr on a real device).
  virtual k::HostQueue* host_queue(Stream) { return nullptr; }
  // The contents of [p, p + bytes) of a live allocation are no longer needed (its stream is
  // idle): an emulated device poisons them, so a later read of stale data shows.
  virtual void invalidate(void* /*p*/, std::size_t /*bytes*/) {}

  // Timing: events recorded on a stream, and the milliseconds between two that have completed.
  virtual void* event_create() = 0;
  virtual void event_destroy(void* e) = 0;
  virtual void event_record(void* e, Stream s) = 0;
  virtual double event_elapsed_ms(void* start, void* end) = 0;
};

// The CUDA runtime (a process-wide instance), or nullptr when built without CUDA.
DeviceApi* cuda_runtime_api();
// `devices` emulated devices, named `name`:0, `name`:1...
std::unique_ptr<DeviceApi> make_emulated_api(int devices = 1, const std::string& name = "cuda-emulated");
// The process's emulated devices: AUGMENT_EMULATED_GPUS of them (default 1; UsageError when the
// variable is not a number from 1 to 16).
int emulated_device_count();
DeviceApi& emulated_api();

}  // namespace aug::gpu
namespace aug {
class Op;
class Image;
}  // namespace aug
namespace aug::gpu {

// Benchmark helpers. The mean milliseconds of `repeats` runs of `op`'s kernels on `device`, its
// input already resident there (events around the kernels only, no transfers).
double time_kernels(DeviceApi& api, int device, const aug::Op& op, const aug::Image& in, int repeats);
// The device's copy bandwidth in GB/s (bytes read plus bytes written), the reference for the
// fraction of DRAM bandwidth a kernel reaches.
double copy_bandwidth_gbs(DeviceApi& api, int device, std::size_t bytes);
// The mean time of one device-to-device copy of `bytes` between two events, then a sync (ms).
double copy_time_ms(DeviceApi& api, int device, std::size_t bytes, int repeats);

// The GPU backend on `device` of `api` (which must outlive it), with one slot (stream, pinned
// staging, pooled device buffers) per worker. Everything is created with that device current.
std::unique_ptr<aug::Backend> make_gpu_backend(DeviceApi& api, int device, int workers, const std::string& name);

}  // namespace aug::gpu
