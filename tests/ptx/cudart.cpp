// A stand-in for the CUDA runtime (libcudart): the calls augment's lib/gpu/cuda_api.cpp makes and
// the entry points nvcc's generated code calls to register and launch kernels, over simulated
// devices whose kernels the PTX interpreter (ptx.hpp) runs from the PTX in the build's own fat
// binaries. The augment and GPU tests of <build>/sim/ (cmake/Cuda.cmake) link this instead of the
// real runtime, so the real CUDA path (cuda_api.cpp, the generated launch stubs, the parameter layout
// nvcc chose, the PTX it emitted) runs on a machine without a GPU. docs/ptx-interpreter.md.
//
// As strict as the emulated device (lib/gpu/emulated_api.cpp), where it can be:
//  - N devices (AUGMENT_SIM_GPUS, default 2), each with its own memory; a kernel may touch only
//    memory of the device it runs on (each access is checked), a copy only moves between the
//    stream's device memory and pinned host memory, in the direction it names;
//  - new allocations and download destinations hold poison (0xFF) until written;
//  - work is deferred: copies, launches and events run, in order, when their stream is
//    synchronised (or the device's memory is freed), so a missing synchronisation shows;
//  - a kernel fault (illegal or misaligned address, division by zero) is sticky for the device:
//    every later call on it returns the error, as a GPU's context does. The fault is described
//    (kernel, block, thread, PTX instruction and source line) on standard error.
// Device memory per device: AUGMENT_SIM_GPU_MEMORY_MB (default 4096). Host threads running one
// launch's blocks: AUGMENT_SIM_THREADS (default: the processor's cores, at most 4).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "tests/ptx/ptx.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMaxDevices = 8;
constexpr unsigned char kPoison = 0xFF;

void say(const std::string& s) { std::fprintf(stderr, "cuda stand-in: %s\n", s.c_str()); }

int env_int(const char* name, int fallback, int lo, int hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end || n < lo || n > hi) {
    say(std::string(name) + "=" + v + " is not a number from " + std::to_string(lo) + " to " + std::to_string(hi) +
        "; using " + std::to_string(fallback));
    return fallback;
  }
  return static_cast<int>(n);
}

// ---------------------------------------------------------------------------------------------
// Kernels: fat binaries and the functions registered from them

struct FatBinary {
  const unsigned char* data = nullptr;
  std::once_flag once;
  std::shared_ptr<const ptx::Module> module;
  std::string error;  // why the module cannot be used

  void load() {
    std::call_once(once, [this] {
      try {
        module = ptx::Module::parse(ptx_text(), "the PTX of a registered fat binary");
      } catch (const std::exception& e) {
        error = e.what();
      }
    });
  }

  // The PTX entry of the fat binary (kind 1) of the newest architecture up to compute_90.
  std::string ptx_text() const {
    auto u16 = [](const unsigned char* p) { std::uint16_t v; std::memcpy(&v, p, 2); return v; };
    auto u32 = [](const unsigned char* p) { std::uint32_t v; std::memcpy(&v, p, 4); return v; };
    auto u64 = [](const unsigned char* p) { std::uint64_t v; std::memcpy(&v, p, 8); return v; };
    if (u32(data) != 0xBA55ED50u) throw std::runtime_error("the fat binary's header has the wrong magic number");
    const unsigned char* p = data + u16(data + 6);
    const unsigned char* end = p + u64(data + 8);
    std::string best;
    std::uint32_t best_arch = 0;
    bool compressed = false;
    while (p + 64 <= end) {
      const std::uint16_t kind = u16(p);
      const std::uint32_t header = u32(p + 4);
      const std::uint64_t payload = u64(p + 8);
      const std::uint32_t arch = u32(p + 28);
      const std::uint64_t flags = u64(p + 40);
      if (kind == 1 && arch <= 90 && arch >= best_arch) {
        if (flags & (0x8000 | 0x2000)) {
          compressed = true;
        } else {
          const char* text = reinterpret_cast<const char*>(p + header);
          best.assign(text, strnlen(text, payload));
          best_arch = arch;
        }
      }
      p += header + payload;
    }
    if (best.empty())
      throw std::runtime_error(compressed ? "the fat binary's PTX is compressed: compile it as the targets of "
                                            "<build>/sim/ are (cmake/Cuda.cmake: nvcc --compress-mode=none)"
                                          : "the fat binary holds no PTX for compute_90 or older");
    return best;
  }
};

struct Function {
  FatBinary* fat;
  std::string name;
  std::once_flag once;
  const ptx::Kernel* kernel = nullptr;
  std::string error;

