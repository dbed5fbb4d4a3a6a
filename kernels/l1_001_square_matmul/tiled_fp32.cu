// C = A B with shared-memory tiles, FP32: each block of 16 x 16 threads
// computes a 64 x 64 tile of C, each thread a 4 x 4 grid of it (rows ty + 16i,
// columns tx + 16j, so a warp's stores are 16 adjacent floats). K advances in
// steps of 16: the block copies the 64 x 16 slice of A (transposed) and the
// 16 x 64 slice of B into shared memory, then every thread accumulates from
// there, so each element of A and B is read from global memory N / 64 times
// instead of N times.
//
// Invariants: every element of C is summed over k in increasing order in one
// FP32 accumulator, as direct_fp32 and the reference do; elements of A and B
// past the edge are read as zero and elements of C past it are not written,
// so any N works. The transposed A slice has a row of 65 floats so that the
// 16 threads storing one column hit 16 different banks.
#include <cstdint>

#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"

namespace {

constexpr int kTile = 64;     // rows and columns of C per block
constexpr int kDepth = 16;    // k per shared-memory step
constexpr int kSide = 16;     // threads per block side
constexpr int kPerThread = kTile / kSide;  // 4 x 4 outputs per thread

__global__ void matmul_tiled(std::int64_t n, const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ c) {
  __shared__ float a_slice[kDepth][kTile + 1];  // a_slice[k][m] = A[row0 + m, k0 + k]
  __shared__ float b_slice[kDepth][kTile];      // b_slice[k][q] = B[k0 + k, col0 + q]
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * kSide + tx;
  const std::int64_t row0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
  const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
  float acc[kPerThread][kPerThread] = {};
  for (std::int64_t k0 = 0; k0 < n; k0 += kDepth) {
    // 1024 elements of each slice, four per thread; consecutive threads read
    // consecutive k of A and consecutive columns of B.
    for (int i = 0; i < kPerThread; ++i) {
      const int m = t / kDepth + i * (kSide * kSide / kDepth), k = t % kDepth;
      const std::int64_t row = row0 + m, col = k0 + k;
      a_slice[k][m] = row < n && col < n ? a[row * n + col] : 0.0f;
      const int kb = t / kTile + i * (kSide * kSide / kTile), q = t % kTile;
      const std::int64_t brow = k0 + kb, bcol = col0 + q;
      b_slice[kb][q] = brow < n && bcol < n ? b[brow * n + bcol] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < kDepth; ++k) {
      float a_values[kPerThread], b_values[kPerThread];
      for (int i = 0; i < kPerThread; ++i) a_values[i] = a_slice[k][ty + i * kSide];
      for (int j = 0; j < kPerThread; ++j) b_values[j] = b_slice[k][tx + j * kSide];
      for (int i = 0; i < kPerThread; ++i)
        for (int j = 0; j < kPerThread; ++j) acc[i][j] += a_values[i] * b_values[j];
    }
    __syncthreads();  // the slices are rewritten for the next k0
  }
  for (int i = 0; i < kPerThread; ++i)
    for (int j = 0; j < kPerThread; ++j) {
      const std::int64_t row = row0 + ty + i * kSide, col = col0 + tx + j * kSide;
      if (row < n && col < n) c[row * n + col] = acc[i][j];
    }
}

std::string unsupported_reason(const kg::Axes& axes) {
  const std::int64_t tiles = (axes.at("N") + kTile - 1) / kTile;
  return tiles > 65535 ? "more than 65535 tiles per grid dimension" : "";
}

void launch(const kg::LaunchArgs& args) {
  const std::int64_t n = args.axis("N");
  const unsigned tiles = static_cast<unsigned>((n + kTile - 1) / kTile);
  kg::launch(matmul_tiled, dim3(tiles, tiles), dim3(kSide, kSide), 0, args.stream, n, args.in("A"), args.in("B"),
             args.output);
}

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "64 x 64 tiles of C per block from 16-deep shared-memory slices of A and B, 4 x 4 outputs per "
               "thread, FP32",
    .unsupported_reason = unsupported_reason,
    .launch = launch,
});

}  // namespace
