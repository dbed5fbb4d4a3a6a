// Kernels with known counter values (counters_test.cpp). Compiled with the
// access instrumentation (kernelgate_count_accesses), as candidates are.
#include "counter_kernels.hpp"

#include <algorithm>

#include "kernelgate/ptx.hpp"

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

__global__ void long_loop_kernel(const float* in, float* out, int loads, int per_barrier) {
  float sum = 0.0f;
  for (int i = 0; i < loads; ++i) {
    sum += in[i % 1024];
    if (per_barrier > 0 && (i + 1) % per_barrier == 0) __syncthreads();
  }
  out[0] = sum;
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

__global__ void cp_async_zero_fill_kernel(const float* src, float* out) {
  KG_DYNAMIC_SMEM(float, staged);  // 64 chunks of 4 floats
  const int lane = static_cast<int>(threadIdx.x);
  for (int round = 0; round < 2; ++round) {
    const int chunk = round * 32 + lane;
    kg::cp_async<16>(staged + 4 * chunk, src + 4 * chunk, round == 0 && lane == 0 ? 0 : 16);
  }
  kg::cp_async_commit();
  kg::cp_async_wait_all();
  __syncthreads();  // the other lanes' copies have landed too
  for (int i = lane; i < 256; i += 32) out[i] = staged[i];
}

__global__ void persistent_copy_kernel(const float* in, float* out, int n) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n;
       i += static_cast<int>(gridDim.x * blockDim.x))
    out[i] = in[i];
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

void long_loop(const float* in, float* out, int loads, int per_barrier, cudaStream_t stream) {
  kg::launch(long_loop_kernel, dim3(1), dim3(1), 0, stream, in, out, loads, per_barrier);
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

void cp_async_zero_fill(const float* src, float* out, cudaStream_t stream) {
  kg::launch(cp_async_zero_fill_kernel, dim3(1), dim3(32), 256 * sizeof(float), stream, src, out);
}

unsigned persistent_copy(const float* in, float* out, int n, cudaStream_t stream) {
  constexpr std::size_t kSharedBytes = 8 * 1024;  // unused: it only enters the occupancy
  const int sms = kg::sm_count(), per_sm = kg::max_active_blocks_per_sm(persistent_copy_kernel, 256, kSharedBytes);
  const unsigned blocks = sms > 0 && per_sm > 0 ? static_cast<unsigned>(std::min(sms * per_sm, (n + 255) / 256))
                                                : blocks_for(n).x;
  kg::launch(persistent_copy_kernel, dim3(blocks), dim3(256), kSharedBytes, stream, in, out, n);
  return blocks;
}

}  // namespace kg::test
