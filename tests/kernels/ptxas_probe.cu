// A kernel that the ptxas gate (tests/kernels/check_ptxas.sh) must report: a per-thread array
// written at indices read from memory lives in local memory (a stack frame). Compiled to PTX
// only, never run.
__global__ void ptxas_probe_local_array(const int* in, int* out, int n) {
  int histogram[64] = {0};
  for (int i = 0; i < n; ++i) histogram[in[i] & 63] += 1;
  out[threadIdx.x] = histogram[threadIdx.x & 63];
}