  const ptx::Kernel* resolve() {
    std::call_once(once, [this] {
      fat->load();
      if (!fat->module) {
        error = fat->error;
      } else if (!(kernel = fat->module->find(name))) {
        error = "kernel " + ptx::display_name(name) + " is not in its module's PTX";
      } else if (!kernel->unsupported().empty()) {
        error = "kernel " + ptx::display_name(name) + ": the PTX interpreter does not execute " + kernel->unsupported().front();
        kernel = nullptr;
      }
      if (!error.empty()) say(error);
    });
    return kernel;
  }
};

// Registration runs in other objects' static constructors, in no set order, and unregistration
// from atexit: the registry is made on first use and never destroyed.
struct Registry {
  std::mutex m;
  std::deque<FatBinary> fats;
  std::deque<Function> functions;
  std::unordered_map<const void*, Function*> by_host;
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

// ---------------------------------------------------------------------------------------------
// Devices, memory, streams

struct Allocation {
  std::uintptr_t begin = 0;
  std::size_t bytes = 0;
  int device = 0;  // -1: pinned host memory
};

struct Stream;

struct Device {
  std::atomic<int> sticky{0};
  std::atomic<std::size_t> used{0};
  Stream* legacy = nullptr;  // stream 0 of the device, made when first used
};

struct Runtime {
  int count = env_int("AUGMENT_SIM_GPUS", 2, 1, kMaxDevices);
  std::size_t capacity = static_cast<std::size_t>(env_int("AUGMENT_SIM_GPU_MEMORY_MB", 4096, 16, 1 << 20)) << 20;
  int threads = env_int("AUGMENT_SIM_THREADS", static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u)), 1, 256);
  Device devices[kMaxDevices];

  std::shared_mutex memory_m;
  std::map<std::uintptr_t, Allocation> allocations;

  // The live streams, by handle; a flush holds its own reference, so a stream destroyed meanwhile
  // is deleted when that flush ends.
  std::mutex streams_m;
  std::map<Stream*, std::shared_ptr<Stream>> streams;

  // The allocation holding [p, p + bytes), if any.
  bool find(const void* p, std::size_t bytes, Allocation& out) {
    std::shared_lock lock(memory_m);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    auto it = allocations.upper_bound(a);
    if (it == allocations.begin()) return false;
    --it;
    if (a + bytes > it->second.begin + it->second.bytes) return false;
    out = it->second;
    return true;
  }
  // The device's allocations as sorted ranges, for a launch's checks.
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges(int device) {
    std::shared_lock lock(memory_m);
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> out;
    for (const auto& [begin, a] : allocations)
      if (a.device == device) out.push_back({begin, begin + a.bytes});
    return out;
  }
};
Runtime& rt() {
  static Runtime* r = new Runtime;
  return *r;
}

thread_local int t_device = 0;
thread_local cudaError_t t_last = cudaSuccess;

cudaError_t fail(cudaError_t e) {
  t_last = e;
  return e;
}
cudaError_t fail(cudaError_t e, const std::string& why) {
  say(why);
  return fail(e);
}
cudaError_t sticky(int device) { return static_cast<cudaError_t>(rt().devices[device].sticky.load()); }

// Work queued on a stream, run in order when it is synchronised. Each item returns the error it
// raises on the device (0: none).
struct Stream {
  int device = 0;
  std::mutex run_m;  // held while the stream's work runs
  std::mutex queue_m;
  std::deque<std::function<int()>> pending;

  void push(std::function<int()> work) {
    std::lock_guard lock(queue_m);
    pending.push_back(std::move(work));
  }
  void flush() {
    std::lock_guard run(run_m);
    while (true) {
      std::function<int()> work;
      {
        std::lock_guard lock(queue_m);
        if (pending.empty()) return;
        work = std::move(pending.front());
        pending.pop_front();
      }
      Device& d = rt().devices[device];
      if (d.sticky.load()) continue;  // a faulted context runs nothing more
      const int e = work();
      if (e) {
        int none = 0;
        d.sticky.compare_exchange_strong(none, e);
      }
    }
  }
};

// Runs the work queued on every stream of `device` (of every device when it is -1).
void flush_device(int device) {
  std::vector<std::shared_ptr<Stream>> mine;
  {
    std::lock_guard lock(rt().streams_m);
    for (const auto& [handle, s] : rt().streams)
      if (device < 0 || s->device == device) mine.push_back(s);
  }
  for (const auto& s : mine) s->flush();
}

