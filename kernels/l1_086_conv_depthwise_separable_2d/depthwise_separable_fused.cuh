#pragma once
// Depthwise KxK conv followed by the pointwise 1x1 conv, fused in one pass
// (design, figures and reasoning: docs/kernels/l1_086.md).
//
// A tile is kTileRows x kTileCols output pixels of one image for up to 128
// output channels; a block works through a run of kTilesPerBlock consecutive
// tiles. The input channels go in chunks of 8 (one mma k-step): cp.async
// streams a chunk's input tile (with its halo) into a ring of shared-memory
// stages, running ahead across tile boundaries; the block computes the chunk's
// depthwise result in FP32 into shared memory as TF32 operands; each warp
// multiplies 32 output channels x 64 pixels of it on the tensor cores
// (mma.sync m16n8k8), with the pointwise weight staged once per block in
// shared memory in the A-fragment layout. The accumulators stay in registers
// across the chunks of a tile and go straight to the output as float4.
// The intermediate never touches device memory.
//
// Two precisions share this dataflow:
//   PointwisePrecision::tf32         one TF32 mma per k-step;
//   PointwisePrecision::split3xtf32  error-compensated 3xTF32 (a = a_hi + a_lo,
//     b = b_hi + b_lo, a*b ~ a_hi*b_hi + a_hi*b_lo + a_lo*b_hi), FP32-faithful.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/fp32_accumulation.cuh"
#include "common/shared_memory.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/ptx.hpp"

