// The CUDA runtime stand-in's own checks (cudart.cpp), called as augment's cuda_api.cpp and nvcc's
// generated code call it: a fat binary registered by hand (PTX text in the container nvcc writes),
// two simulated GPUs with 64 MiB each, copies, launches, events and faults.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
void** __cudaRegisterFatBinary(void* wrapper);
void __cudaRegisterFatBinaryEnd(void** handle);
void __cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun, const char* device_name, int limit,
                            uint3* tid, uint3* bid, dim3* block, dim3* grid, int* warp);
}

namespace {

// Read by the stand-in at its first call, which no test has made before this runs.
const bool kEnvironment = [] {
  setenv("AUGMENT_SIM_GPUS", "2", 1);
  setenv("AUGMENT_SIM_GPU_MEMORY_MB", "64", 1);
  return true;
}();

// out[i] = i * 3 + add for i < n: (u64 out, u32 n, u32 add).
constexpr const char* kPtx = R"(
.version 9.0
.target sm_90
.address_size 64
.visible .entry fill(.param .u64 fill_param_0, .param .u32 fill_param_1, .param .u32 fill_param_2)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [fill_param_0];
  ld.param.u32 %r1, [fill_param_1];
  ld.param.u32 %r2, [fill_param_2];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r6, %r3, %r4, %r5;
  setp.ge.u32 %p1, %r6, %r1;
  @%p1 bra $L__done;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd2, %rd3;
  mad.lo.s32 %r7, %r6, 3, %r2;
  st.global.u32 [%rd4], %r7;
$L__done:
  ret;
}
)";

// A fat binary as nvcc lays it out: a 16-byte header, then one PTX entry (64-byte header).
std::vector<unsigned long long> fat_binary(const std::string& ptx, std::uint64_t flags) {
  const std::size_t payload = (ptx.size() + 1 + 7) / 8 * 8;
  std::vector<unsigned char> b(16 + 64 + payload, 0);
  auto put = [&](std::size_t at, auto v) { std::memcpy(b.data() + at, &v, sizeof v); };
  put(0, std::uint32_t{0xBA55ED50});
  put(4, std::uint16_t{1});
  put(6, std::uint16_t{16});
  put(8, std::uint64_t{64 + payload});
  put(16, std::uint16_t{1});           // PTX
  put(18, std::uint16_t{0x0101});
  put(20, std::uint32_t{64});          // entry header size
  put(24, std::uint64_t{payload});
  put(16 + 24, std::uint32_t{0x00090000});  // ISA 9.0
  put(16 + 28, std::uint32_t{90});     // compute_90
  put(16 + 40, flags | 0x11);
  std::memcpy(b.data() + 80, ptx.data(), ptx.size());
  std::vector<unsigned long long> words(b.size() / 8);
  std::memcpy(words.data(), b.data(), b.size());
  return words;
}

struct Wrapper {
  int magic, version;
  const unsigned long long* data;
  void* filename;
};

// The kernels' host-side identities.
const char kFill = 0, kCompressed = 0;

void register_kernels() {
  static const bool done = [] {
    static const std::vector<unsigned long long> plain = fat_binary(kPtx, 0);
    static const std::vector<unsigned long long> zstd = fat_binary(kPtx, 0x8000);
    static Wrapper w1{0x466243B1, 1, plain.data(), nullptr}, w2{0x466243B1, 1, zstd.data(), nullptr};
    void** h1 = __cudaRegisterFatBinary(&w1);
    __cudaRegisterFunction(h1, &kFill, const_cast<char*>("fill"), "fill", -1, nullptr, nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterFatBinaryEnd(h1);
    void** h2 = __cudaRegisterFatBinary(&w2);
    __cudaRegisterFunction(h2, &kCompressed, const_cast<char*>("fill"), "fill", -1, nullptr, nullptr, nullptr, nullptr,
                           nullptr);
    __cudaRegisterFatBinaryEnd(h2);
    return true;
  }();
  (void)done;
}

cudaError_t fill(cudaStream_t s, std::uint32_t* out, unsigned n, unsigned add, unsigned blocks = 4, unsigned threads = 64,
                 const void* kernel = &kFill) {
  register_kernels();
  void* args[] = {&out, &n, &add};
  return cudaLaunchKernel(kernel, dim3(blocks), dim3(threads), args, 0, s);
}

struct Device {
  explicit Device(int d) {
    EXPECT_EQ(cudaSetDevice(d), cudaSuccess);
    EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  }
  ~Device() { cudaStreamDestroy(stream); }
  cudaStream_t stream = nullptr;
};

TEST(CudaStandIn, ListsItsSimulatedGpus) {
  int n = 0;
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(n, 2);
  cudaDeviceProp p;
  ASSERT_EQ(cudaGetDeviceProperties(&p, 1), cudaSuccess);
  EXPECT_EQ(p.totalGlobalMem, std::size_t{64} << 20);
  EXPECT_EQ(p.major * 10 + p.minor, 90);
  EXPECT_EQ(cudaGetDeviceProperties(&p, 2), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaSetDevice(2), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "read once, then cleared";
}

TEST(CudaStandIn, WorkRunsAtSynchronisationAndMemoryStartsPoisoned) {
  Device d(0);
  void *dev = nullptr, *host = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 1024), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&host, 1024), cudaSuccess);
  std::memset(host, 7, 1024);
  ASSERT_EQ(cudaMemcpyAsync(host, dev, 1024, cudaMemcpyDeviceToHost, d.stream), cudaSuccess);
  EXPECT_EQ(static_cast<unsigned char*>(host)[0], 0xFF) << "a download's destination holds poison until it runs";
  ASSERT_EQ(fill(d.stream, static_cast<std::uint32_t*>(dev), 256, 5), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(host, dev, 1024, cudaMemcpyDeviceToHost, d.stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(d.stream), cudaSuccess);
  const auto* got = static_cast<const std::uint32_t*>(host);
  for (unsigned i = 0; i < 256; ++i) ASSERT_EQ(got[i], i * 3 + 5) << i;
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(host), cudaSuccess);
  EXPECT_EQ(cudaFree(dev), cudaErrorInvalidValue) << "freed twice";
  cudaGetLastError();
}

