#pragma once
// Host launchers of the interpret-mode test kernels. The kernels (*.cu next to
// this file) compile as C++ against the interpret runtime in the cpu build and
// with nvcc in the gpu build; pointers are device pointers (host pointers in
// interpret mode).
#include <cstdint>

#include "kernelgate/cuda.hpp"

namespace kg::test {

// ---- barriers and shared memory (barrier_kernels.cu) ----
// out[block] = sum of in[block * threads .. +threads), by a shared-memory tree
// reduction; block = (threads_x, threads_y), threads = threads_x * threads_y
// must be a power of two.
void block_reduce_sum(const float* in, float* out, int blocks, int threads_x, int threads_y,
                      cudaStream_t stream);
// out[i] = in[i - 1] (out[0] = in[0]) through shared memory, with or without
// the barrier between the write and the read.
void shift_through_shared(const float* in, float* out, int threads, bool with_barrier,
                          cudaStream_t stream);
// After one barrier, each thread takes `steps` tickets from a shared counter,
// a __syncwarp before each: out[thread * steps + step] = its ticket.
void warp_steps(int* out, int threads, int steps, cudaStream_t stream);
// Threads below `split` wait at one __syncthreads, the others at another.
void divergent_barriers(int* out, int threads, int split, cudaStream_t stream);
// Lanes 0-15 shuffle with a full mask while lanes 16-31 wait at __syncthreads.
void shuffle_while_lanes_at_barrier(int* out, cudaStream_t stream);
// Threads with index >= live return at once; the others reduce through a
// barrier. out[0] = sum over the live threads of (index + 1).
void early_exit_then_barrier(int* out, int threads, int live, cudaStream_t stream);
// out[0..2] = __syncthreads_count/_and/_or of (index < threshold).
void barrier_predicates(int* out, int threads, int threshold, cudaStream_t stream);
// out[linear thread of the grid] = packed (blockIdx, threadIdx, blockDim, gridDim) checks.
void thread_indices(int* out, dim3 grid, dim3 block, cudaStream_t stream);
// A static __shared__ counter incremented by every thread of a block, which
// first zeroes it when zero_first: out[block] = threads per block, for every
// block. Without the zeroing, out[block] is the counter's first value plus
// the threads.
void static_shared_per_block(int* out, int blocks, int threads, bool zero_first, cudaStream_t stream);
// A kernel that uses `dynamic_smem_bytes` of dynamic shared memory.
void use_dynamic_smem(float* out, int threads, std::size_t dynamic_smem_bytes, bool opt_in,
                      cudaStream_t stream);

// ---- warp operations (warp_kernels.cu) ----
enum class ShuffleKind : int { idx = 0, up = 1, down = 2, bfly = 3 };
// Lane l of the mask shuffles 100 + l; out[l] = what it read (untouched for
// lanes outside the mask, which return at once).
void shuffle(ShuffleKind kind, unsigned mask, int operand, int width, int* out,
             cudaStream_t stream);
// The same with doubles (two 32-bit halves on the GPU): value 0.5 + l + 2^40.
void shuffle_double_xor(int lane_mask, double* out, cudaStream_t stream);
// Lane l votes bit l of `predicates`; out[3 l + 0/1/2] = ballot, any, all.
void vote(unsigned mask, unsigned predicates, unsigned* out, cudaStream_t stream);
// Lane `exiting` returns before the others shuffle with a full mask.
void shuffle_after_lane_exit(int exiting, int* out, cudaStream_t stream);
// __syncwarp with full mask followed by a shuffle exchange through shared memory.
void syncwarp_exchange(int* out, cudaStream_t stream);

// ---- PTX wrappers (ptx_kernels.cu) ----
void cvt_rna_tf32(const float* in, std::uint32_t* out, int n, cudaStream_t stream);
// out[i] = kg::pack_bf16x2(low[i], high[i]).
void pack_bf16x2(const float* low, const float* high, std::uint32_t* out, int n,
                 cudaStream_t stream);
// One warp: D (16x8) = A (16x8, row-major) * B (8x8, row-major [k][n]) + C.
// convert: pass A and B through cvt_rna_tf32; otherwise their raw bits.
void mma_16x8x8(const float* a, const float* b, const float* c, float* d, bool convert,
                cudaStream_t stream);
// One thread: the 8 shared floats set to 5, then group 0 copies src[0..4)
// with cp.async<16>, group 1 copies tail_bytes of src[4..8) (zero-filling the
// rest). Snapshots of the 8 shared floats: before any wait, after
// wait_group 1, after wait_group 0.
void cp_async_groups(const float* src, int tail_bytes, float* before, float* after_first,
                     float* after_all, cudaStream_t stream);
// C (m x n) = A (m x k) * B (k x n), row-major, a tiled tf32 tensor-core GEMM
// with cp.async double buffering (the pattern of the conv candidates).
void tiled_gemm_tf32(const float* a, const float* b, float* c, int m, int n, int k,
                     cudaStream_t stream);

// ---- wgmma (wgmma_kernels.cu) ----
// One warpgroup: D (64 x n) = A (64x16) * B (16 x n) + (accumulate ? C : 0),
// n = 32 or 64, row-major, as two chained wgmma m64nNk8 (K steps 0-7 and
// 8-15) in one group. A and B pass through cvt_rna_tf32; B is staged K-major
// in shared memory with the two K halves of each core-matrix column adjacent
// (leading byte offset 128, stride byte offset 256).
void wgmma_64xnx16(int n, const float* a, const float* b, const float* c, float* d,
                   bool accumulate, cudaStream_t stream);
// The same with bf16 operands: one wgmma m64nNk16 (A packed with
// kg::pack_bf16x2 in the m16n8k16 layout, B 16-bit K-major with the same byte
// offsets). Exact when A and B are representable in bf16.
void wgmma_64xnx16_bf16(int n, const float* a, const float* b, const float* c, float* d,
                        bool accumulate, cudaStream_t stream);
// D (64 x 64) = A16 (64 x 16) * B16 (16 x 64) on bf16 (one m64n64k16) + the
// first 8 columns of A8 (64 x 16) * the first 8 rows of B8 (16 x 64) on tf32
// (one m64n64k8) + C, both wgmmas on one accumulator in one group, with a
// wgmma_fence between them when `fence_between` (PTX requires it: the two
// have different shapes). Exact for exact inputs.
void wgmma_bf16_then_tf32(const float* a16, const float* b16, const float* a8, const float* b8,
                          const float* c, float* d, bool fence_between, cudaStream_t stream);
// Misuse of the wgmma rules, which interpret mode must catch (not for a GPU:
// what these do there is undefined).
enum class WgmmaMisuse : int {
  read_before_wait,  // out[0..32): warp 0 lane 0's D read before the wait (NaN)
  partial_wait,      // two groups; out[0..32) first D and out[32..64) second
                     // after wgmma_wait<1> (the second still NaN)
  no_fence,          // a wgmma without a wgmma_fence before it: kg::Error
  a_changed,         // the A fragment written before the wait: kg::Error
  no_wait,           // the thread returns with the wgmma pending: kg::Error
  outside_smem,      // a descriptor of global memory: kg::Error
  odd_block,         // a block of 96 threads: kg::Error
  warp_disagrees,    // warp 1 passes another accumulate flag than warps 0, 2, 3: kg::Error
  shape_disagrees,   // warp 2 issues an m64n32k8 where the others issue m64n64k8: kg::Error
  warp_skips,        // warp 3 issues no wgmma: kg::Error at the end of the block
  b_overwritten,     // B's shared memory written between the issue and the wait: kg::Error
  unfenced_copy,     // B copied with cp.async, waited for, no fence.proxy.async: kg::Error
  unfenced_stores,   // B written with plain stores, no fence.proxy.async: kg::Error
};
void wgmma_misuse(WgmmaMisuse misuse, float* out, cudaStream_t stream);

// ---- atomics (atomic_kernels.cu) ----
// counters[0] += 1 (int), counters[1] max of thread ids, float_sum[0] += 0.5 per thread,
// over `blocks` blocks of `threads`.
void atomics(int* counters, unsigned long long* wide, float* float_sum, int blocks, int threads,
             cudaStream_t stream);

}  // namespace kg::test