namespace kg::l1_086 {

enum class PointwisePrecision { tf32, split3xtf32 };

inline constexpr int kThreads = 256;  // 8 warps
inline constexpr int kWarps = kThreads / 32;
inline constexpr int kTileRows = 4;                        // output rows per tile
inline constexpr int kTileCols = 32;                       // output columns per tile (one per lane)
inline constexpr int kTilesPerBlock = 8;                   // amortises staging the pointwise weight
inline constexpr int kTilePixels = kTileRows * kTileCols;  // 128 = 16 mma n-tiles
inline constexpr int kChunkChannels = 8;                   // input channels per chunk = mma K
inline constexpr int kCoPerBlock = 128;                    // output channels per block
inline constexpr int kStages = 4;                          // input chunks in flight: 3 ahead
// Row stride of the depthwise result in shared memory: 8 mod 32 makes the
// B-fragment loads (lanes t*stride + g) hit 32 distinct banks. The padding can
// be set only so that a test can remove it and see the cpu gate catch the
// bank conflicts (tests/counter_gate).
#ifndef KG_L1_086_DEPTHWISE_PADDING
#define KG_L1_086_DEPTHWISE_PADDING 8
#endif
inline constexpr int kDepthwiseStride = kTilePixels + KG_L1_086_DEPTHWISE_PADDING;
inline constexpr std::size_t kMaxSharedBytes = 200 * 1024;  // below sm_90's 227 KiB opt-in
// The pointwise weight lives in shared memory while it fits in this much (in_channels
// up to 64 for 3xTF32, 128 for TF32, with the default tile); beyond, the A fragments come
// from global memory through L1.
inline constexpr std::size_t kMaxSharedWeightBytes = 64 * 1024;
// One A fragment (a0..a3) per lane, per 16-channel m-tile of the block, per chunk.
inline constexpr int kWeightFloatsPerChunk = (kCoPerBlock / 16) * 32 * 4;

// Everything the kernel needs, by value (one launch argument).
struct Problem {
  const float* x;          // [batch, cin, height, width]
  const float* depthwise;  // [cin, 1, k, k]
  const float* pointwise;  // [cout, cin, 1, 1]
  float* y;                // [batch, cout, hout, wout]
  int batch, cin, cout, height, width;
  int kernel, stride, padding, dilation;
  int hout, wout;
  int tiles_w, tiles_h;            // output tiles along the width and the height
  int tiles;                       // batch * tiles_h * tiles_w
  int tile_in_rows, tile_in_cols;  // input rows/cols one tile reads (with halo)
  int stage_cols;     // shared-memory row length of a stage: room for the 16-byte alignment shift
  int vector_loads;   // 1: rows 16-byte aligned, cp.async moves 16 bytes
  int vector_stores;  // 1: output rows 16-byte aligned, float4 stores
  int weights_in_shared;  // 1: A fragments staged in shared memory
};

struct Geometry {
  int hout = 0, wout = 0, tile_in_rows = 0, tile_in_cols = 0, stage_cols = 0;
  bool weights_in_shared = false;
  std::size_t shared_bytes = 0;
};

inline Geometry geometry(std::int64_t in_channels, std::int64_t height, std::int64_t width,
                         std::int64_t kernel, std::int64_t stride, std::int64_t padding,
                         std::int64_t dilation, PointwisePrecision precision) {
  Geometry g;
  const std::int64_t span = dilation * (kernel - 1) + 1;
  g.hout = static_cast<int>((height + 2 * padding - span) / stride + 1);
  g.wout = static_cast<int>((width + 2 * padding - span) / stride + 1);
  g.tile_in_rows = static_cast<int>((kTileRows - 1) * stride + span);
  g.tile_in_cols = static_cast<int>((kTileCols - 1) * stride + span);
  // Up to 3 extra columns in front: the 16-byte path starts a row at the aligned column below.
  g.stage_cols = (g.tile_in_cols + 3 + 3) / 4 * 4;
  const std::size_t stage_floats =
      static_cast<std::size_t>(kChunkChannels) * g.tile_in_rows * g.stage_cols;
  const std::size_t parts = precision == PointwisePrecision::split3xtf32 ? 2 : 1;  // hi (+ lo)
  const std::size_t depthwise_floats =
      static_cast<std::size_t>(kChunkChannels) * kDepthwiseStride * parts;
  const std::size_t chunks =
      static_cast<std::size_t>((in_channels + kChunkChannels - 1) / kChunkChannels);
  const std::size_t weight_floats = chunks * kWeightFloatsPerChunk * parts;
  g.weights_in_shared = weight_floats * sizeof(float) <= kMaxSharedWeightBytes;
  g.shared_bytes =
      (kStages * stage_floats + depthwise_floats + (g.weights_in_shared ? weight_floats : 0)) *
      sizeof(float);
  return g;
}

// ---- device code -------------------------------------------------------------

// Shared-memory column of tile pixel p inside the depthwise result. The mma
// C fragment gives lane (g, t) columns 2t and 2t+1 of an n-tile; storing the
// pixels of n-tile pair (2q, 2q+1) interleaved makes those four values the four
// consecutive pixels 16q + 4t .. 16q + 4t + 3, so the output goes out as float4.
__device__ __forceinline__ int depthwise_column(int p) {
  const int q = p >> 4, t = (p >> 2) & 3, e = p & 3;
  return 8 * (2 * q + (e >> 1)) + 2 * t + (e & 1);
}

// Where tile `tile` (flat over batch, tile rows, tile columns) sits.
struct TileOrigin {
  int n, oh0, ow0;       // image, first output row and column
  int in_row0, in_col0;  // first input row and column it reads (may be negative: padding)
};

__device__ __forceinline__ TileOrigin tile_origin(const Problem& pr, int tile) {
  TileOrigin o;
  o.ow0 = (tile % pr.tiles_w) * kTileCols;
  o.oh0 = ((tile / pr.tiles_w) % pr.tiles_h) * kTileRows;
  o.n = tile / (pr.tiles_w * pr.tiles_h);
  o.in_row0 = o.oh0 * pr.stride - pr.padding;
  o.in_col0 = o.ow0 * pr.stride - pr.padding;
  return o;
}

// Column of a stage row that holds input column in_col0: the 16-byte path
// starts each row at the aligned column at or below it.
__device__ __forceinline__ int column_shift(const Problem& pr, int in_col0) {
  return pr.vector_loads ? ((in_col0 % 4) + 4) % 4 : 0;
}

// The block's pointwise weight rows [co_block0, co_block0 + 128) as TF32 A
// fragments, laid out so a warp reads one fragment with one conflict-free
// 16-byte load per lane: float4 index (m_tile * chunks + chunk) * 32 + lane.
// For 3xTF32 the remainders follow in `lo`.
template <PointwisePrecision P>
__device__ __forceinline__ void stage_weights(const Problem& pr, int co_block0, int chunks,
                                              float* hi, float* lo) {
  const int entries = chunks * kWeightFloatsPerChunk;
  for (int e = threadIdx.x; e < entries; e += kThreads) {
    const int i = e % 4, lane = (e / 4) % 32, chunk = (e / 128) % chunks,
              m_tile = e / (128 * chunks);
    const int g = lane >> 2, t = lane & 3;
    // A fragment (PTX m16n8k8 .row): a0 = A[g][t], a1 = A[g+8][t], a2 = A[g][t+4], a3 =
    // A[g+8][t+4].
    const int co = co_block0 + 16 * m_tile + g + 8 * (i & 1);
    const int ci = chunk * kChunkChannels + t + 4 * (i >> 1);
    const float a = co < pr.cout && ci < pr.cin
                        ? __ldg(pr.pointwise + static_cast<std::int64_t>(co) * pr.cin + ci)
                        : 0.0f;
    const float big = kg::round_to_tf32(a);
    hi[e] = big;
    if constexpr (P == PointwisePrecision::split3xtf32) lo[e] = kg::round_to_tf32(a - big);
  }
}

// Issues the cp.async copies of one input chunk (8 channels of `rows` staged
// rows of `cols` floats: the tile's rows and columns with halo) into one stage,
// kBytes (16 or 4) each, `per_row` of them a row, the first from input column
// col0. Outside the image and beyond cin the copies zero-fill, which is the
// convolution's zero padding.
template <int kBytes>
__device__ __forceinline__ void copy_chunk(const Problem& pr, float* stage, const float* image, int chunk,
                                           int rows, int cols, int in_row0, int col0, int per_row) {
  constexpr int kFloats = kBytes / 4;
  const int copies = kChunkChannels * rows * per_row;
  for (int i = threadIdx.x; i < copies; i += kThreads) {
    const int piece = i % per_row;
    const int row = (i / per_row) % rows;
    const int channel_in_chunk = i / (per_row * rows);
    const int c = chunk * kChunkChannels + channel_in_chunk;
    const int ih = in_row0 + row;
    const int iw = col0 + kFloats * piece;
    const bool inside = c < pr.cin && ih >= 0 && ih < pr.height && iw >= 0 && iw < pr.width;
    const float* src =
        inside ? image + (static_cast<std::int64_t>(c) * pr.height + ih) * pr.width + iw
               : pr.x;  // a valid address; nothing is read
    kg::cp_async<kBytes>(stage + (channel_in_chunk * rows + row) * cols + kFloats * piece, src,
                         inside ? kBytes : 0);
  }
}

template <bool kDefaultShape>
__device__ __forceinline__ void load_chunk(const Problem& pr, float* stage, const TileOrigin& o,
                                           int chunk) {
  const int rows = pr.tile_in_rows;
  const int cols = pr.stage_cols;
  const int in_row0 = o.in_row0, in_col0 = o.in_col0;
  const float* image = pr.x + static_cast<std::int64_t>(o.n) * pr.cin * pr.height * pr.width;
  if (kDefaultShape || pr.vector_loads) {
    // 16-byte copies from the aligned column at or below in_col0. With width % 4 == 0
    // a 16-byte piece is wholly inside or wholly outside the row.
    copy_chunk<16>(pr, stage, image, chunk, rows, cols, in_row0, in_col0 - column_shift(pr, in_col0), cols / 4);
  } else {
    // Unaligned rows: 4-byte copies, column 0 of the stage is in_col0.
    copy_chunk<4>(pr, stage, image, chunk, rows, cols, in_row0, in_col0, pr.tile_in_cols);
  }
}

// Writes one depthwise result as mma B operands: TF32, and for 3xTF32 also the
// TF32 remainder.
template <PointwisePrecision P>
__device__ __forceinline__ void put_depthwise(float* hi, float* lo, int index, float value) {
  const float big = kg::round_to_tf32(value);
  hi[index] = big;
  if constexpr (P == PointwisePrecision::split3xtf32) lo[index] = kg::round_to_tf32(value - big);
}

// Depthwise FP32 result of one chunk for the whole tile into shared memory.
template <PointwisePrecision P, bool kDefaultShape>
__device__ __forceinline__ void depthwise_chunk(const Problem& pr, const float* stage, int chunk,
                                                int column_shift, float* hi, float* lo) {
  const int rows = pr.tile_in_rows;
  const int cols = pr.stage_cols;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (kDefaultShape || (pr.kernel == 3 && pr.stride == 1 && pr.dilation == 1)) {
    // The default shape: warp = channel, lane = output column, four rows with a
    // sliding window so each input value is read from shared memory once per column tap.
    const int c = chunk * kChunkChannels + warp;
    float w[9];
    for (int i = 0; i < 9; ++i) w[i] = c < pr.cin ? __ldg(pr.depthwise + c * 9 + i) : 0.0f;
    const float* in = stage + warp * rows * cols + column_shift + lane;
    float window[3][3];
    for (int r = 0; r < 2; ++r)
      for (int k = 0; k < 3; ++k) window[r][k] = in[r * cols + k];
    for (int r = 0; r < kTileRows; ++r) {
      for (int k = 0; k < 3; ++k) window[(r + 2) % 3][k] = in[(r + 2) * cols + k];
      float acc = 0.0f;
      for (int kh = 0; kh < 3; ++kh)
        for (int kw = 0; kw < 3; ++kw) acc = fmaf(window[(r + kh) % 3][kw], w[kh * 3 + kw], acc);
      const int index = warp * kDepthwiseStride + depthwise_column(r * kTileCols + lane);
      put_depthwise<P>(hi, lo, index, acc);
    }
    return;
  }
  // Any kernel size, stride and dilation: one output per step, taps from shared memory.
  const int k = pr.kernel;
  for (int i = threadIdx.x; i < kChunkChannels * kTilePixels; i += kThreads) {
    const int channel_in_chunk = i / kTilePixels;
    const int p = i % kTilePixels;
    const int r = p / kTileCols, col = p % kTileCols;
    const int c = chunk * kChunkChannels + channel_in_chunk;
    float acc = 0.0f;
    if (c < pr.cin) {
      const float* in = stage + channel_in_chunk * rows * cols + column_shift;
      const float* w = pr.depthwise + static_cast<std::int64_t>(c) * k * k;
      for (int kh = 0; kh < k; ++kh)
        for (int kw = 0; kw < k; ++kw)
          acc = fmaf(
              in[(r * pr.stride + kh * pr.dilation) * cols + col * pr.stride + kw * pr.dilation],
              __ldg(w + kh * k + kw), acc);
    }
    put_depthwise<P>(hi, lo, channel_in_chunk * kDepthwiseStride + depthwise_column(p), acc);
  }
}

// The warp's share of the GEMM: 32 output channels (two m-tiles) x 64 pixels
// (eight n-tiles). Each B fragment read from shared memory feeds two mma, which
// halves the shared-memory traffic of a 16 x 128 warp tile.
inline constexpr int kWarpCo = 32;
inline constexpr int kWarpMTiles = kWarpCo / 16;
inline constexpr int kWarpNTiles = 8;
inline constexpr int kWarpsAlongCo = kCoPerBlock / kWarpCo;  // 4; two along the pixels
using Accumulators = float[kWarpMTiles][kWarpNTiles][4];

// acc[m][j] += W[co0 + 16m ..][chunk] x D[chunk][n-tile n0 + j].
template <PointwisePrecision P, bool kDefaultShape>
__device__ __forceinline__ void pointwise_chunk(const Problem& pr, int co0, int n0, int chunk,
                                                int chunks, const float* w_hi, const float* w_lo,
                                                const float* hi, const float* lo,
                                                Accumulators& acc) {
  const int lane = threadIdx.x & 31;
  const int g = lane >> 2, t = lane & 3;
  std::uint32_t a_hi[kWarpMTiles][4], a_lo[kWarpMTiles][4];  // a_lo: 3xTF32 only
  if (kDefaultShape || pr.weights_in_shared) {
    const int m_tile0 = (co0 % kCoPerBlock) / 16;
    for (int m = 0; m < kWarpMTiles; ++m) {
      const int index = ((m_tile0 + m) * chunks + chunk) * 32 + lane;
      const float4 h = reinterpret_cast<const float4*>(w_hi)[index];
      a_hi[m][0] = __float_as_uint(h.x), a_hi[m][1] = __float_as_uint(h.y);
      a_hi[m][2] = __float_as_uint(h.z), a_hi[m][3] = __float_as_uint(h.w);
      if constexpr (P == PointwisePrecision::split3xtf32) {
        const float4 l = reinterpret_cast<const float4*>(w_lo)[index];
        a_lo[m][0] = __float_as_uint(l.x), a_lo[m][1] = __float_as_uint(l.y);
        a_lo[m][2] = __float_as_uint(l.z), a_lo[m][3] = __float_as_uint(l.w);
      }
    }
  } else {
    // A fragment (PTX m16n8k8 .row): a0 = A[g][t], a1 = A[g+8][t], a2 = A[g][t+4], a3 =
    // A[g+8][t+4].
    for (int m = 0; m < kWarpMTiles; ++m)
      for (int i = 0; i < 4; ++i) {
        const int co = co0 + 16 * m + g + 8 * (i & 1);
        const int ci = chunk * kChunkChannels + t + 4 * (i >> 1);
        const float a = co < pr.cout && ci < pr.cin
                            ? __ldg(pr.pointwise + static_cast<std::int64_t>(co) * pr.cin + ci)
                            : 0.0f;
        a_hi[m][i] = kg::cvt_rna_tf32(a);
        if constexpr (P == PointwisePrecision::split3xtf32)
          a_lo[m][i] = kg::cvt_rna_tf32(a - kg::tf32_to_float(a_hi[m][i]));
      }
  }
  // B fragment (.col): b0 = B[t][g], b1 = B[t+4][g], B = D[channel][column].
  for (int j = 0; j < kWarpNTiles; ++j) {
    const int index = t * kDepthwiseStride + 8 * (n0 + j) + g;
    const std::uint32_t b_hi[2] = {__float_as_uint(hi[index]),
                                   __float_as_uint(hi[index + 4 * kDepthwiseStride])};
    if constexpr (P == PointwisePrecision::split3xtf32) {
      const std::uint32_t b_lo[2] = {__float_as_uint(lo[index]),
                                     __float_as_uint(lo[index + 4 * kDepthwiseStride])};
      // Small terms first, so they are not lost against the large one.
      for (int m = 0; m < kWarpMTiles; ++m) {
        kg::mma_m16n8k8_tf32(acc[m][j], a_lo[m], b_hi, acc[m][j]);
        kg::mma_m16n8k8_tf32(acc[m][j], a_hi[m], b_lo, acc[m][j]);
      }
    }
    for (int m = 0; m < kWarpMTiles; ++m) kg::mma_m16n8k8_tf32(acc[m][j], a_hi[m], b_hi, acc[m][j]);
  }
}

// C fragment (PTX m16n8k8): c0 = C[g][2t], c1 = C[g][2t+1], c2 = C[g+8][2t], c3 = C[g+8][2t+1];
// with depthwise_column's interleave, n-tiles 2q and 2q+1 hold pixels 16q + 4t .. +3.
__device__ __forceinline__ void store_tile(const Problem& pr, const TileOrigin& o, int co0, int n0,
                                           const Accumulators& acc) {
  const int n = o.n, oh0 = o.oh0, ow0 = o.ow0;
  const int lane = threadIdx.x & 31;
  const int g = lane >> 2, t = lane & 3;
  for (int q = 0; q < kWarpNTiles / 2; ++q) {
    const int p = 16 * (n0 / 2 + q) + 4 * t;
    const int oh = oh0 + p / kTileCols;
    const int ow = ow0 + p % kTileCols;
    if (oh >= pr.hout) continue;
    for (int m = 0; m < kWarpMTiles; ++m)
      for (int half = 0; half < 2; ++half) {
        const int co = co0 + 16 * m + g + 8 * half;
        if (co >= pr.cout) continue;
        const float v[4] = {acc[m][2 * q][2 * half], acc[m][2 * q][2 * half + 1],
                            acc[m][2 * q + 1][2 * half], acc[m][2 * q + 1][2 * half + 1]};
        float* out =
            pr.y + ((static_cast<std::int64_t>(n) * pr.cout + co) * pr.hout + oh) * pr.wout + ow;
        if (pr.vector_stores && ow + 3 < pr.wout) {
          *reinterpret_cast<float4*>(out) = make_float4(v[0], v[1], v[2], v[3]);
        } else {
          for (int e = 0; e < 4; ++e)
            if (ow + e < pr.wout) out[e] = v[e];
        }
      }
  }
}

// kDefaultShape: the kernel is only launched for 3x3, stride 1, dilation 1,
// 16-byte input rows and a staged weight (the benchmark's shape); those paths
// alone fit 128 registers, so two blocks share an SM without spills. The
// general instantiation keeps every path and runs one block per SM.
template <PointwisePrecision P, bool kDefaultShape>
__global__ void __launch_bounds__(kThreads, kDefaultShape ? 2 : 1)
    depthwise_separable_fused(Problem pr) {
  KG_DYNAMIC_SMEM(float, shared);
  constexpr bool split = P == PointwisePrecision::split3xtf32;
  const int chunks = (pr.cin + kChunkChannels - 1) / kChunkChannels;
  const int stage_floats = kChunkChannels * pr.tile_in_rows * pr.stage_cols;
  float* stages = shared;
  float* hi = stages + kStages * stage_floats;                         // depthwise result, TF32
  float* lo = hi + kChunkChannels * kDepthwiseStride;                  // its remainder (3xTF32)
  float* w_hi = lo + (split ? kChunkChannels * kDepthwiseStride : 0);  // A fragments
  float* w_lo = w_hi + chunks * kWeightFloatsPerChunk;                 // their remainders (3xTF32)

  const int warp = threadIdx.x >> 5;
  const int co_block0 = blockIdx.y * kCoPerBlock;
  const int co0 = co_block0 + (warp % kWarpsAlongCo) * kWarpCo;
  const int n0 = (warp / kWarpsAlongCo) * kWarpNTiles;  // first n-tile of the warp
  const int first_tile = blockIdx.x * kTilesPerBlock;
  const int tiles = pr.tiles - first_tile < kTilesPerBlock ? pr.tiles - first_tile : kTilesPerBlock;
  // One step = one chunk of one tile; the cp.async ring runs across tiles.
  const int steps = tiles * chunks;

  if (kDefaultShape || pr.weights_in_shared) stage_weights<P>(pr, co_block0, chunks, w_hi, w_lo);
  // (visible to all warps after the first barrier of the loop)

  // Prologue: kStages - 1 steps in flight. Every thread commits one group per
  // step, empty or not, so the wait count below holds.
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < steps)
      load_chunk<kDefaultShape>(pr, stages + s * stage_floats,
                                tile_origin(pr, first_tile + s / chunks), s % chunks);
    kg::cp_async_commit();
  }
  Accumulators acc;
  for (int step = 0; step < steps; ++step) {
    const int chunk = step % chunks;
    const TileOrigin o = tile_origin(pr, first_tile + step / chunks);
    if (chunk == 0)
      for (int m = 0; m < kWarpMTiles; ++m)
        for (int j = 0; j < kWarpNTiles; ++j)
          for (int i = 0; i < 4; ++i) acc[m][j][i] = 0.0f;
    // The stage refilled here was read by the depthwise of step - 1, which every
    // thread finished before the previous iteration's second barrier.
    const int ahead = step + kStages - 1;
    if (ahead < steps)
      load_chunk<kDefaultShape>(pr, stages + (ahead % kStages) * stage_floats,
                                tile_origin(pr, first_tile + ahead / chunks), ahead % chunks);
    kg::cp_async_commit();
    kg::cp_async_wait<kStages - 1>();  // this thread's copies of `step` are done
    __syncthreads();                   // and everyone's are visible
    depthwise_chunk<P, kDefaultShape>(pr, stages + (step % kStages) * stage_floats, chunk,
                                      column_shift(pr, o.in_col0), hi, lo);
    __syncthreads();
    if (co0 < pr.cout) {
      pointwise_chunk<P, kDefaultShape>(pr, co0, n0, chunk, chunks, w_hi, w_lo, hi, lo, acc);
      if (chunk == chunks - 1) store_tile(pr, o, co0, n0, acc);
    }
    // The next depthwise overwrites hi/lo only after the next first barrier,
    // which every warp reaches after its mma here.
  }
  kg::cp_async_wait_all();
}

