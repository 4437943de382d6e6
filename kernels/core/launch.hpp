// One body, two drivers. A kernel body is a functor with an AUG_HD operator()(x, y) (or (i)).
// `for_2d` / `for_1d` run it over a grid either as a host loop (the CPU backend), as a launch
// queued on an emulated device's stream (run when that stream is synchronised, like a GPU, block
// by block with the GPU's thread indices and stride loops), or, in a CUDA build, as a launch on a
// CUDA stream. The .cu files that call them are compiled by nvcc
// when CUDA is enabled and as plain C++ otherwise; then only the host drivers exist.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>

#include "kernels/core/common.hpp"
#include "kernels/core/fields.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

namespace aug::k {

// A kernel launch as an emulated device receives it: the functor's bytes (what a GPU would copy
// into its parameter space, checked before anything runs) and the launch's blocks, each run on the
// host with the thread indices a GPU gives it, in whatever order the device chooses.
struct HostLaunch {
  const char* what;                 // the kernel, as its entry point names it ("warp")
  const std::type_info* type;       // the functor's type
  FieldList (*fields)();            // its members' names and offsets, when it declares them
  const void* args;                 // the functor's bytes, valid during launch()
  std::size_t size;
  std::size_t blocks;                       // the grid's blocks
  std::function<void(std::size_t)> block;   // runs block b (every thread of it) over a copy of the functor
};

// An emulated device's stream. launch() checks the launch (and throws KernelError) now, and runs
// it later, in order with the stream's copies, when the stream is synchronised.
class HostQueue {
 public:
  virtual void launch(HostLaunch&& launch) = 0;

 protected:
  ~HostQueue() = default;
};

// Where a stage's arithmetic runs, chosen by the backend's context, never by the stage:
//  - cpu_backend(): the CPU backend. A kernel entry with a vectorised host driver
//                   (kernels/*/*_cpu.cpp) runs that; the others run their bodies as host loops now.
//  - emulated(q):   an emulated device: always the kernel bodies, queued on its stream `q`.
//  - device:        a launch on a CUDA stream of the current device.
//  - host():        the kernel bodies as host loops now (tests and benchmarks of the bodies).
struct Exec {
  bool device = false;
  void* stream = nullptr;     // cudaStream_t when `device`
  bool cpu = false;           // the CPU backend: host drivers (and libraries of the same arithmetic) allowed
  HostQueue* queue = nullptr; // an emulated device's stream

  static Exec host() { return Exec{}; }
  static Exec cpu_backend() { return Exec{false, nullptr, true, nullptr}; }
  static Exec emulated(HostQueue* q) { return Exec{false, nullptr, false, q}; }
};

// Memory on the executing device for a kernel's intermediate planes, asked for only by the paths
// that need it (the host drivers of the CPU backend mostly do not). Valid until the backend resets
// its context for the next image.
class Scratch {
 public:
  virtual void* scratch(std::size_t bytes) = 0;

