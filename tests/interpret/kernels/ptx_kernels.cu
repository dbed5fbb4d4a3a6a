// Test kernels for the PTX wrappers of kernelgate/ptx.hpp.
#include "kernelgate/ptx.hpp"
#include "test_kernels.hpp"

namespace kg::test {

namespace {

__global__ void cvt_rna_tf32_kernel(const float* in, std::uint32_t* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = kg::cvt_rna_tf32(in[i]);
}

__global__ void pack_bf16x2_kernel(const float* low, const float* high, std::uint32_t* out,
                                   int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = kg::pack_bf16x2(low[i], high[i]);
}

__global__ void mma_kernel(const float* a, const float* b, const float* c, float* d,
                           bool convert) {
  const int lane = threadIdx.x;
  const int g = lane >> 2;
  const int t = lane & 3;
  const float a_values[4] = {a[g * 8 + t], a[(g + 8) * 8 + t], a[g * 8 + t + 4],
                             a[(g + 8) * 8 + t + 4]};
  const float b_values[2] = {b[t * 8 + g], b[(t + 4) * 8 + g]};
  std::uint32_t a_regs[4];
  std::uint32_t b_regs[2];
  for (int i = 0; i < 4; ++i)
    a_regs[i] = convert ? kg::cvt_rna_tf32(a_values[i]) : __float_as_uint(a_values[i]);
  for (int i = 0; i < 2; ++i)
    b_regs[i] = convert ? kg::cvt_rna_tf32(b_values[i]) : __float_as_uint(b_values[i]);
  float acc[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t],
                  c[(g + 8) * 8 + 2 * t + 1]};
  kg::mma_m16n8k8_tf32(acc, a_regs, b_regs, acc);
  d[g * 8 + 2 * t] = acc[0];
  d[g * 8 + 2 * t + 1] = acc[1];
  d[(g + 8) * 8 + 2 * t] = acc[2];
  d[(g + 8) * 8 + 2 * t + 1] = acc[3];
}

__global__ void cp_async_groups_kernel(const float* src, int tail_bytes, float* before,
                                       float* after_first, float* after_all) {
  KG_DYNAMIC_SMEM(float, staged);
  for (int i = 0; i < 8; ++i) staged[i] = 5.0f;  // old contents the copies replace
  kg::cp_async<16>(staged, src);
  kg::cp_async_commit();
  kg::cp_async<16>(staged + 4, src + 4, tail_bytes);
  kg::cp_async_commit();
  for (int i = 0; i < 8; ++i) before[i] = staged[i];  // too early: nothing waited for
  kg::cp_async_wait<1>();
  for (int i = 0; i < 8; ++i) after_first[i] = staged[i];
  kg::cp_async_wait<0>();
  for (int i = 0; i < 8; ++i) after_all[i] = staged[i];
}

// A 32x32 output tile per block of 4 warps (2x2, 16x16 each), k-tiles of 8
// staged through shared memory by cp.async with double buffering.
constexpr int kTileM = 32;
constexpr int kTileN = 32;
constexpr int kTileK = 8;
constexpr int kStrideA = kTileK + 4;  // padding against bank conflicts
constexpr int kStrideB = kTileN + 8;
constexpr int kStageFloats = kTileM * kStrideA + kTileK * kStrideB;

__device__ __forceinline__ void load_gemm_tile(float* stage, const float* a, const float* b, int m,
                                               int n, int k, int block_m, int block_n, int k0) {
  float* a_tile = stage;
  float* b_tile = stage + kTileM * kStrideA;
  for (int i = threadIdx.x; i < kTileM * kTileK; i += blockDim.x) {
    const int row = i / kTileK, col = i % kTileK;
    const int gr = block_m + row, gk = k0 + col;
    const bool inside = gr < m && gk < k;
    kg::cp_async<4>(&a_tile[row * kStrideA + col], inside ? &a[gr * k + gk] : a, inside ? 4 : 0);
  }
  for (int i = threadIdx.x; i < kTileK * kTileN; i += blockDim.x) {
    const int row = i / kTileN, col = i % kTileN;
    const int gk = k0 + row, gc = block_n + col;
    const bool inside = gk < k && gc < n;
    kg::cp_async<4>(&b_tile[row * kStrideB + col], inside ? &b[gk * n + gc] : b, inside ? 4 : 0);
  }
  kg::cp_async_commit();
}

__global__ void __launch_bounds__(128) tiled_gemm_tf32_kernel(const float* __restrict__ a,
                                                              const float* __restrict__ b,
                                                              float* __restrict__ c, int m, int n,
                                                              int k) {
  KG_DYNAMIC_SMEM(float, smem);
  const int block_m = blockIdx.y * kTileM;
  const int block_n = blockIdx.x * kTileN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_m = (warp / 2) * 16, warp_n = (warp % 2) * 16;
  const int g = lane >> 2, t = lane & 3;
  float acc[2][4] = {};
  const int tiles = (k + kTileK - 1) / kTileK;
  load_gemm_tile(smem, a, b, m, n, k, block_m, block_n, 0);
  for (int tile = 0; tile < tiles; ++tile) {
    if (tile + 1 < tiles) {
      load_gemm_tile(smem + ((tile + 1) & 1) * kStageFloats, a, b, m, n, k, block_m, block_n,
                     (tile + 1) * kTileK);
      kg::cp_async_wait<1>();
    } else {
      kg::cp_async_wait<0>();
    }
    __syncthreads();
    const float* a_tile = smem + (tile & 1) * kStageFloats;
    const float* b_tile = a_tile + kTileM * kStrideA;
    std::uint32_t a_regs[4] = {
        kg::cvt_rna_tf32(a_tile[(warp_m + g) * kStrideA + t]),
        kg::cvt_rna_tf32(a_tile[(warp_m + g + 8) * kStrideA + t]),
        kg::cvt_rna_tf32(a_tile[(warp_m + g) * kStrideA + t + 4]),
        kg::cvt_rna_tf32(a_tile[(warp_m + g + 8) * kStrideA + t + 4])};
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
      const int col = warp_n + nt * 8 + g;
      std::uint32_t b_regs[2] = {kg::cvt_rna_tf32(b_tile[t * kStrideB + col]),
                                 kg::cvt_rna_tf32(b_tile[(t + 4) * kStrideB + col])};
      kg::mma_m16n8k8_tf32(acc[nt], a_regs, b_regs, acc[nt]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int nt = 0; nt < 2; ++nt) {
    const int row = block_m + warp_m + g;
    const int col = block_n + warp_n + nt * 8 + 2 * t;
    const float values[4] = {acc[nt][0], acc[nt][1], acc[nt][2], acc[nt][3]};
    for (int i = 0; i < 4; ++i) {
      const int r = row + (i >= 2 ? 8 : 0), cc = col + (i & 1);
      if (r < m && cc < n) c[r * n + cc] = values[i];
    }
  }
}

}  // namespace

void cvt_rna_tf32(const float* in, std::uint32_t* out, int n, cudaStream_t stream) {
  kg::launch(cvt_rna_tf32_kernel, dim3((n + 63) / 64), dim3(64), 0, stream, in, out, n);
}

void pack_bf16x2(const float* low, const float* high, std::uint32_t* out, int n,
                 cudaStream_t stream) {
  kg::launch(pack_bf16x2_kernel, dim3((n + 63) / 64), dim3(64), 0, stream, low, high, out, n);
}

void mma_16x8x8(const float* a, const float* b, const float* c, float* d, bool convert,
                cudaStream_t stream) {
  kg::launch(mma_kernel, dim3(1), dim3(32), 0, stream, a, b, c, d, convert);
}

void cp_async_groups(const float* src, int tail_bytes, float* before, float* after_first,
                     float* after_all, cudaStream_t stream) {
  kg::launch(cp_async_groups_kernel, dim3(1), dim3(1), 8 * sizeof(float), stream, src,
             tail_bytes, before, after_first, after_all);
}

void tiled_gemm_tf32(const float* a, const float* b, float* c, int m, int n, int k,
                     cudaStream_t stream) {
  kg::launch(tiled_gemm_tf32_kernel, dim3((n + kTileN - 1) / kTileN, (m + kTileM - 1) / kTileM),
             dim3(128), 2 * kStageFloats * sizeof(float), stream, a, b, c, m, n, k);
}

}  // namespace kg::test
