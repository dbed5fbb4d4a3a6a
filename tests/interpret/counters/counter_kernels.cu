// Kernels with known counter values (counters_test.cpp). Compiled with the
// access instrumentation (kernelgate_count_accesses), as candidates are.
#include "counter_kernels.hpp"

namespace kg::test {

namespace {

__global__ void strided_copy_kernel(const float* in, float* out, int n, int stride) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = in[i * stride];
}

__global__ void copy_float4_kernel(const float4* in, float4* out, int n4) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n4) out[i] = in[i];
}

__global__ void read_twice_kernel(const float* in, float* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = in[i] + in[(i + 1) % n];
}

__global__ void transpose_static_kernel(const float* in, float* out) {
  __shared__ float tile[32][32];
  const unsigned lane = threadIdx.x;
  for (int r = 0; r < 32; ++r) tile[r][lane] = in[r * 32 + lane];
  __syncthreads();
  for (int c = 0; c < 32; ++c) out[c * 32 + lane] = tile[lane][c];
}

__global__ void transpose_padded_kernel(const float* in, float* out) {
  KG_DYNAMIC_SMEM(float, tile);  // 32 rows of 33
  const unsigned lane = threadIdx.x;
  for (int r = 0; r < 32; ++r) tile[r * 33 + lane] = in[r * 32 + lane];
  __syncthreads();
  for (int c = 0; c < 32; ++c) out[c * 32 + lane] = tile[lane * 33 + c];
}

__global__ void divergent_loads_kernel(const float* in, float* out) {
  const unsigned lane = threadIdx.x;
  float value = 0.0f;
  if (lane % 2 == 1) value = in[64 + lane];
  value += in[lane];
  out[lane] = value;
}

__global__ void copy_through_stack_kernel(const float* in, float* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  volatile float local[4];  // volatile: kept on the stack, each access made
  for (int k = 0; k < 4; ++k) local[k] = in[i] + static_cast<float>(k);
  out[i] = local[0];
}

dim3 blocks_for(int n) { return dim3(static_cast<unsigned>((n + 255) / 256)); }

}  // namespace

bool counter_kernels_report_accesses() {
#if defined(KG_COUNTS_ACCESSES)
  return true;
#else
  return false;
#endif
}

void strided_copy(const float* in, float* out, int n, int stride, cudaStream_t stream) {
  kg::launch(strided_copy_kernel, blocks_for(n), dim3(256), 0, stream, in, out, n, stride);
}

void copy_float4(const float4* in, float4* out, int n4, cudaStream_t stream) {
  kg::launch(copy_float4_kernel, blocks_for(n4), dim3(256), 0, stream, in, out, n4);
}

void read_twice(const float* in, float* out, int n, cudaStream_t stream) {
  kg::launch(read_twice_kernel, blocks_for(n), dim3(256), 0, stream, in, out, n);
}

void transpose_through_shared(const float* in, float* out, bool padded, cudaStream_t stream) {
  if (padded)
    kg::launch(transpose_padded_kernel, dim3(1), dim3(32), 32 * 33 * sizeof(float), stream, in, out);
  else
    kg::launch(transpose_static_kernel, dim3(1), dim3(32), 0, stream, in, out);
}

void divergent_loads(const float* in, float* out, cudaStream_t stream) {
  kg::launch(divergent_loads_kernel, dim3(1), dim3(32), 0, stream, in, out);
}

void copy_through_stack(const float* in, float* out, int n, cudaStream_t stream) {
  kg::launch(copy_through_stack_kernel, blocks_for(n), dim3(256), 0, stream, in, out, n);
}

}  // namespace kg::test