Stream* new_stream(int device) {
  auto s = std::make_shared<Stream>();
  s->device = device;
  std::lock_guard lock(rt().streams_m);
  rt().streams[s.get()] = s;
  return s.get();
}

Stream* stream_of(cudaStream_t s) {
  if (s) return reinterpret_cast<Stream*>(s);
  static std::mutex m;
  std::lock_guard lock(m);
  Device& d = rt().devices[t_device];
  if (!d.legacy) d.legacy = new_stream(t_device);
  return d.legacy;
}

// Global memory a launch may touch: the device's allocations when the kernel runs.
class DeviceMemory final : public ptx::Memory {
 public:
  explicit DeviceMemory(int device) : ranges_(rt().ranges(device)) {}
  bool accessible(std::uint64_t address, std::size_t bytes) const override {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), std::make_pair(static_cast<std::uintptr_t>(address), ~std::uintptr_t{0}));
    if (it == ranges_.begin()) return false;
    --it;
    return address >= it->first && address + bytes <= it->second;
  }

 private:
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges_;
};

struct Event {
  std::atomic<bool> recorded{false}, complete{false};
  Clock::time_point at;
};
struct EventBox {
  std::shared_ptr<Event> event = std::make_shared<Event>();
};

struct Config {
  dim3 grid, block;
  std::size_t shared;
  void* stream;
};
thread_local std::vector<Config> t_configs;

cudaError_t launch(Function* f, dim3 grid, dim3 block, void** args, std::size_t shared, cudaStream_t s) {
  const int device = t_device;
  if (const cudaError_t e = sticky(device)) return fail(e);
  if (!f) return fail(cudaErrorInvalidDeviceFunction, "a launch of a function that was never registered");
  const ptx::Kernel* k = f->resolve();
  if (!k) return fail(cudaErrorInvalidDeviceFunction);
  if (shared) return fail(cudaErrorInvalidValue, "kernel " + ptx::display_name(k->name()) + ": dynamic shared memory is not supported");
  Stream* st = stream_of(s);
  if (st->device != device)
    return fail(cudaErrorInvalidResourceHandle, "kernel " + ptx::display_name(k->name()) + " launched on cuda:" + std::to_string(device) +
                                                    " into a stream of cuda:" + std::to_string(st->device));
  const ptx::Dim3 g{grid.x, grid.y, grid.z}, b{block.x, block.y, block.z};
  try {
    ptx::check_launch(*k, g, b);
  } catch (const ptx::Fault& e) {
    return fail(static_cast<cudaError_t>(e.code), e.what());
  }
  // The arguments are copied now: the launch stub's storage is gone when the kernel runs.
  auto params = std::make_shared<std::vector<std::max_align_t>>((k->param_bytes() + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t) + 1);
  for (std::size_t i = 0; i < k->params().size(); ++i)
    std::memcpy(reinterpret_cast<unsigned char*>(params->data()) + k->params()[i].offset, args[i], k->params()[i].size);
  const int threads = rt().threads;
  st->push([k, g, b, params, device, threads]() {
    const DeviceMemory memory(device);
    try {
      ptx::run(*k, ptx::Launch{g, b, params->data(), &memory, threads, 0});
    } catch (const ptx::Fault& e) {
      say("cuda:" + std::to_string(device) + ": " + e.what());
      return e.code;
    }
    return 0;
  });
  return cudaSuccess;
}

Function* function_of(const void* host_fun) {
  Registry& r = registry();
  std::lock_guard lock(r.m);
  const auto it = r.by_host.find(host_fun);
  return it == r.by_host.end() ? nullptr : it->second;
}

std::string error_text(cudaError_t e) {
  switch (static_cast<int>(e)) {
    case 0: return "no error";
    case 1: return "invalid argument";
    case 2: return "out of memory";
    case 4: return "driver shutting down";
    case 9: return "invalid configuration argument";
    case 21: return "invalid copy direction for memcpy";
    case 35: return "CUDA driver version is insufficient for CUDA runtime version";
    case 52: return "__global__ function call is not configured";
    case 98: return "invalid device function";
    case 100: return "no CUDA-capable device is detected";
    case 101: return "invalid device ordinal";
    case 400: return "invalid resource handle";
    case 600: return "device not ready";
    case 700: return "an illegal memory access was encountered";
    case 715: return "an illegal instruction was encountered";
    case 716: return "misaligned address";
    case 719: return "unspecified launch failure";
    default: return "unrecognized error code";
  }
}

}  // namespace

