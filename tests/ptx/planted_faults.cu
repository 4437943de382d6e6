// Faults planted in small kernels, which the simulated GPUs (the PTX interpreter behind the CUDA
// runtime stand-in) catch and running the kernels' bodies as host loops (the emulated device)
// cannot: each test shows both. Built into <build>/sim/ (a CUDA build with tests), run by .ci/gpu-sim.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

// Device memory holding `values`, and back.
template <class T>
T* upload(const std::vector<T>& values) {
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, values.size() * sizeof(T)), cudaSuccess);
  void* pinned = nullptr;
  EXPECT_EQ(cudaMallocHost(&pinned, values.size() * sizeof(T)), cudaSuccess);
  std::memcpy(pinned, values.data(), values.size() * sizeof(T));
  EXPECT_EQ(cudaMemcpyAsync(p, pinned, values.size() * sizeof(T), cudaMemcpyHostToDevice, nullptr), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  cudaFreeHost(pinned);
  return static_cast<T*>(p);
}
template <class T>
std::vector<T> download(const T* p, std::size_t n) {
  void* pinned = nullptr;
  EXPECT_EQ(cudaMallocHost(&pinned, n * sizeof(T)), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(pinned, p, n * sizeof(T), cudaMemcpyDeviceToHost, nullptr), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  std::vector<T> out(n);
  std::memcpy(out.data(), pinned, n * sizeof(T));
  cudaFreeHost(pinned);
  return out;
}

// 1. A float converted to an 8-bit value with a plain cast: undefined in C++ out of range. On x86
//    the value goes through a signed integer and wraps (-3 -> 253, 1e10 -> 0); nvcc converts to an
//    unsigned 32-bit value, which saturates (-3 -> 0, 1e10 -> 4294967295), and stores its low byte
//    (0, 255). The host loops agree with the CPU path, so only the device code shows it.
__host__ __device__ std::uint8_t plain_cast(float v) { return static_cast<std::uint8_t>(v); }

__global__ void to_u8(const float* in, std::uint8_t* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = plain_cast(in[i]);
}

TEST(PlantedFaults, AFloatCastOutOfRangeGivesTheGpusSaturatedBytesNotTheHosts) {
  const std::vector<float> in{-3.0f, 300.0f, 12.7f, -0.5f, std::numeric_limits<float>::quiet_NaN(), 1e10f};
  std::vector<std::uint8_t> host(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    volatile float v = in[i];  // not folded by the compiler: the instruction x86 runs
    host[i] = plain_cast(v);
  }
  float* d_in = upload(in);
  std::uint8_t* d_out = upload(std::vector<std::uint8_t>(in.size(), 0));
  to_u8<<<1, 32>>>(d_in, d_out, static_cast<int>(in.size()));
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<std::uint8_t> gpu = download(d_out, in.size());
  // cvt.rzi.u32.f32: toward zero, clamped to [0, 2^32 - 1], NaN to 0; then the low byte is stored.
  EXPECT_EQ(gpu, (std::vector<std::uint8_t>{0, 44, 12, 0, 0, 255}));
  EXPECT_EQ(host[0], 253) << "x86 wraps -3 through a 32-bit integer";
  EXPECT_EQ(host[5], 0) << "x86 wraps 1e10 through a signed integer";
  EXPECT_NE(gpu, host) << "the host loop and the device must disagree on this planted cast";
  cudaFree(d_in);
  cudaFree(d_out);
}

// 2. A 2D launch with one block row per 8 image rows and no stride loop: fine for small images, an
//    invalid configuration for an image taller than 65535 x 8 rows, which no host loop refuses.
__global__ void fill_rows(std::uint8_t* out, int width, int height) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x < width && y < height) out[static_cast<std::size_t>(y) * width + x] = 1;
}

TEST(PlantedFaults, AGridTallerThan65535BlocksIsRefused) {
  const int width = 1, height = 65536 * 8;  // 65536 block rows
  void* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, static_cast<std::size_t>(width) * height), cudaSuccess);
  const dim3 block(32, 8);
  const dim3 grid((width + 31) / 32, (height + 7) / 8);  // the planted fault: grid.y uncapped
  fill_rows<<<grid, block>>>(static_cast<std::uint8_t*>(out), width, height);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  // 65535 block rows are within the limit and run.
  fill_rows<<<dim3(1, 65535), dim3(1, 1)>>>(static_cast<std::uint8_t*>(out), width, 65535);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  cudaFree(out);
}

// 3. A kernel parameter whose layout differs between the host and the device compilation: here a
//    member only the device sees, ahead of the output pointer. The host copies its 16 bytes; the
//    device reads its pointer 8 bytes further, outside what the host wrote. Last in this file: the
//    fault it causes stays with the device, as a GPU's does.
struct Scale {
#if defined(__CUDA_ARCH__)
  const void* planted;  // the planted difference
#endif
  float gain;
  std::uint8_t* out;
};

Scale make_scale(float gain, std::uint8_t* out) {
  Scale s{};
  s.gain = gain;
  s.out = out;
  return s;
}

__global__ void scale(const Scale s, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) s.out[i] = static_cast<std::uint8_t>(s.gain * static_cast<float>(i));
}

TEST(PlantedFaults, AParameterLayoutThatDiffersBetweenHostAndDeviceFaults) {
#if !defined(__CUDA_ARCH__)
  static_assert(sizeof(Scale) == 16, "the host's layout");
#endif
  std::uint8_t* d_out = upload(std::vector<std::uint8_t>(64, 0));
  // As host loops, the body runs on the host's own layout and is right.
  std::vector<std::uint8_t> host(64);
  const Scale h = make_scale(2.0f, host.data());
  for (int i = 0; i < 64; ++i) h.out[i] = static_cast<std::uint8_t>(h.gain * static_cast<float>(i));
  EXPECT_EQ(host[10], 20);
  // On the device the pointer comes from bytes the host never wrote: an illegal address, or an
  // output that is not the host's. Either shows the mismatch.
  scale<<<1, 64>>>(make_scale(2.0f, d_out), 64);
  const cudaError_t launched = cudaGetLastError();
  const cudaError_t synced = cudaStreamSynchronize(nullptr);
  if (launched == cudaSuccess && synced == cudaSuccess) {
    EXPECT_NE(download(d_out, 64), host) << "the device wrote the host's values through a pointer it should not have";
  } else {
    EXPECT_EQ(synced, cudaErrorIllegalAddress) << cudaGetErrorString(synced);
  }
}

}  // namespace
