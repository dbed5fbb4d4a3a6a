// Kernels of the interpret-mode micro-benchmark (interpret_bench.cpp).
#include "kernelgate/cuda.hpp"
#include "kernelgate/ptx.hpp"

namespace kg::bench {

namespace {

__global__ void barrier_loop_kernel(int iterations, int* out) {
  int sum = 0;
  for (int i = 0; i < iterations; ++i) {
    sum += i;
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

__global__ void shuffle_loop_kernel(int iterations, int* out) {
  int value = threadIdx.x;
  for (int i = 0; i < iterations; ++i) value += __shfl_xor_sync(0xffffffffu, value, i & 31);
  out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

__global__ void mma_loop_kernel(int iterations, float* out) {
  const std::uint32_t a[4] = {kg::cvt_rna_tf32(1.0f), kg::cvt_rna_tf32(0.5f),
                              kg::cvt_rna_tf32(0.25f), kg::cvt_rna_tf32(2.0f)};
  const std::uint32_t b[2] = {kg::cvt_rna_tf32(0.125f), kg::cvt_rna_tf32(1.0f)};
  float acc[4] = {};
  for (int i = 0; i < iterations; ++i) kg::mma_m16n8k8_tf32(acc, a, b, acc);
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc[0] + acc[1] + acc[2] + acc[3];
}

__global__ void empty_kernel(int* out) {
  if (threadIdx.x == 0) out[blockIdx.x] = 1;
}

}  // namespace

void barrier_loop(int blocks, int threads, int iterations, int* out) {
  kg::launch(barrier_loop_kernel, dim3(blocks), dim3(threads), 0, nullptr, iterations, out);
}
void shuffle_loop(int blocks, int threads, int iterations, int* out) {
  kg::launch(shuffle_loop_kernel, dim3(blocks), dim3(threads), 0, nullptr, iterations, out);
}
void mma_loop(int blocks, int threads, int iterations, float* out) {
  kg::launch(mma_loop_kernel, dim3(blocks), dim3(threads), 0, nullptr, iterations, out);
}
void empty(int blocks, int threads, int* out) {
  kg::launch(empty_kernel, dim3(blocks), dim3(threads), 0, nullptr, out);
}

}  // namespace kg::bench
