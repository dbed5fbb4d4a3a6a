#pragma once
// Host launchers of the counter tests' kernels (counter_kernels.cu): small
// kernels whose counters have known answers. One block of `threads` threads
// unless said otherwise; pointers are host pointers (interpret mode).
#include "kernelgate/cuda.hpp"

namespace kg::test {

// False in a build without the access instrumentation (the sanitizer build):
// then only the PTX wrappers' counts are there.
bool counter_kernels_report_accesses();

// out[i] = in[i * stride] for i < n (n threads over blocks of 256): stride 1
// is a coalesced copy, 2 touches every other float, 8 a sector per lane.
void strided_copy(const float* in, float* out, int n, int stride, cudaStream_t stream);
// out[i] = in[i] as float4, i < n4.
void copy_float4(const float4* in, float4* out, int n4, cudaStream_t stream);
// out[i] = in[i] + in[(i + 1) % n]: every input float is read twice.
void read_twice(const float* in, float* out, int n, cudaStream_t stream);
// One warp writes a 32 x 32 float tile in shared memory by rows, then reads
// it by columns: out[c * 32 + lane] = in[lane * 32 + c]. padded: rows of 33
// floats in dynamic shared memory; otherwise 32 in a static __shared__ array.
void transpose_through_shared(const float* in, float* out, bool padded, cudaStream_t stream);
// One warp: odd lanes first load in[64 + lane], then every lane loads
// in[lane]; out[lane] = the sum.
void divergent_loads(const float* in, float* out, cudaStream_t stream);
// Like strided_copy with stride 1, but each thread first copies its value
// through a local array on its stack (not memory a counter sees).
void copy_through_stack(const float* in, float* out, int n, cudaStream_t stream);

}  // namespace kg::test