// ---- host side ---------------------------------------------------------------

// 3xTF32 (the fp32 candidate) bounds the pointwise accumulation, in_channels
// products per output (common/fp32_accumulation.cuh; measured in
// docs/kernels/l1_086.md, "Accuracy on truncating tensor cores").
inline constexpr int kMax3xTf32Channels = 384;

inline std::string unsupported_reason(const kg::Axes& axes, PointwisePrecision precision) {
  auto get = [&](const char* name) -> std::int64_t {
    auto it = axes.find(name);
    return it == axes.end() ? -1 : it->second;
  };
  const std::int64_t kernel = get("kernel_size"), stride = get("stride"), padding = get("padding"),
                     dilation = get("dilation");
  if (kernel < 1 || kernel > 15)
    return "kernel_size must be 1..15 (got " + std::to_string(kernel) + ")";
  if (stride < 1) return "stride must be >= 1";
  if (dilation < 1) return "dilation must be >= 1";
  if (padding < 0) return "padding must be >= 0";
  if (get("out_channels") > 65535 * kCoPerBlock) return "out_channels too large for the grid";
  if (precision == PointwisePrecision::split3xtf32)
    if (std::string reason = kg::kernels::fp32_accumulation_reason(get("in_channels"), kMax3xTf32Channels,
                                                                   "in_channels");
        !reason.empty())
      return reason;
  const Geometry g = geometry(get("in_channels"), get("height"), get("width"), kernel, stride,
                              padding, dilation, precision);
  if (g.hout < 1 || g.wout < 1) return "empty output";
  const std::int64_t tiles = get("batch_size") * ((g.hout + kTileRows - 1) / kTileRows) *
                             ((g.wout + kTileCols - 1) / kTileCols);
  if (tiles > (std::int64_t{1} << 31) - 1) return "more output tiles than a 32-bit index holds";
  if (const std::size_t limit = kernels::block_smem_limit(kMaxSharedBytes); g.shared_bytes > limit)
    return "input tile of kernel_size/stride/dilation needs " + std::to_string(g.shared_bytes) +
           " bytes of shared memory, above the " + std::to_string(limit) +
           " this kernel uses on this GPU";
  return {};
}