 protected:
  ~Scratch() = default;
};

// Thrown by the kernel layer for arguments it cannot run with; lib/ adds the stage, the image
// and the device to the message.
struct KernelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A launch the device refused (or the emulated device's checks did): the device, not the image,
// is at fault, and nothing more should run on it.
struct LaunchError : KernelError {
  using KernelError::KernelError;
};
// A fault of a kernel that ran earlier (an illegal address, say), reported when a later launch
// is made: a GPU keeps such an error and returns it from every later call, so the launch that
// reports it is not the one that caused it. The backend names the candidates.
struct EarlierFault : LaunchError {
  using LaunchError::LaunchError;
};

// What a functor must be to travel to a GPU: copied byte for byte into the launch's parameters.
template <class F>
constexpr void check_functor() {
  static_assert(std::is_trivially_copyable_v<F>, "a kernel functor is copied to the device byte for byte");
  static_assert(sizeof(F) <= 1024, "a kernel functor travels in the launch parameters: keep it small");
  static_assert(declares_fields<F>,
                "declare the functor's members with AUG_FIELDS: the emulated device checks each pointer it carries");
}

// The launch geometry, one definition for the GPU and the emulated device. 2D: blocks of 32 x 8
// threads, one thread per column and a stride loop down the rows, since grid.y is capped at 65535
// blocks (tall images loop). 1D: blocks of 256 threads, at most 65535 x 16 blocks, a stride loop.
struct Grid2d {
  static constexpr unsigned block_x = 32, block_y = 8;
  unsigned x, y;
};
inline Grid2d grid_2d(int width, int height) {
  const unsigned rows = (static_cast<unsigned>(height) + Grid2d::block_y - 1) / Grid2d::block_y;
  return {(static_cast<unsigned>(width) + Grid2d::block_x - 1) / Grid2d::block_x, rows < 65535u ? rows : 65535u};
}
constexpr unsigned kBlock1d = 256;
inline unsigned blocks_1d(std::size_t count) {
  const std::size_t blocks = (count + kBlock1d - 1) / kBlock1d;
  return static_cast<unsigned>(blocks < 65535u * 16u ? blocks : 65535u * 16u);
}

// One thread's work: (block bx, by; thread tx, ty) of a grid `grid_y` blocks tall.
template <class F>
AUG_HD void thread_2d(const F& f, int width, int height, unsigned bx, unsigned by, unsigned tx, unsigned ty,
                      unsigned grid_y) {
  const int x = static_cast<int>(bx * Grid2d::block_x + tx);
  if (x >= width) return;
  for (int y = static_cast<int>(by * Grid2d::block_y + ty); y < height; y += static_cast<int>(grid_y * Grid2d::block_y))
    f(x, y);
}
template <class F>
AUG_HD void thread_1d(const F& f, std::size_t count, unsigned block, unsigned thread, unsigned blocks) {
  for (std::size_t i = block * static_cast<std::size_t>(kBlock1d) + thread; i < count;
       i += static_cast<std::size_t>(blocks) * kBlock1d)
    f(i);
}

#if defined(__CUDACC__)
// The functor stays in the launch's parameter space (__grid_constant__, compute capability 7.0
// and up): a member array indexed at run time (a per-channel gain, a table of taps) is read from
// there, where a by-value parameter would first be copied whole into each thread's local memory.
template <class F>
__global__ void kernel_2d(const __grid_constant__ F f, int width, int height) {
  thread_2d(f, width, height, blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y, gridDim.y);
}

inline void check_launch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return;
  switch (e) {  // the errors a kernel leaves behind when it faults, sticky for the context
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      throw EarlierFault(std::string("a kernel that ran before \"") + what + "\" faulted: " + cudaGetErrorString(e));
    default:
      throw LaunchError(std::string(what) + ": launch failed: " + cudaGetErrorString(e));
  }
}

template <class F>
__global__ void kernel_1d(const __grid_constant__ F f, std::size_t count) {
  thread_1d(f, count, blockIdx.x, threadIdx.x, gridDim.x);
}
#endif

// f(i) for i in [0, count): items of a flat array (e.g. 16 bytes each).
template <class F>
void for_1d(const F& f, std::size_t count, const Exec& exec, const char* what) {
  check_functor<F>();
  if (count == 0) return;
  const unsigned blocks = blocks_1d(count);
  if (!exec.device) {
    if (exec.queue) {
      auto block = [f, count, blocks](std::size_t b) {
        for (unsigned t = 0; t < kBlock1d; ++t) thread_1d(f, count, static_cast<unsigned>(b), t, blocks);
      };
      exec.queue->launch({what, &typeid(F), fields_of<F>(), &f, sizeof(F), blocks, block});
    } else {
      for (std::size_t i = 0; i < count; ++i) f(i);
    }
    return;
  }
#if defined(__CUDACC__)
  kernel_1d<<<blocks, kBlock1d, 0, static_cast<cudaStream_t>(exec.stream)>>>(f, count);
  check_launch(what);
#else
  throw KernelError(std::string(what) + ": this build has no CUDA support");
#endif
}

template <class F>
void for_2d(const F& f, int width, int height, const Exec& exec, const char* what) {
  check_functor<F>();
  if (width <= 0 || height <= 0) return;
  const Grid2d grid = grid_2d(width, height);
  if (!exec.device) {
    if (exec.queue) {
      auto block = [f, width, height, grid](std::size_t b) {
        const auto bx = static_cast<unsigned>(b % grid.x), by = static_cast<unsigned>(b / grid.x);
        for (unsigned ty = 0; ty < Grid2d::block_y; ++ty)
          for (unsigned tx = 0; tx < Grid2d::block_x; ++tx) thread_2d(f, width, height, bx, by, tx, ty, grid.y);
      };
      exec.queue->launch({what, &typeid(F), fields_of<F>(), &f, sizeof(F), std::size_t{grid.x} * grid.y, block});
    } else {
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) f(x, y);
    }
    return;
  }
#if defined(__CUDACC__)
  kernel_2d<<<dim3(grid.x, grid.y), dim3(Grid2d::block_x, Grid2d::block_y), 0,
              static_cast<cudaStream_t>(exec.stream)>>>(f, width, height);
  check_launch(what);
#else
  throw KernelError(std::string(what) + ": this build has no CUDA support");
#endif
}

}  // namespace aug::k
