// Test kernels for the wgmma wrappers of kernelgate/ptx.hpp.
#include "kernelgate/ptx.hpp"
#include "test_kernels.hpp"

namespace kg::test {

namespace {

constexpr int kN = 64;              // the misuse kernel's N; the product kernel takes N = 32 too
constexpr int kSteps = 2;           // K steps of 8
constexpr int kKTotal = 8 * kSteps;
constexpr int kStepFloats = kN * 8;  // one K step of a 64-wide B: 2 KB
// B element (n, k) of one K step: core matrices of 8 rows (n) x 4 k, the two
// K halves of an 8-row block next to each other: leading byte offset (along
// K) 128, stride byte offset (along N) 256. Swapping the two in the
// descriptor would read other elements, so the test pins their meaning.
constexpr unsigned kLbo = 128;
constexpr unsigned kSbo = 256;
__device__ __forceinline__ int b_offset(int n, int k) {
  return (n / 8) * 64 + (k / 4) * 32 + (n % 8) * 4 + k % 4;
}

// B (16 x n, row-major) as kSteps K steps of n x 8, each n * 8 floats.
__device__ __forceinline__ void stage_b(float* smem, const float* b, int n_width) {
  const int step_floats = n_width * 8;
  for (int i = threadIdx.x; i < kSteps * step_floats; i += blockDim.x) {
    const int step = i / step_floats, n = (i % step_floats) / 8, k = i % 8;
    smem[step * step_floats + b_offset(n, k)] = kg::round_to_tf32(b[(8 * step + k) * n_width + n]);
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

// Element (r, j) of a thread's D fragment as a row-major 64 x n index.
__device__ __forceinline__ int d_index(int j, int r, int n_width) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int row = 16 * (threadIdx.x >> 5) + g + 8 * (r >> 1);
  return row * n_width + 8 * j + 2 * t + (r & 1);
}

template <int kWidth>
__device__ __forceinline__ void wgmma(float (&acc)[kWidth / 8][4], const std::uint32_t (&frag)[4],
                                      std::uint64_t desc, bool accumulate) {
  if constexpr (kWidth == 64)
    kg::wgmma_m64n64k8_tf32(acc, frag, desc, accumulate);
  else
    kg::wgmma_m64n32k8_tf32(acc, frag, desc, accumulate);
}

template <int kWidth>
__global__ void __launch_bounds__(128)
    wgmma_kernel(const float* a, const float* b, const float* c, float* d, bool accumulate) {
  KG_DYNAMIC_SMEM(float, smem);
  stage_b(smem, b, kWidth);
  float acc[kWidth / 8][4];
  for (int j = 0; j < kWidth / 8; ++j)
    for (int r = 0; r < 4; ++r) acc[j][r] = c[d_index(j, r, kWidth)];
  std::uint32_t frag[kSteps][4];
  for (int step = 0; step < kSteps; ++step) load_a(frag[step], a, step);
  const std::uint64_t desc = kg::smem_matrix_descriptor(smem, kLbo, kSbo);
  kg::wgmma_fence();
  for (int step = 0; step < kSteps; ++step)
    wgmma<kWidth>(acc, frag[step], desc + step * (kWidth * 8 * 4 / 16), accumulate || step > 0);
  kg::wgmma_commit();
  kg::wgmma_wait<0>();
  for (int j = 0; j < kWidth / 8; ++j)
    for (int r = 0; r < 4; ++r) d[d_index(j, r, kWidth)] = acc[j][r];
}

// B (16 x 64, row-major) as bf16, K-major: 8 bf16 per core-matrix row, the
// two K halves of an 8-row block adjacent (byte offsets 128 along K, 256
// along N, as the tf32 layout).
__device__ __forceinline__ void stage_b_bf16(std::uint16_t* b16, const float* b, int n_width) {
  for (int i = threadIdx.x; i < kKTotal * n_width; i += blockDim.x) {
    const int k = i / n_width, n = i % n_width;
    b16[(n / 8) * 128 + (k / 8) * 64 + (n % 8) * 8 + k % 8] =
        static_cast<std::uint16_t>(kg::pack_bf16x2(b[i], 0.0f) & 0xffffu);
  }
}

// A (64 x 16, row-major) as a bf16 fragment: register r holds row g (r even)
// or g + 8, columns 2t and 2t + 1 (+ 8 for r >= 2).
__device__ __forceinline__ void load_a_bf16(std::uint32_t (&frag)[4], const float* a) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  for (int r = 0; r < 4; ++r) {
    const int row = 16 * (threadIdx.x >> 5) + g + 8 * (r & 1), column = 2 * t + 8 * (r >> 1);
    frag[r] = kg::pack_bf16x2(a[row * kKTotal + column], a[row * kKTotal + column + 1]);
  }
}

// The same product with bf16 operands: one wgmma m64nNk16. B (16 x N) is
// staged K-major with 8 bf16 per core-matrix row, the two K halves of an
// 8-row block adjacent: the same byte offsets (128 along K, 256 along N).
template <int kWidth>
__global__ void __launch_bounds__(128)
    wgmma_bf16_kernel(const float* a, const float* b, const float* c, float* d, bool accumulate) {
  KG_DYNAMIC_SMEM(float, smem);
  stage_b_bf16(reinterpret_cast<std::uint16_t*>(smem), b, kWidth);
  kg::fence_proxy_async_shared();
  __syncthreads();
  float acc[kWidth / 8][4];
  for (int j = 0; j < kWidth / 8; ++j)
    for (int r = 0; r < 4; ++r) acc[j][r] = c[d_index(j, r, kWidth)];
  std::uint32_t frag[4];
  load_a_bf16(frag, a);
  const std::uint64_t desc = kg::smem_matrix_descriptor(smem, kLbo, kSbo);
  kg::wgmma_fence();
  if constexpr (kWidth == 64)
    kg::wgmma_m64n64k16_bf16(acc, frag, desc, accumulate);
  else
    kg::wgmma_m64n32k16_bf16(acc, frag, desc, accumulate);
  kg::wgmma_commit();
  kg::wgmma_wait<0>();
  for (int j = 0; j < kWidth / 8; ++j)
    for (int r = 0; r < 4; ++r) d[d_index(j, r, kWidth)] = acc[j][r];
}

// kFenceBetween is a template argument: with a run-time flag ptxas would
// insert a warpgroup.arrive of its own (notice C7519) and hide the question.
template <bool kFenceBetween>
__global__ void __launch_bounds__(128)
    wgmma_bf16_then_tf32_kernel(const float* a16, const float* b16, const float* a8,
                                const float* b8, const float* c, float* d) {
  KG_DYNAMIC_SMEM(float, smem);
  // bf16 B in the first 2 KB, the tf32 K step after it.
  stage_b_bf16(reinterpret_cast<std::uint16_t*>(smem), b16, kN);
  float* tf32_b = smem + kKTotal * kN / 2;
  for (int i = threadIdx.x; i < kStepFloats; i += blockDim.x) {
    const int n = i / 8, k = i % 8;
    tf32_b[b_offset(n, k)] = kg::round_to_tf32(b8[k * kN + n]);
  }
  kg::fence_proxy_async_shared();
  __syncthreads();
  float acc[kN / 8][4];
  for (int j = 0; j < kN / 8; ++j)
    for (int r = 0; r < 4; ++r) acc[j][r] = c[d_index(j, r, kN)];
  std::uint32_t frag16[4], frag8[4];
  load_a_bf16(frag16, a16);
  load_a(frag8, a8, 0);
  kg::wgmma_fence();
  kg::wgmma_m64n64k16_bf16(acc, frag16, kg::smem_matrix_descriptor(smem, kLbo, kSbo), true);
  if constexpr (kFenceBetween) kg::wgmma_fence();
  kg::wgmma_m64n64k8_tf32(acc, frag8, kg::smem_matrix_descriptor(tf32_b, kLbo, kSbo), true);
  kg::wgmma_commit();
  kg::wgmma_wait<0>();
  for (int j = 0; j < kN / 8; ++j)
    for (int r = 0; r < 4; ++r) d[d_index(j, r, kN)] = acc[j][r];
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
    if (kind != WgmmaMisuse::unfenced_stores) kg::fence_proxy_async_shared();
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
  else if (kind == WgmmaMisuse::shape_disagrees && warp == 2)
    kg::wgmma_m64n32k8_tf32(reinterpret_cast<float(&)[4][4]>(acc[0]), frag, desc, true);
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

void wgmma_64xnx16(int n, const float* a, const float* b, const float* c, float* d,
                   bool accumulate, cudaStream_t stream) {
  const std::size_t smem_bytes = kSteps * n * 8 * sizeof(float);
  if (n == 32)
    kg::launch(wgmma_kernel<32>, dim3(1), dim3(128), smem_bytes, stream, a, b, c, d, accumulate);
  else
    kg::launch(wgmma_kernel<64>, dim3(1), dim3(128), smem_bytes, stream, a, b, c, d, accumulate);
}

void wgmma_64xnx16_bf16(int n, const float* a, const float* b, const float* c, float* d,
                        bool accumulate, cudaStream_t stream) {
  const std::size_t smem_bytes = 16 * n * sizeof(std::uint16_t);
  if (n == 32)
    kg::launch(wgmma_bf16_kernel<32>, dim3(1), dim3(128), smem_bytes, stream, a, b, c, d,
               accumulate);
  else
    kg::launch(wgmma_bf16_kernel<64>, dim3(1), dim3(128), smem_bytes, stream, a, b, c, d,
               accumulate);
}

void wgmma_bf16_then_tf32(const float* a16, const float* b16, const float* a8, const float* b8,
                          const float* c, float* d, bool fence_between, cudaStream_t stream) {
  const std::size_t smem_bytes = kKTotal * kN * sizeof(std::uint16_t) + kStepFloats * sizeof(float);
  if (fence_between)
    kg::launch(wgmma_bf16_then_tf32_kernel<true>, dim3(1), dim3(128), smem_bytes, stream, a16, b16,
               a8, b8, c, d);
  else
    kg::launch(wgmma_bf16_then_tf32_kernel<false>, dim3(1), dim3(128), smem_bytes, stream, a16, b16,
               a8, b8, c, d);
}

void wgmma_misuse(WgmmaMisuse misuse, float* out, cudaStream_t stream) {
  alignas(16) static float global_b[kStepFloats] = {};
  const unsigned threads = misuse == WgmmaMisuse::odd_block ? 96 : 128;
  kg::launch(wgmma_misuse_kernel, dim3(1), dim3(threads), kStepFloats * sizeof(float), stream,
             static_cast<int>(misuse), out, global_b);
}

}  // namespace kg::test
