// One body, two drivers. A kernel body is a functor with an AUG_HD operator()(x, y).
// `for_2d` runs it over a grid either as a host loop (the CPU backend and the "cuda-emulated"
// device) or, in a CUDA build, as a launch on the given stream. The .cu files that call it are
// compiled by nvcc when CUDA is enabled and as plain C++ otherwise; then only the host driver exists.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "kernels/core/common.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

namespace aug::k {

// Where a stage's arithmetic runs, chosen by the backend's context, never by the stage:
//  - cpu():    the CPU backend. A kernel entry with a vectorised host driver (kernels/*/*_cpu.cpp)
//              runs that; the others run their bodies as host loops.
//  - host():   the "cuda-emulated" device: always the kernel bodies, as host loops.
//  - device:   a launch on a CUDA stream of the current device.
struct Exec {
  bool device = false;
  void* stream = nullptr;  // cudaStream_t when `device`
  bool cpu = false;        // the CPU backend: host drivers (and libraries of the same arithmetic) allowed

  static Exec host() { return Exec{}; }
  static Exec cpu_backend() { return Exec{false, nullptr, true}; }
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

// Thrown by the kernel layer; lib/ adds the stage, the image and the device to the message.
struct KernelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

#if defined(__CUDACC__)
template <class F>
__global__ void kernel_2d(F f, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  // grid.y is capped at 65535 blocks, so tall images loop.
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) f(x, y);
}

inline void check_launch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw KernelError(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class F>
__global__ void kernel_1d(F f, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    f(i);
}
#endif

// f(i) for i in [0, count): items of a flat array (e.g. 16 bytes each).
template <class F>
void for_1d(const F& f, std::size_t count, const Exec& exec, const char* what) {
  if (count == 0) return;
  if (!exec.device) {
    for (std::size_t i = 0; i < count; ++i) f(i);
    return;
  }
#if defined(__CUDACC__)
  const unsigned block = 256;
  const std::size_t blocks = (count + block - 1) / block;
  kernel_1d<<<static_cast<unsigned>(blocks < 65535u * 16u ? blocks : 65535u * 16u), block, 0,
              static_cast<cudaStream_t>(exec.stream)>>>(f, count);
  check_launch(what);
#else
  throw KernelError(std::string(what) + ": this build has no CUDA support");
#endif
}

template <class F>
void for_2d(const F& f, int width, int height, const Exec& exec, const char* what) {
  if (width <= 0 || height <= 0) return;
  if (!exec.device) {
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) f(x, y);
    return;
  }
#if defined(__CUDACC__)
  const dim3 block(32, 8);
  const unsigned rows = (static_cast<unsigned>(height) + block.y - 1) / block.y;
  const dim3 grid((width + block.x - 1) / block.x, rows < 65535u ? rows : 65535u);
  kernel_2d<<<grid, block, 0, static_cast<cudaStream_t>(exec.stream)>>>(f, width, height);
  check_launch(what);
#else
  throw KernelError(std::string(what) + ": this build has no CUDA support");
#endif
}

}  // namespace aug::k
