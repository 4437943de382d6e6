// The PTX arithmetic gate's own test (tests/kernels/check_ptx_arith.sh): compiled to PTX with the
// kernels' options, never run. The gate must report the first two and pass the last two.
#include <cstdint>

// An approximate exponential (ex2.approx.ftz) in a kernel with 8-bit output.
__global__ void arith_probe_approx_u8(const float* in, std::uint8_t* out) {
  out[threadIdx.x] = static_cast<std::uint8_t>(__expf(in[threadIdx.x]) > 1.f);
}
// A plain cast of a float to int: +inf or NaN would give other values than on the host.
__global__ void arith_probe_cast(const float* in, int* out) { out[threadIdx.x] = static_cast<int>(in[threadIdx.x]); }
// Approximations in a kernel with float output are left to its tolerance.
__global__ void arith_probe_approx_float(const float* in, float* out) { out[threadIdx.x] = __expf(in[threadIdx.x]); }
// The allowlist names it (tests/kernels/ptx_arith_allowlist.txt).
__global__ void arith_probe_listed_cast(const float* in, int* out) { out[threadIdx.x] = static_cast<int>(in[threadIdx.x]); }
