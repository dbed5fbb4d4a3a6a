// Test kernel for atomics: blocks may run in parallel on host threads.
#include "test_kernels.hpp"

namespace kg::test {

namespace {

__global__ void atomics_kernel(int* counters, unsigned long long* wide, float* float_sum) {
  const int global = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  atomicAdd(&counters[0], 1);
  atomicMax(&counters[1], global);
  atomicMin(&counters[2], global);
  atomicAdd(&wide[0], 1ull << 32);
  atomicAdd(&float_sum[0], 0.5f);
  // Only one thread of the grid sees 0 and replaces it.
  if (atomicCAS(&counters[3], 0, global + 1) == 0) atomicAdd(&counters[4], 1);
}

}  // namespace

void atomics(int* counters, unsigned long long* wide, float* float_sum, int blocks, int threads,
             cudaStream_t stream) {
  kg::launch(atomics_kernel, dim3(blocks), dim3(threads), 0, stream, counters, wide, float_sum);
}

}  // namespace kg::test