extern "C" {

// ---- registration (called from nvcc's generated static constructors)

void** __cudaRegisterFatBinary(void* wrapper) {
  struct Wrapper {
    int magic, version;
    const unsigned long long* data;
    void* filename;
  };
  Registry& r = registry();
  std::lock_guard lock(r.m);
  FatBinary& f = r.fats.emplace_back();
  f.data = reinterpret_cast<const unsigned char*>(static_cast<Wrapper*>(wrapper)->data);
  return reinterpret_cast<void**>(&f);
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}  // kernel tables stay: static destructors may still launch
char __cudaInitModule(void**) { return 1; }
void __cudaRegisterFunction(void** handle, const char* host_fun, char*, const char* device_name, int, uint3*, uint3*, dim3*,
                            dim3*, int*) {
  Registry& r = registry();
  std::lock_guard lock(r.m);
  Function& f = r.functions.emplace_back();
  f.fat = reinterpret_cast<FatBinary*>(handle);
  f.name = device_name;
  r.by_host[host_fun] = &f;
}
void __cudaRegisterVar(void**, char*, char* , const char* name, int, size_t, int, int) {
  say(std::string("device variable ") + name + " is not supported");
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st* stream) {
  t_configs.push_back(Config{grid, block, shared, stream});
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  if (t_configs.empty()) return fail(static_cast<cudaError_t>(52));
  const Config c = t_configs.back();
  t_configs.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *static_cast<void**>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_fun) {
  Function* f = function_of(host_fun);
  *kernel = reinterpret_cast<cudaKernel_t>(f);
  return f ? cudaSuccess : fail(cudaErrorInvalidDeviceFunction);
}
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t stream) {
  return launch(reinterpret_cast<Function*>(kernel), grid, block, args, shared, stream);
}
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t stream) {
  return launch(reinterpret_cast<Function*>(kernel), grid, block, args, shared, stream);
}
cudaError_t cudaLaunchKernel(const void* host_fun, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t stream) {
  return launch(function_of(host_fun), grid, block, args, shared, stream);
}

// ---- errors and versions

cudaError_t cudaGetLastError() {
  const cudaError_t e = t_last;
  t_last = cudaSuccess;
  if (e == cudaSuccess) return sticky(t_device);
  return e;
}
cudaError_t cudaPeekAtLastError() { return t_last != cudaSuccess ? t_last : sticky(t_device); }
const char* cudaGetErrorString(cudaError_t e) {
  static std::mutex m;
  static std::map<int, std::string>* texts = new std::map<int, std::string>;
  std::lock_guard lock(m);
  auto [it, fresh] = texts->emplace(static_cast<int>(e), std::string());
  if (fresh) it->second = error_text(e);
  return it->second.c_str();
}
const char* cudaGetErrorName(cudaError_t e) { return cudaGetErrorString(e); }
cudaError_t cudaDriverGetVersion(int* v) {
  *v = 13000;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = 13000;
  return cudaSuccess;
}

// ---- devices

cudaError_t cudaGetDeviceCount(int* n) {
  *n = rt().count;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (device < 0 || device >= rt().count) return fail(cudaErrorInvalidDevice);
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "PTX interpreter (simulated GPU %d)", device);
  p->totalGlobalMem = rt().capacity;
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = 1;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->warpSize = 32;
  p->sharedMemPerBlock = 48 << 10;
  p->unifiedAddressing = 1;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= rt().count) return fail(cudaErrorInvalidDevice);
  t_device = device;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  *device = t_device;
  return cudaSuccess;
}
cudaError_t cudaSetDeviceFlags(unsigned) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize() {
  flush_device(t_device);
  if (const cudaError_t e = sticky(t_device)) return fail(e);
  return cudaSuccess;
}

// ---- memory

