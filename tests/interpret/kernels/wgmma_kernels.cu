// Test kernels for the wgmma wrappers of kernelgate/ptx.hpp.
#include "kernelgate/ptx.hpp"
#include "test_kernels.hpp"

namespace kg::test {

namespace {

constexpr int kN = 64;
constexpr int kSteps = 2;           // K steps of 8
constexpr int kKTotal = 8 * kSteps;
constexpr int kStepFloats = kN * 8;  // one K step of B: 2 KB
// B element (n, k) of one K step: core matrices of 8 rows (n) x 4 k, the two
// K halves of an 8-row block next to each other: leading byte offset (along
// K) 128, stride byte offset (along N) 256. Swapping the two in the
// descriptor would read other elements, so the test pins their meaning.
constexpr unsigned kLbo = 128;
constexpr unsigned kSbo = 256;
__device__ __forceinline__ int b_offset(int n, int k) {
  return (n / 8) * 64 + (k / 4) * 32 + (n % 8) * 4 + k % 4;
}

__device__ __forceinline__ void stage_b(float* smem, const float* b) {
  for (int i = threadIdx.x; i < kSteps * kStepFloats; i += blockDim.x) {
    const int step = i / kStepFloats, n = (i % kStepFloats) / 8, k = i % 8;
    smem[step * kStepFloats + b_offset(n, k)] =
        __uint_as_float(kg::cvt_rna_tf32(b[(8 * step + k) * kN + n]));
  }
  kg::fence_proxy_async_shared();  // the stores above, then the async proxy reads them
  __syncthreads();
}

// Rows 16 w + g and + 8, K step `step`, in the mma A layout.
__device__ __forceinline__ void load_a(std::uint32_t (&frag)[4], const float* a, int step) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int row = 16 * (threadIdx.x >> 5) + g, k = 8 * step + t;
  frag[0] = kg::cvt_rna_tf32(a[row * kKTotal + k]);
  frag[1] = kg::cvt_rna_tf32(a[(row + 8) * kKTotal + k]);
  frag[2] = kg::cvt_rna_tf32(a[row * kKTotal + k + 4]);
  frag[3] = kg::cvt_rna_tf32(a[(row + 8) * kKTotal + k + 4]);
}

// Element (r, j) of a thread's D fragment as a row-major 64x64 index.
__device__ __forceinline__ int d_index(int j, int r) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int row = 16 * (threadIdx.x >> 5) + g + 8 * (r >> 1);
  return row * kN + 8 * j + 2 * t + (r & 1);
}

__global__ void __launch_bounds__(128)
    wgmma_kernel(const float* a, const float* b, const float* c, float* d, bool accumulate) {
  KG_DYNAMIC_SMEM(float, smem);
  stage_b(smem, b);
  float acc[8][4];
  for (int j = 0; j < 8; ++j)
    for (int r = 0; r < 4; ++r) acc[j][r] = c[d_index(j, r)];
  std::uint32_t frag[kSteps][4];
  for (int step = 0; step < kSteps; ++step) load_a(frag[step], a, step);
  const std::uint64_t desc = kg::smem_matrix_descriptor(smem, kLbo, kSbo);
  kg::wgmma_fence();
  for (int step = 0; step < kSteps; ++step)
    kg::wgmma_m64n64k8_tf32(acc, frag[step], desc + step * (kStepFloats * 4 / 16),
                            accumulate || step > 0);
  kg::wgmma_commit();
  kg::wgmma_wait<0>();
  for (int j = 0; j < 8; ++j)
    for (int r = 0; r < 4; ++r) d[d_index(j, r)] = acc[j][r];
}

__global__ void wgmma_misuse_kernel(int misuse, float* out, float* global_b) {
  KG_DYNAMIC_SMEM(float, smem);
  const auto kind = static_cast<WgmmaMisuse>(misuse);
  if (kind == WgmmaMisuse::unfenced_copy) {
    for (int i = 4 * threadIdx.x; i < kStepFloats; i += 4 * blockDim.x)
      kg::cp_async<16>(smem + i, global_b + i);
    kg::cp_async_commit();
    kg::cp_async_wait_all();  // landed, but not fenced for the async proxy
  } else {
    for (int i = threadIdx.x; i < kStepFloats; i += blockDim.x) smem[i] = 1.0f;
    kg::fence_proxy_async_shared();
  }
  __syncthreads();
  const bool first_thread = threadIdx.x == 0;
  float acc[2][8][4] = {};
  std::uint32_t frag[4] = {0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u};  // 1.0
  const std::uint64_t desc = kg::smem_matrix_descriptor(
      kind == WgmmaMisuse::outside_smem ? static_cast<void*>(global_b) : smem, kLbo, kSbo);
  const unsigned warp = threadIdx.x / 32;
  if (kind != WgmmaMisuse::no_fence) kg::wgmma_fence();
  if (kind == WgmmaMisuse::warp_disagrees && warp == 1)
    kg::wgmma_m64n64k8_tf32(acc[0], frag, desc, false);  // scale-d 0 where the others have 1
  else if (kind != WgmmaMisuse::warp_skips || warp != 3)
    kg::wgmma_m64n64k8_tf32(acc[0], frag, desc, true);
  kg::wgmma_commit();
  if (kind == WgmmaMisuse::read_before_wait && first_thread)
    for (int i = 0; i < 32; ++i) out[i] = acc[0][i / 4][i % 4];
  if (kind == WgmmaMisuse::a_changed) frag[2] = 0;
  if (kind == WgmmaMisuse::b_overwritten) {
    __syncthreads();  // every warp has issued
    if (threadIdx.x == 0) smem[0] = 2.0f;  // B (k 0, n 0), still being read
    __syncthreads();
  }
  if (kind == WgmmaMisuse::partial_wait) {
    kg::wgmma_m64n64k8_tf32(acc[1], frag, desc, true);
    kg::wgmma_commit();
    kg::wgmma_wait<1>();
    if (first_thread)
      for (int i = 0; i < 64; ++i) out[i] = acc[i / 32][(i % 32) / 4][i % 4];
  }
  if (kind == WgmmaMisuse::no_wait) return;
  kg::wgmma_wait<0>();
}

}  // namespace

void wgmma_64x64x16(const float* a, const float* b, const float* c, float* d, bool accumulate,
                    cudaStream_t stream) {
  kg::launch(wgmma_kernel, dim3(1), dim3(128), kSteps * kStepFloats * sizeof(float), stream, a,
             b, c, d, accumulate);
}

void wgmma_misuse(WgmmaMisuse misuse, float* out, cudaStream_t stream) {
  alignas(16) static float global_b[kStepFloats] = {};
  const unsigned threads = misuse == WgmmaMisuse::odd_block ? 96 : 128;
  kg::launch(wgmma_misuse_kernel, dim3(1), dim3(threads), kStepFloats * sizeof(float), stream,
             static_cast<int>(misuse), out, global_b);
}

}  // namespace kg::test
