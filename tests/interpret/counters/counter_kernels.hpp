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
// One thread reads in[i % 1024] for i < loads (in holds 1024 floats), with a
// barrier after every per_barrier loads (0: none), and writes the sum to out[0].
void long_loop(const float* in, float* out, int loads, int per_barrier, cudaStream_t stream);
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
// One warp copies 64 16-byte chunks of src (256 floats) through shared memory
// with cp.async, chunk k * 32 + lane in round k = 0, 1, to out; lane 0's
// first copy zero-fills (src_bytes 0), so out[0..3] = 0.
void cp_async_zero_fill(const float* src, float* out, cudaStream_t stream);
// A persistent copy: blocks of 256 threads, as many as the device holds at
// once (kg::sm_count() x kg::max_active_blocks_per_sm with 8 KiB of dynamic
// shared memory), each copying its grid-stride share of out[i] = in[i]; one
// block per 256 floats when the queries answer 0. Returns the grid's blocks.
unsigned persistent_copy(const float* in, float* out, int n, cudaStream_t stream);

}  // namespace kg::test
