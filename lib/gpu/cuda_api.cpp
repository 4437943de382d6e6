// The CUDA runtime behind DeviceApi (built only with CUDA; linked statically, so a machine
// without a driver still runs augment and gets a clear "no driver" from the inventory).
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/gpu/device_api.hpp"

namespace aug::gpu {

namespace {

[[noreturn]] void fail(const char* call, cudaError_t e) {
  int device = -1;
  cudaGetDevice(&device);
  throw DeviceError("cuda:" + std::to_string(device) + ": " + call + ": " + cudaGetErrorString(e));
}

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) fail(call, e);
}

// A call whose failure changes nothing for augment (freeing, destroying): its error is cleared
// so that it is not reported later by an unrelated launch check.
void ignore(cudaError_t e) {
  if (e != cudaSuccess) cudaGetLastError();
}

// cudaErrorMemoryAllocation is an out-of-memory condition the caller can name an image for; any
// other failure is the device's.
void* checked_alloc(cudaError_t e, void* p, std::size_t bytes, const char* call, const char* what) {
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw OutOfMemory(std::string("out of ") + what + " (" + std::to_string(bytes >> 20) + " MiB more needed)");
  }
  check(e, call);
  return p;
}

class CudaApi final : public DeviceApi {
 public:
  // Every kernel of the build is loaded when a device's context is created, not at its first
  // launch (the runtime loads lazily by default since CUDA 12.2): a GPU the build has no code for
  // fails when its backend opens, and no image pays for loading a module mid-run. Set before the
  // first CUDA call, which reads it; a value the user set is kept.
  CudaApi() { ::setenv("CUDA_MODULE_LOADING", "EAGER", 0); }

  bool emulated() const override { return false; }

  int driver_version() override {
    int v = 0;
    return cudaDriverGetVersion(&v) == cudaSuccess ? v : 0;
  }
  int runtime_version() override {
    int v = 0;
    return cudaRuntimeGetVersion(&v) == cudaSuccess ? v : 0;
  }

  int device_count(std::string& why_none) override {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess && n > 0) return n;
    cudaGetLastError();  // clear
    const int driver = driver_version();
    if (driver == 0) why_none = "no NVIDIA driver is installed (libcuda.so.1 was not found)";
    else if (e == cudaErrorInsufficientDriver)
      why_none = "the NVIDIA driver supports CUDA " + cuda_version(driver) + ", older than this build's CUDA runtime " +
                 cuda_version(runtime_version());
    else if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0)) why_none = "the NVIDIA driver finds no CUDA GPU";
    else why_none = std::string("the CUDA runtime reports: ") + cudaGetErrorString(e);
    return 0;
  }

  DeviceInfo properties(int device) override {
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
    return DeviceInfo{device, p.name, p.totalGlobalMem, p.major, p.minor};
  }

  void set_device(int device) override {
    check(cudaSetDevice(device), "cudaSetDevice");
    // Waiting threads sleep instead of spinning (one core per waiting worker otherwise). The flag
    // belongs to the device's context, so it is set once per device, whatever its index; a
    // failure to set it only costs CPU time.
    std::lock_guard lock(flags_m_);
    if (flags_set_.size() <= static_cast<std::size_t>(device)) flags_set_.resize(static_cast<std::size_t>(device) + 1);
    if (!flags_set_[static_cast<std::size_t>(device)]) {
      ignore(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
      flags_set_[static_cast<std::size_t>(device)] = true;
    }
  }
  int current_device() override {
    int d = 0;
    check(cudaGetDevice(&d), "cudaGetDevice");
    return d;
  }

  void* device_alloc(std::size_t bytes) override {
    // The call first, then p: as arguments of one call the two would be evaluated in no set order
    // (GCC read p, still null, before cudaMalloc wrote it).
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, bytes);
    return checked_alloc(e, p, bytes, "cudaMalloc", "device memory");
  }
  void device_free(void* p) override { ignore(cudaFree(p)); }
  void* pinned_alloc(std::size_t bytes) override {
    void* p = nullptr;
    const cudaError_t e = cudaMallocHost(&p, bytes);
    return checked_alloc(e, p, bytes, "cudaMallocHost", "pinned host memory");
  }
  void pinned_free(void* p) override { ignore(cudaFreeHost(p)); }
  Stream stream_create() override {
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    return s;
  }
  void stream_destroy(Stream s) override { ignore(cudaStreamDestroy(static_cast<cudaStream_t>(s))); }
  void copy_to_device(void* dst, const void* src, std::size_t bytes, Stream s) override {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, static_cast<cudaStream_t>(s)), "cudaMemcpyAsync");
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes, Stream s) override {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, static_cast<cudaStream_t>(s)), "cudaMemcpyAsync");
  }
  void copy_on_device(void* dst, const void* src, std::size_t bytes, Stream s) override {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(s)), "cudaMemcpyAsync");
  }
  void stream_sync(Stream s) override { check(cudaStreamSynchronize(static_cast<cudaStream_t>(s)), "cudaStreamSynchronize"); }
  void* event_create() override {
    cudaEvent_t e = nullptr;
    check(cudaEventCreate(&e), "cudaEventCreate");
    return e;
  }
  void event_destroy(void* e) override { ignore(cudaEventDestroy(static_cast<cudaEvent_t>(e))); }
  void event_record(void* e, Stream s) override {
    check(cudaEventRecord(static_cast<cudaEvent_t>(e), static_cast<cudaStream_t>(s)), "cudaEventRecord");
  }
  double event_elapsed_ms(void* a, void* b) override {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(a), static_cast<cudaEvent_t>(b)), "cudaEventElapsedTime");
    return ms;
  }

 private:
  std::mutex flags_m_;
  std::vector<bool> flags_set_;
};

}  // namespace

DeviceApi* cuda_runtime_api() {
  static CudaApi api;
  return &api;
}

}  // namespace aug::gpu
