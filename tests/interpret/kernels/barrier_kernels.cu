// Test kernels for barriers, shared memory and thread indices.
// The marker comments (KG-MARK ...) let the tests find the lines that error
// messages must name.
#include "test_kernels.hpp"

namespace kg::test {

namespace {

__global__ void block_reduce_sum_kernel(const float* in, float* out) {
  KG_DYNAMIC_SMEM(float, partial);
  const unsigned threads = blockDim.x * blockDim.y;
  const unsigned t = threadIdx.y * blockDim.x + threadIdx.x;
  partial[t] = in[blockIdx.x * threads + t];
  __syncthreads();
  for (unsigned stride = threads / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

__global__ void shift_through_shared_kernel(const float* in, float* out, bool with_barrier) {
  KG_DYNAMIC_SMEM(float, staged);
  const unsigned t = threadIdx.x;
  staged[t] = in[t];
  if (with_barrier) __syncthreads();
  out[t] = staged[t == 0 ? 0 : t - 1];  // written by another thread
}

__global__ void warp_steps_kernel(int* out, int steps) {
  __shared__ int ticket;
  if (threadIdx.x == 0) ticket = 0;
  __syncthreads();
  for (int step = 0; step < steps; ++step) {
    __syncwarp();
    out[threadIdx.x * steps + step] = atomicAdd(&ticket, 1);
  }
}

__global__ void divergent_barriers_kernel(int* out, int split) {
  if (static_cast<int>(threadIdx.x) < split) {
    __syncthreads();  // KG-MARK divergent-a
    out[threadIdx.x] = 1;
  } else {
    __syncthreads();  // KG-MARK divergent-b
    out[threadIdx.x] = 2;
  }
}

__global__ void shuffle_while_lanes_at_barrier_kernel(int* out) {
  const int lane = threadIdx.x;
  if (lane < 16) {
    out[lane] = __shfl_sync(0xffffffffu, lane, 0);  // KG-MARK deadlock-shuffle
  } else {
    __syncthreads();  // KG-MARK deadlock-barrier
    out[lane] = lane;
  }
}

__global__ void early_exit_then_barrier_kernel(int* out, int live) {
  __shared__ int total;
  if (static_cast<int>(threadIdx.x) >= live) return;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  atomicAdd(&total, static_cast<int>(threadIdx.x) + 1);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = total;
}

__global__ void barrier_predicates_kernel(int* out, int threshold) {
  const int predicate = static_cast<int>(threadIdx.x) < threshold;
  const int count = __syncthreads_count(predicate);
  const int all = __syncthreads_and(predicate);
  const int any = __syncthreads_or(predicate);
  if (threadIdx.x == 0) {
    out[0] = count;
    out[1] = all;
    out[2] = any;
  }
}

__global__ void thread_indices_kernel(int* out) {
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const unsigned thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int* record = out + (static_cast<std::size_t>(block) * threads + thread) * 12;
  const unsigned values[12] = {threadIdx.x, threadIdx.y, threadIdx.z, blockIdx.x, blockIdx.y,
                               blockIdx.z,  blockDim.x,  blockDim.y,  blockDim.z, gridDim.x,
                               gridDim.y,   gridDim.z};
  for (int i = 0; i < 12; ++i) record[i] = static_cast<int>(values[i]);
}

__global__ void static_shared_per_block_kernel(int* out, bool zero_first) {
  __shared__ int counter;
  // Without the zeroing the kernel relies on shared memory starting at zero,
  // which no GPU promises.
  if (zero_first && threadIdx.x == 0) counter = 0;
  __syncthreads();
  atomicAdd(&counter, 1);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = counter;
}

__global__ void use_dynamic_smem_kernel(float* out, unsigned floats) {
  KG_DYNAMIC_SMEM(float, buffer);
  for (unsigned i = threadIdx.x; i < floats; i += blockDim.x) buffer[i] = static_cast<float>(i);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = floats > 0 ? buffer[floats - 1] : -1.0f;
}

}  // namespace

void block_reduce_sum(const float* in, float* out, int blocks, int threads_x, int threads_y,
                      cudaStream_t stream) {
  kg::launch(block_reduce_sum_kernel, dim3(blocks), dim3(threads_x, threads_y),
             sizeof(float) * threads_x * threads_y, stream, in, out);
}

void shift_through_shared(const float* in, float* out, int threads, bool with_barrier,
                          cudaStream_t stream) {
  kg::launch(shift_through_shared_kernel, dim3(1), dim3(threads), sizeof(float) * threads, stream,
             in, out, with_barrier);
}

void warp_steps(int* out, int threads, int steps, cudaStream_t stream) {
  kg::launch(warp_steps_kernel, dim3(1), dim3(threads), 0, stream, out, steps);
}

void divergent_barriers(int* out, int threads, int split, cudaStream_t stream) {
  kg::launch(divergent_barriers_kernel, dim3(1), dim3(threads), 0, stream, out, split);
}

void shuffle_while_lanes_at_barrier(int* out, cudaStream_t stream) {
  kg::launch(shuffle_while_lanes_at_barrier_kernel, dim3(1), dim3(32), 0, stream, out);
}

void early_exit_then_barrier(int* out, int threads, int live, cudaStream_t stream) {
  kg::launch(early_exit_then_barrier_kernel, dim3(1), dim3(threads), 0, stream, out, live);
}

void barrier_predicates(int* out, int threads, int threshold, cudaStream_t stream) {
  kg::launch(barrier_predicates_kernel, dim3(1), dim3(threads), 0, stream, out, threshold);
}

void thread_indices(int* out, dim3 grid, dim3 block, cudaStream_t stream) {
  kg::launch(thread_indices_kernel, grid, block, 0, stream, out);
}

void static_shared_per_block(int* out, int blocks, int threads, bool zero_first, cudaStream_t stream) {
  kg::launch(static_shared_per_block_kernel, dim3(blocks), dim3(threads), 0, stream, out, zero_first);
}

void use_dynamic_smem(float* out, int threads, std::size_t dynamic_smem_bytes, bool opt_in,
                      cudaStream_t stream) {
  if (opt_in) kg::set_max_dynamic_smem(use_dynamic_smem_kernel, dynamic_smem_bytes);
  kg::launch(use_dynamic_smem_kernel, dim3(1), dim3(threads), dynamic_smem_bytes, stream, out,
             static_cast<unsigned>(dynamic_smem_bytes / sizeof(float)));
}

}  // namespace kg::test