template <PointwisePrecision P>
void launch(const kg::LaunchArgs& args) {
  Problem pr{};
  pr.x = args.in("x");
  pr.depthwise = args.in("depthwise_weight");
  pr.pointwise = args.in("pointwise_weight");
  pr.y = args.output;
  pr.batch = static_cast<int>(args.axis("batch_size"));
  pr.cin = static_cast<int>(args.axis("in_channels"));
  pr.cout = static_cast<int>(args.axis("out_channels"));
  pr.height = static_cast<int>(args.axis("height"));
  pr.width = static_cast<int>(args.axis("width"));
  pr.kernel = static_cast<int>(args.axis("kernel_size"));
  pr.stride = static_cast<int>(args.axis("stride"));
  pr.padding = static_cast<int>(args.axis("padding"));
  pr.dilation = static_cast<int>(args.axis("dilation"));
  const Geometry g =
      geometry(pr.cin, pr.height, pr.width, pr.kernel, pr.stride, pr.padding, pr.dilation, P);
  pr.hout = g.hout;
  pr.wout = g.wout;
  pr.tile_in_rows = g.tile_in_rows;
  pr.tile_in_cols = g.tile_in_cols;
  pr.stage_cols = g.stage_cols;
  pr.weights_in_shared = g.weights_in_shared;
  pr.tiles_w = (pr.wout + kTileCols - 1) / kTileCols;
  pr.tiles_h = (pr.hout + kTileRows - 1) / kTileRows;
  pr.tiles = pr.batch * pr.tiles_h * pr.tiles_w;
  pr.vector_loads = pr.width % 4 == 0 && reinterpret_cast<std::uintptr_t>(pr.x) % 16 == 0;
  pr.vector_stores = pr.wout % 4 == 0 && reinterpret_cast<std::uintptr_t>(pr.y) % 16 == 0;
  const dim3 grid(static_cast<unsigned>((pr.tiles + kTilesPerBlock - 1) / kTilesPerBlock),
                  static_cast<unsigned>((pr.cout + kCoPerBlock - 1) / kCoPerBlock));
  const bool default_shape = pr.kernel == 3 && pr.stride == 1 && pr.dilation == 1 &&
                             pr.vector_loads && pr.weights_in_shared;
  const auto kernel =
      default_shape ? depthwise_separable_fused<P, true> : depthwise_separable_fused<P, false>;
  kg::set_max_dynamic_smem(kernel, g.shared_bytes);
  kg::launch(kernel, grid, dim3(kThreads), g.shared_bytes, args.stream, pr);
}

// A fused candidate's registration: the pointwise precision picks the axes it
// supports and its launch; it needs no workspace.
template <PointwisePrecision P>
Candidate fused_candidate(const char* precision, const char* summary) {
  return Candidate{
      .precision = precision,
      .summary = summary,
      .unsupported_reason = [](const Axes& axes) { return unsupported_reason(axes, P); },
      .launch = launch<P>,
  };
}

}  // namespace kg::l1_086