TEST(CudaStandIn, CopiesMoveOnlyBetweenTheStreamsDeviceAndPinnedMemory) {
  Device d(0);
  void *dev0 = nullptr, *dev1 = nullptr, *pinned = nullptr;
  ASSERT_EQ(cudaMalloc(&dev0, 256), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dev1, 256), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, 256), cudaSuccess);
  std::vector<unsigned char> pageable(256);
  EXPECT_EQ(cudaMemcpyAsync(dev0, pageable.data(), 256, cudaMemcpyHostToDevice, d.stream), cudaErrorInvalidValue)
      << "from pageable memory";
  EXPECT_EQ(cudaMemcpyAsync(dev1, pinned, 256, cudaMemcpyHostToDevice, d.stream), cudaErrorInvalidValue)
      << "into another device's memory";
  EXPECT_EQ(cudaMemcpyAsync(dev0, dev1, 256, cudaMemcpyDeviceToDevice, d.stream), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyAsync(pinned, dev0, 256, cudaMemcpyHostToDevice, d.stream), cudaErrorInvalidValue)
      << "the direction named is not the one the pointers take";
  EXPECT_EQ(cudaMemcpyAsync(dev0, pinned, 512, cudaMemcpyHostToDevice, d.stream), cudaErrorInvalidValue)
      << "past the end of the allocations";
  EXPECT_EQ(cudaMemcpyAsync(dev0, pinned, 256, cudaMemcpyHostToDevice, d.stream), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(d.stream), cudaSuccess);
  cudaGetLastError();
  cudaFree(dev0);
  cudaFree(dev1);
  cudaFreeHost(pinned);
}

TEST(CudaStandIn, OutOfMemoryIsAnErrorThatClears) {
  Device d(0);
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, std::size_t{65} << 20), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&p, std::size_t{32} << 20), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

TEST(CudaStandIn, EventsCompleteInStreamOrder) {
  Device d(0);
  cudaEvent_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaEventCreate(&a), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&b), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle) << "never recorded";
  ASSERT_EQ(cudaEventRecord(a, d.stream), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(b, d.stream), cudaSuccess);
  EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaErrorNotReady) << "not reached before the synchronisation";
  ASSERT_EQ(cudaStreamSynchronize(d.stream), cudaSuccess);
  EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
  EXPECT_GE(ms, 0.f);
  cudaGetLastError();
  cudaEventDestroy(a);
  cudaEventDestroy(b);
}

TEST(CudaStandIn, BadLaunchesAreRefusedAtOnce) {
  Device d(0);
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 1024), cudaSuccess);
  EXPECT_EQ(fill(d.stream, static_cast<std::uint32_t*>(dev), 256, 0, 1, 2048), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a refused launch is not sticky";
  EXPECT_EQ(fill(d.stream, static_cast<std::uint32_t*>(dev), 256, 0, 4, 64, &kCompressed), cudaErrorInvalidDeviceFunction)
      << "compressed PTX cannot be read";
  static const char unknown = 0;
  EXPECT_EQ(fill(d.stream, static_cast<std::uint32_t*>(dev), 256, 0, 4, 64, &unknown), cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
  EXPECT_EQ(cudaStreamSynchronize(d.stream), cudaSuccess);
  cudaFree(dev);
}

// Last: the fault stays with device 1 for the rest of the process, as it would on a GPU.
TEST(CudaStandIn, AKernelFaultIsStickyForItsDeviceOnly) {
  void* dev0 = nullptr;
  {
    Device d0(0);
    ASSERT_EQ(cudaMalloc(&dev0, 1024), cudaSuccess);
  }
  Device d1(1);
  // A kernel on cuda:1 writing cuda:0's memory: an illegal address, reported at the synchronisation.
  ASSERT_EQ(fill(d1.stream, static_cast<std::uint32_t*>(dev0), 256, 0), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(d1.stream), cudaErrorIllegalAddress);
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 256), cudaErrorIllegalAddress) << "every later call on the device";
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress) << "sticky: reading it does not clear it";
  EXPECT_STREQ(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered");
  // cuda:0 is unaffected.
  Device d0(0);
  ASSERT_EQ(fill(d0.stream, static_cast<std::uint32_t*>(dev0), 256, 1), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(d0.stream), cudaSuccess);
  EXPECT_EQ(cudaFree(dev0), cudaSuccess);
}

}  // namespace
