// The FMA check's own test: compiled with the kernels' options (--fmad=false), this still holds
// the FMAs that option cannot remove (an explicit fmaf, the device expf's implementation), so
// check_no_fma.sh must find them here; if it did not, its "no FMA" on the kernels would mean nothing.
__global__ void fma_probe_explicit(float* v) { v[0] = fmaf(v[1], v[2], v[3]); }
__global__ void fma_probe_libm(float* v) { v[0] = expf(v[1]); }
// Not contracted under --fmad=false: a product and a sum, each rounded.
__global__ void fma_probe_separate(float* v) { v[0] = v[1] * v[2] + v[3]; }