cudaError_t cudaMalloc(void** p, size_t bytes) {
  const int device = t_device;
  if (const cudaError_t e = sticky(device)) return fail(e);
  Device& d = rt().devices[device];
  const std::size_t size = std::max<std::size_t>((bytes + 255) / 256 * 256, 256);
  if (d.used.fetch_add(size) + size > rt().capacity) {
    d.used -= size;
    return fail(cudaErrorMemoryAllocation);
  }
  void* m = std::aligned_alloc(256, size);
  if (!m) {
    d.used -= size;
    return fail(cudaErrorMemoryAllocation);
  }
  std::memset(m, kPoison, size);
  {
    std::unique_lock lock(rt().memory_m);
    rt().allocations[reinterpret_cast<std::uintptr_t>(m)] = Allocation{reinterpret_cast<std::uintptr_t>(m), bytes, device};
  }
  *p = m;
  return cudaSuccess;
}
cudaError_t cudaMallocHost(void** p, size_t bytes) {
  const std::size_t size = std::max<std::size_t>((bytes + 4095) / 4096 * 4096, 4096);
  void* m = std::aligned_alloc(4096, size);
  if (!m) return fail(cudaErrorMemoryAllocation);
  std::memset(m, kPoison, size);
  {
    std::unique_lock lock(rt().memory_m);
    rt().allocations[reinterpret_cast<std::uintptr_t>(m)] = Allocation{reinterpret_cast<std::uintptr_t>(m), bytes, -1};
  }
  *p = m;
  return cudaSuccess;
}
// Freeing waits for the work queued on the memory's device (all devices for pinned memory).
cudaError_t free_memory(void* p, bool pinned) {
  if (!p) return cudaSuccess;
  Allocation a;
  if (!rt().find(p, 1, a) || a.begin != reinterpret_cast<std::uintptr_t>(p) || (a.device < 0) != pinned)
    return fail(cudaErrorInvalidValue, std::string(pinned ? "cudaFreeHost" : "cudaFree") + " of a pointer it did not allocate");
  flush_device(pinned ? -1 : a.device);
  {
    std::unique_lock lock(rt().memory_m);
    rt().allocations.erase(a.begin);
  }
  if (!pinned) rt().devices[a.device].used -= std::max<std::size_t>((a.bytes + 255) / 256 * 256, 256);
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaFree(void* p) { return free_memory(p, false); }
cudaError_t cudaFreeHost(void* p) { return free_memory(p, true); }

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s) {
  const int device = t_device;
  if (const cudaError_t e = sticky(device)) return fail(e);
  Stream* st = stream_of(s);
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice)
    return fail(cudaErrorInvalidMemcpyDirection);
  if (bytes == 0) return cudaSuccess;
  Allocation a, b;
  const bool dst_ok = rt().find(dst, bytes, a), src_ok = rt().find(src, bytes, b);
  const int want_dst = kind == cudaMemcpyDeviceToHost ? -1 : st->device;
  const int want_src = kind == cudaMemcpyHostToDevice ? -1 : st->device;
  auto name = [&](int d) { return d < 0 ? std::string("pinned host memory") : "memory of cuda:" + std::to_string(d); };
  if (!dst_ok || a.device != want_dst)
    return fail(cudaErrorInvalidValue, "cudaMemcpyAsync: the destination of " + std::to_string(bytes) + " bytes is not " + name(want_dst));
  if (!src_ok || b.device != want_src)
    return fail(cudaErrorInvalidValue, "cudaMemcpyAsync: the source of " + std::to_string(bytes) + " bytes is not " + name(want_src));
  if (kind == cudaMemcpyDeviceToHost) std::memset(dst, kPoison, bytes);  // until the copy runs
  st->push([dst, src, bytes]() {
    std::memmove(dst, src, bytes);
    return 0;
  });
  return cudaSuccess;
}

// ---- streams and events

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) {
  *s = reinterpret_cast<cudaStream_t>(new_stream(t_device));
  return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t* s) { return cudaStreamCreateWithFlags(s, 0); }
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (!s) return fail(cudaErrorInvalidResourceHandle);
  std::shared_ptr<Stream> st;
  {
    std::lock_guard lock(rt().streams_m);
    const auto it = rt().streams.find(reinterpret_cast<Stream*>(s));
    if (it == rt().streams.end()) return fail(cudaErrorInvalidResourceHandle);
    st = it->second;
    rt().streams.erase(it);
  }
  st->flush();  // queued work still completes
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  Stream* st = stream_of(s);
  st->flush();
  if (const cudaError_t e = sticky(st->device)) return fail(e);
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = reinterpret_cast<cudaEvent_t>(new EventBox);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete reinterpret_cast<EventBox*>(e);
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (const cudaError_t err = sticky(t_device)) return fail(err);
  std::shared_ptr<Event> ev = reinterpret_cast<EventBox*>(e)->event;
  ev->complete = false;
  ev->recorded = true;
  stream_of(s)->push([ev]() {
    ev->at = Clock::now();
    ev->complete = true;
    return 0;
  });
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  const Event& a = *reinterpret_cast<EventBox*>(start)->event;
  const Event& b = *reinterpret_cast<EventBox*>(end)->event;
  if (!a.recorded || !b.recorded) return fail(cudaErrorInvalidResourceHandle);
  if (!a.complete || !b.complete) return fail(cudaErrorNotReady);
  *ms = std::chrono::duration<float, std::milli>(b.at - a.at).count();
  return cudaSuccess;
}

}  // extern "C"
