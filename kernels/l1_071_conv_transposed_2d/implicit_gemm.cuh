#pragma once
// ConvTranspose2d as an implicit GEMM on TF32 tensor cores (mma.sync), shared
// by implicit_gemm_tf32.cu and implicit_gemm_3xtf32.cu, and by
// implicit_gemm_3xtf32_wgmma.cu for the shapes its wgmma kernel does not take.
// Design, tile sizes and the bank-conflict arithmetic: docs/kernels/l1_071.md.
//
// With stride 1 the transposed convolution is a plain convolution of the input
// padded by (k - 1 - padding) with the spatially flipped, in/out-transposed
// weight:
//   y[n, co, oh, ow] = sum_{ci, a, b} x[n, ci, oh + p - (k-1) + a, ow + p - (k-1) + b]
//                                     * w[ci, co, k-1-a, k-1-b]
// GEMM view: M = output pixels, N = output channels, K = input channels x taps.
// Stride s > 1 splits the output into s x s parity classes (oh mod s, ow mod
// s), each such a stride-1 convolution with ceil((k - r) / s) taps per
// dimension (see ClassDim).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/fp32_accumulation.cuh"
#include "common/shared_memory.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/ptx.hpp"

namespace kg::l1_071 {

// Block tile: 16 output rows x 32 output columns x 32 output channels.
// Eight warps, each 2 rows x 32 columns (2 m16 tiles per row) x 4 n8 tiles.
inline constexpr int kThreads = 256;
inline constexpr int kWarps = kThreads / 32;
inline constexpr int kTileRows = 16;
inline constexpr int kTileCols = 32;
inline constexpr int kRowsPerWarp = kTileRows / kWarps;  // 2
inline constexpr int kMTilesPerRow = kTileCols / 16;     // 2
inline constexpr int kCoTile = 32;                       // output channels per block
inline constexpr int kNTiles = kCoTile / 8;              // 4
inline constexpr int kCiChunk = 8;                       // input channels per stage = mma K
// Weight rows (one per input channel and tap) are padded from 32 to 40
// floats: lane (g, t) reads row t, column g, and 40 = 8 (mod 32) puts the 32
// lanes on 32 distinct banks.
inline constexpr int kWeightRowStride = 40;
// Shared memory one block may use (H100/H200 allow 227 KiB); keeping two
// blocks per SM needs at most ~113 KiB, which the default shape uses.
inline constexpr std::size_t kMaxSharedBytes = 227 * 1024;

struct ConvShape {
  int batch = 0, in_channels = 0, out_channels = 0, kernel = 0;
  int height_in = 0, width_in = 0, height_out = 0, width_out = 0;
  int padding = 0, groups = 1;
  int stride = 1, output_padding = 0;
};

// Everything the kernel derives from the shape, computed once on the host.
struct Plan {
  ConvShape s;
  int tile_rows = kTileRows, tile_cols = kTileCols;  // output tile of one block
  int cin_group = 0, cout_group = 0;
  int classes = 1;         // stride^2 parity classes (grid.z)
  int max_taps = 0;        // ceil(k / stride): taps per dimension of the largest class
  int chunks = 0;          // ceil(cin_group / 8)
  int co_blocks = 0;       // ceil(cout_group / 32)
  int halo_rows = 0, halo_cols = 0;
  int plane_stride = 0;    // floats per input channel of a staged tile
  // x's rows start on 16 bytes (width_in % 4 == 0 and x aligned): the stages
  // are copied 16 bytes at a time. Set at launch, where x is known.
  bool vector_loads = false;
  int stage_floats = 0;    // one pipeline stage: 8 channel planes
  int weight_floats = 0;   // mma.sync: max_taps^2 x (chunks x 8) rows x 40 (wgmma: wgmma_plan)
  int max_class_tiles = 0; // tiles of the largest class (grid sizing)
  std::size_t smem_bytes = 0;
};

inline std::int64_t axis_or(const Axes& axes, const char* name, std::int64_t fallback) {
  auto it = axes.find(name);
  return it == axes.end() ? fallback : it->second;
}

inline ConvShape shape_from_axes(const Axes& axes) {
  ConvShape s;
  s.batch = static_cast<int>(axis_or(axes, "batch_size", 0));
  s.in_channels = static_cast<int>(axis_or(axes, "in_channels", 0));
  s.out_channels = static_cast<int>(axis_or(axes, "out_channels", 0));
  s.kernel = static_cast<int>(axis_or(axes, "kernel_size", 0));
  s.height_in = static_cast<int>(axis_or(axes, "height_in", 0));
  s.width_in = static_cast<int>(axis_or(axes, "width_in", 0));
  s.stride = static_cast<int>(axis_or(axes, "stride", 1));
  s.padding = static_cast<int>(axis_or(axes, "padding", 0));
  s.output_padding = static_cast<int>(axis_or(axes, "output_padding", 0));
  s.groups = static_cast<int>(axis_or(axes, "groups", 1));
  s.height_out = (s.height_in - 1) * s.stride - 2 * s.padding + s.kernel + s.output_padding;
  s.width_out = (s.width_in - 1) * s.stride - 2 * s.padding + s.kernel + s.output_padding;
  return s;
}

// Floats per staged input row: the halo's columns, up to 3 more in front (16-
// byte copies start at the multiple of 4 at or before the halo's first
// column), rounded up to whole 16-byte quads. The scalar copies use the same
// row length, so the kernels address both alike.
__host__ __device__ constexpr int staged_row_floats(int halo_cols) {
  return (halo_cols + 3 + 3) / 4 * 4;
}

// The mma.sync kernel's plan; the wgmma kernel (implicit_gemm_wgmma.cuh)
// passes its own tile and replaces the weight layout.
inline Plan make_plan(const ConvShape& s, int tile_rows = kTileRows, int tile_cols = kTileCols) {
  Plan p;
  p.s = s;
  p.tile_rows = tile_rows;
  p.tile_cols = tile_cols;
  p.cin_group = s.in_channels / s.groups;
  p.cout_group = s.out_channels / s.groups;
  p.chunks = (p.cin_group + kCiChunk - 1) / kCiChunk;
  p.co_blocks = (p.cout_group + kCoTile - 1) / kCoTile;
  p.classes = s.stride * s.stride;
  p.max_taps = (s.kernel + s.stride - 1) / s.stride;
  p.halo_rows = tile_rows + p.max_taps - 1;
  p.halo_cols = tile_cols + p.max_taps - 1;
  // Lane (g, t) of an A fragment reads channel plane t at pixel g: a plane
  // stride of 8 (mod 32) keeps the 32 lanes on distinct banks.
  const int plane = p.halo_rows * staged_row_floats(p.halo_cols);
  p.plane_stride = plane + ((8 - plane % 32) + 32) % 32;
  p.stage_floats = kCiChunk * p.plane_stride;
  p.weight_floats = p.max_taps * p.max_taps * p.chunks * kCiChunk * kWeightRowStride;
  const int class_rows = (s.height_out + s.stride - 1) / s.stride;
  const int class_cols = (s.width_out + s.stride - 1) / s.stride;
  p.max_class_tiles = s.batch * ((class_rows + tile_rows - 1) / tile_rows) *
                      ((class_cols + tile_cols - 1) / tile_cols);
  p.smem_bytes = (2 * static_cast<std::size_t>(p.stage_floats) + p.weight_floats) * sizeof(float);
  return p;
}

// Whether these x rows can be copied 16 bytes at a time.
inline bool rows_are_16_byte_aligned(const ConvShape& s, const float* x) {
  return s.width_in % 4 == 0 && reinterpret_cast<std::uintptr_t>(x) % 16 == 0;
}

// One spatial dimension of one parity class. Output positions
// o = first + stride * j (j < extent) receive taps kh = residue + stride * m;
// with a = taps - 1 - m this is the stride-1 form
//   out[j] = sum_a in[j - reach + a] * w[residue + stride * (taps - 1 - a)].
// A class no tap reaches (residue >= k, only when stride > k) gets one tap of
// zero weight, so its outputs are written as zeros like the others.
struct ClassDim {
  int residue = 0, taps = 1, first = 0, reach = 0, extent = 0, tiles = 0;
};

__host__ __device__ inline ClassDim class_dim(int out_extent, int kernel, int stride, int padding,
                                              int residue, int tile) {
  ClassDim d;
  d.residue = residue;
  const int real_taps = residue < kernel ? (kernel - residue + stride - 1) / stride : 0;
  d.taps = real_taps > 0 ? real_taps : 1;
  d.first = ((residue - padding) % stride + stride) % stride;
  const int shift = (d.first + padding - residue) / stride;  // exact, >= 0
  d.reach = d.taps - 1 - shift;
  d.extent = d.first < out_extent ? (out_extent - d.first + stride - 1) / stride : 0;
  d.tiles = (d.extent + tile - 1) / tile;
  return d;
}

// Tap a of the class reads weight index kh = residue + stride * (taps - 1 - a);
// -1 when out of the kernel (the zero tap of an unreached class).
__host__ __device__ inline int class_weight_index(const ClassDim& d, int a, int kernel,
                                                  int stride) {
  const int index = d.residue + stride * (d.taps - 1 - a);
  return index < kernel ? index : -1;
}

// Empty when the candidates handle these axes, otherwise why not.
inline std::string unsupported_reason(const Axes& axes) {
  const ConvShape s = shape_from_axes(axes);
  if (s.stride < 1) return "stride must be at least 1";
  if (s.kernel < 1) return "kernel_size must be at least 1";
  if (s.groups < 1 || s.in_channels % s.groups != 0 || s.out_channels % s.groups != 0)
    return "groups must divide in_channels and out_channels";
  if (s.height_out < 1 || s.width_out < 1) return "empty output";
  const Plan p = make_plan(s);
  if (const std::size_t limit = kernels::block_smem_limit(kMaxSharedBytes); p.smem_bytes > limit)
    return "kernel_size " + std::to_string(s.kernel) + " with " + std::to_string(p.cin_group) +
           " input channels per group needs " + std::to_string(p.smem_bytes) + " bytes of shared memory (limit " +
           std::to_string(limit) + " on this GPU)";
  // 32-bit index arithmetic in the kernel.
  const double in_elems = double(s.batch) * s.in_channels * s.height_in * s.width_in;
  const double out_elems = double(s.batch) * s.out_channels * s.height_out * s.width_out;
  if (in_elems >= 2147483647.0 || out_elems >= 2147483647.0)
    return "tensors of 2^31 elements or more are not supported (32-bit indexing)";
  return {};
}

// ---------------------------------------------------------------------------
// Device side.

// Split or not: one TF32 product, or the error-compensated three (3xTF32).
// tf32_bf16 (the wgmma kernel only): the TF32 product plus both correction
// terms in one BF16 wgmma (implicit_gemm_wgmma.cuh).
enum class Precision { tf32, tf32x3, tf32_bf16 };

__device__ __forceinline__ std::uint32_t tf32_bits(float value) {
  return kg::cvt_rna_tf32(value);
}

__device__ __forceinline__ void mma_tf32(float (&acc)[4], const std::uint32_t (&a)[4],
                                         const std::uint32_t (&b)[2]) {
  kg::mma_m16n8k8_tf32(acc, a, b, acc);
}

// A tile's image and its row and column among the class's tiles.
struct TilePosition {
  int n, th, tw;
};
__host__ __device__ inline TilePosition tile_position(int tile, const ClassDim& dh,
                                                      const ClassDim& dw) {
  const int tiles_per_image = dh.tiles * dw.tiles;
  const int n = tile / tiles_per_image;
  const int rem = tile - n * tiles_per_image;
  const int th = rem / dw.tiles;
  return TilePosition{n, th, rem - th * dw.tiles};
}

// Persistent blocks: block blockIdx.x takes tiles blockIdx.x, + gridDim.x,
// ... below class_tiles, each as p.chunks pipeline stages. The number of
// stages of this block, and the tile of its stage `stage`.
__device__ __forceinline__ int stages_of_this_block(int class_tiles, int chunks) {
  const int first = static_cast<int>(blockIdx.x), step = static_cast<int>(gridDim.x);
  return (class_tiles > first ? (class_tiles - first + step - 1) / step : 0) * chunks;
}
__device__ __forceinline__ int tile_of_stage(int stage, int chunks) {
  return static_cast<int>(blockIdx.x) + (stage / chunks) * static_cast<int>(gridDim.x);
}

// Where the halo's first column lies in a staged row: 16-byte copies start at
// the multiple of 4 at or before it (tile_cols is a multiple of 4, so this is
// the same for every tile of a class); scalar copies start at the column.
__host__ __device__ inline int staged_column_shift(const Plan& p, const ClassDim& dw) {
  return p.vector_loads ? (-dw.reach) & 3 : 0;
}

// Issues the cp.async copies of one pipeline stage: input channels
// [chunk * 8, chunk * 8 + 8) of the halo tile of `tile` (p.tile_rows x
// p.tile_cols outputs), zero-filled outside the input (the implicit padding)
// and beyond the group's channels. Channel c, halo row r, halo column col
// lands at stage[c * plane_stride + r * staged_row_floats + shift + col].
// The kBlockThreads threads of the block take part. A kernel whose halo is
// fixed passes its size (kHaloRows, kHaloCols): the index arithmetic then
// divides by constants, not by run-time values.
template <int kBlockThreads = kThreads, int kHaloRows = 0, int kHaloCols = 0>
__device__ __forceinline__ void load_stage(const Plan& p, const ClassDim& dh, const ClassDim& dw,
                                           const float* __restrict__ x, int group, int tile,
                                           int chunk, float* stage) {
  const auto [n, th, tw] = tile_position(tile, dh, dw);
  // reach > 0 reads before the input: the implicit zero padding.
  const int ih0 = th * p.tile_rows - dh.reach;
  const int iw0 = tw * p.tile_cols - dw.reach - staged_column_shift(p, dw);
  const int halo_rows = kHaloRows > 0 ? kHaloRows : p.tile_rows + dh.taps - 1;
  const int halo_cols = kHaloCols > 0 ? kHaloCols : p.tile_cols + dw.taps - 1;
  const int row_floats = staged_row_floats(halo_cols);
  const int ci0 = chunk * kCiChunk;
  const float* image = x + (static_cast<std::size_t>(n) * p.s.in_channels + group * p.cin_group) *
                               p.s.height_in * p.s.width_in;
  // The copy of 16 (or 4) bytes from channel c, halo row r, staged column
  // col: zeros outside the input. A zero source size makes cp.async write
  // zeros; the pointer must still be valid, so it is the tensor's base.
  auto copy = [&](bool quad, int c, int r, int col) {
    const int ci = ci0 + c;
    const int ih = ih0 + r;
    const int iw = iw0 + col;
    const bool inside = ci < p.cin_group && ih >= 0 && ih < p.s.height_in && iw >= 0 &&
                        iw < p.s.width_in;
    const float* src =
        inside ? image + (static_cast<std::size_t>(ci) * p.s.height_in + ih) * p.s.width_in + iw
               : x;
    float* dst = stage + c * p.plane_stride + r * row_floats + col;
    if (quad)
      kg::cp_async<16>(dst, src, inside ? 16 : 0);
    else
      kg::cp_async<4>(dst, src, inside ? 4 : 0);
  };
  if (p.vector_loads) {
    // 16 bytes from a column that is a multiple of 4: a quad lies wholly
    // inside or wholly outside the row (width_in % 4 == 0).
    const int quads = row_floats / 4;
    const int copies = kCiChunk * halo_rows * quads;
    for (int i = static_cast<int>(threadIdx.x); i < copies; i += kBlockThreads) {
      const int row = i / quads;
      const int c = row / halo_rows;
      copy(true, c, row - c * halo_rows, 4 * (i - row * quads));
    }
  } else {
    const int copies = kCiChunk * halo_rows * halo_cols;
    for (int i = static_cast<int>(threadIdx.x); i < copies; i += kBlockThreads) {
      const int row = i / halo_cols;
      const int c = row / halo_rows;
      copy(false, c, row - c * halo_rows, i - row * halo_cols);
    }
  }
}

static_assert(kRowsPerWarp == 2, "the tap-row walk below feeds exactly two output rows");

// B fragments (weights) of the 4 n8 tiles for one tap and 8 input channels;
// `lo` holds the rounding residue for 3xTF32 and is unused (elided) for TF32.
template <Precision kPrecision>
struct BFragments {
  std::uint32_t hi[kNTiles][2];
  std::uint32_t lo[kNTiles][2];
};

// A fragments (input pixels) of the 2 m16 tiles of one staged input row.
template <Precision kPrecision>
struct AFragments {
  std::uint32_t hi[kMTilesPerRow][4];
  std::uint32_t lo[kMTilesPerRow][4];
};

// b0 = B[k = t][n = g], b1 = B[t + 4][g]: input channel t (t + 4) of the
// chunk, output channel g of each n8 tile.
template <Precision kPrecision>
__device__ __forceinline__ void load_b(const float* weight_rows, int g, int t,
                                       BFragments<kPrecision>& out) {
#pragma unroll
  for (int nt = 0; nt < kNTiles; ++nt) {
    const float v[2] = {weight_rows[t * kWeightRowStride + nt * 8 + g],
                        weight_rows[(t + 4) * kWeightRowStride + nt * 8 + g]};
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      if constexpr (kPrecision == Precision::tf32) {
        out.hi[nt][e] = __float_as_uint(v[e]);  // rounded when staged
      } else {
        out.hi[nt][e] = tf32_bits(v[e]);
        out.lo[nt][e] = tf32_bits(v[e] - __uint_as_float(out.hi[nt][e]));
      }
    }
  }
}

// a0 = A[m = g][k = t], a1 = A[g + 8][t], a2 = A[g][t + 4], a3 = A[g + 8][t + 4]:
// pixel g (g + 8) of each m16 tile, input channel plane t (t + 4).
// `pixels` points at this lane's pixel g of the first tile, channel 0.
template <Precision kPrecision>
__device__ __forceinline__ void load_a(const float* pixels, int plane_stride, int t,
                                       AFragments<kPrecision>& out) {
#pragma unroll
  for (int mt = 0; mt < kMTilesPerRow; ++mt) {
    const float* base = pixels + mt * 16;
    const float v[4] = {base[t * plane_stride], base[t * plane_stride + 8],
                        base[(t + 4) * plane_stride], base[(t + 4) * plane_stride + 8]};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      out.hi[mt][e] = tf32_bits(v[e]);
      if constexpr (kPrecision == Precision::tf32x3)
        out.lo[mt][e] = tf32_bits(v[e] - __uint_as_float(out.hi[mt][e]));
    }
  }
}

// One output row of the warp (2 m16 x 4 n8 tiles) += A x B.
template <Precision kPrecision>
__device__ __forceinline__ void mma_row(float (&acc)[kMTilesPerRow][kNTiles][4],
                                        const AFragments<kPrecision>& a,
                                        const BFragments<kPrecision>& b) {
#pragma unroll
  for (int mt = 0; mt < kMTilesPerRow; ++mt) {
#pragma unroll
    for (int nt = 0; nt < kNTiles; ++nt) {
      if constexpr (kPrecision == Precision::tf32x3) {
        // Small terms first; lo x lo is below FP32 resolution.
        mma_tf32(acc[mt][nt], a.lo[mt], b.hi[nt]);
        mma_tf32(acc[mt][nt], a.hi[mt], b.lo[nt]);
      }
      mma_tf32(acc[mt][nt], a.hi[mt], b.hi[nt]);
    }
  }
}

// kStaticKernel > 0: stride 1 with that kernel size fixed at compile time (the
// tap loops unroll and the B fragments rotate through registers); 0: any
// kernel size and stride at run time, one parity class per grid.z.
template <Precision kPrecision, int kStaticKernel>
__global__ void __launch_bounds__(kThreads, 2)
    conv_transpose2d_igemm(Plan p, const float* __restrict__ x, const float* __restrict__ w,
                           float* __restrict__ y) {
  KG_DYNAMIC_SMEM(float, smem);
  float* stages = smem;                       // 2 x stage_floats, double buffer
  float* weights = smem + 2 * p.stage_floats;  // [tap][ci][40]

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int g = lane / 4;  // PTX fragment row group
  const int t = lane % 4;  // PTX fragment thread in group
  const int group = static_cast<int>(blockIdx.y) / p.co_blocks;
  const int co_block = static_cast<int>(blockIdx.y) - group * p.co_blocks;
  const int k = p.s.kernel;
  const int stride = p.s.stride;
  const int parity = static_cast<int>(blockIdx.z);
  const ClassDim dh = class_dim(p.s.height_out, k, stride, p.s.padding, parity / stride, kTileRows);
  const ClassDim dw = class_dim(p.s.width_out, k, stride, p.s.padding, parity % stride, kTileCols);
  const int taps_h = kStaticKernel > 0 ? kStaticKernel : dh.taps;
  const int taps_w = kStaticKernel > 0 ? kStaticKernel : dw.taps;
  const int row_floats = staged_row_floats(kTileCols + taps_w - 1);
  const int cin_padded = p.chunks * kCiChunk;
  const int class_tiles = p.s.batch * dh.tiles * dw.tiles;

  // The first stage is in flight while the weights are staged.
  const int stage_count = stages_of_this_block(class_tiles, p.chunks);
  if (stage_count > 0) load_stage(p, dh, dw, x, group, static_cast<int>(blockIdx.x), 0, stages);
  kg::cp_async_commit();

  // Weights of this block's (group, 32 output channels, parity class),
  // flipped, as rows [tap = a * taps_w + b][ci] of 32 output channels, zero
  // where out of range. The TF32 candidate rounds them once here; 3xTF32
  // keeps FP32 and splits them as it reads them.
  const int weight_floats = taps_h * taps_w * cin_padded * kWeightRowStride;
  for (int i = tid; i < weight_floats; i += kThreads) {
    const int co = i % kWeightRowStride;
    const int row = i / kWeightRowStride;
    const int ci = row % cin_padded;
    const int tap = row / cin_padded;
    const int co_in_group = co_block * kCoTile + co;
    const int kh = class_weight_index(dh, tap / taps_w, k, stride);
    const int kw = class_weight_index(dw, tap % taps_w, k, stride);
    float value = 0.0f;
    if (co < kCoTile && ci < p.cin_group && co_in_group < p.cout_group && kh >= 0 && kw >= 0) {
      value = w[((static_cast<std::size_t>(group * p.cin_group + ci) * p.cout_group + co_in_group) *
                     k + kh) * k + kw];
    }
    if constexpr (kPrecision == Precision::tf32) value = kg::round_to_tf32(value);
    weights[i] = value;
  }

  float acc[kRowsPerWarp][kMTilesPerRow][kNTiles][4];
  for (auto& rows : acc)
    for (auto& mtile : rows)
      for (auto& ntile : mtile)
        for (float& v : ntile) v = 0.0f;

  for (int stage = 0; stage < stage_count; ++stage) {
    const int chunk = stage % p.chunks;
    const int tile = tile_of_stage(stage, p.chunks);
    if (stage + 1 < stage_count) {
      load_stage(p, dh, dw, x, group, tile_of_stage(stage + 1, p.chunks), (stage + 1) % p.chunks,
                 stages + ((stage + 1) & 1) * p.stage_floats);
    }
    kg::cp_async_commit();
    kg::cp_async_wait<1>();  // this stage's copies (the older group) have landed
    __syncthreads();         // ... and everybody else's, and the weights

    const float* tile_in = stages + (stage & 1) * p.stage_floats;
    const float* weight_chunk = weights + chunk * kCiChunk * kWeightRowStride;
    const float* warp_pixels =
        tile_in + warp * kRowsPerWarp * row_floats + staged_column_shift(p, dw) + g;
    if constexpr (kPrecision == Precision::tf32 && kStaticKernel > 0) {
      // Output row rr at tap row a reads staged input row rr + a: for each
      // tap column b, walk the k + 1 input rows once and feed each row's A
      // fragments to both output rows (taps a = ir and a = ir - 1), so A is
      // read from shared memory k + 1 times instead of 2k (docs/kernels/l1_071.md).
#pragma unroll 1
      for (int b = 0; b < kStaticKernel; ++b) {
        BFragments<kPrecision> b_current, b_previous;
#pragma unroll
        for (int ir = 0; ir <= kStaticKernel; ++ir) {
          if (ir > 0) b_previous = b_current;
          if (ir < kStaticKernel)
            load_b(weight_chunk + (ir * kStaticKernel + b) * cin_padded * kWeightRowStride, g, t,
                   b_current);
          AFragments<kPrecision> a_row;
          load_a(warp_pixels + ir * row_floats + b, p.plane_stride, t, a_row);
          if (ir < kStaticKernel) mma_row(acc[0], a_row, b_current);
          if (ir > 0) mma_row(acc[1], a_row, b_previous);
        }
      }
    } else {
      // One tap at a time: fewer live registers (3xTF32 holds hi and lo of
      // every fragment), and 3xTF32 is bound by its threefold mma work anyway.
      for (int a = 0; a < taps_h; ++a) {
        for (int b = 0; b < taps_w; ++b) {
          BFragments<kPrecision> b_tap;
          load_b(weight_chunk + (a * taps_w + b) * cin_padded * kWeightRowStride, g, t, b_tap);
#pragma unroll
          for (int rr = 0; rr < kRowsPerWarp; ++rr) {
            AFragments<kPrecision> a_row;
            load_a(warp_pixels + (rr + a) * row_floats + b, p.plane_stride, t, a_row);
            mma_row(acc[rr], a_row, b_tap);
          }
        }
      }
    }

    if (chunk == p.chunks - 1) {
      // With stride 1, each store instruction writes 4 runs of 8 consecutive
      // floats (a 32-byte sector each where a run starts on 32 bytes, else
      // two): pixels g along W, channel pairs by t.
      const auto [n, th, tw] = tile_position(tile, dh, dw);
#pragma unroll
      for (int rr = 0; rr < kRowsPerWarp; ++rr) {
        const int jh = th * kTileRows + warp * kRowsPerWarp + rr;
        const int oh = dh.first + stride * jh;
#pragma unroll
        for (int mt = 0; mt < kMTilesPerRow; ++mt) {
#pragma unroll
          for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int jw = tw * kTileCols + mt * 16 + g + (e / 2) * 8;
              const int ow = dw.first + stride * jw;
              const int co = co_block * kCoTile + nt * 8 + 2 * t + (e % 2);
              if (jh < dh.extent && jw < dw.extent && co < p.cout_group) {
                y[((static_cast<std::size_t>(n) * p.s.out_channels + group * p.cout_group + co) *
                       p.s.height_out + oh) * p.s.width_out + ow] = acc[rr][mt][nt][e];
              }
              acc[rr][mt][nt][e] = 0.0f;
            }
          }
        }
      }
    }
    __syncthreads();  // the next iteration's copies overwrite this buffer
  }
  kg::cp_async_wait_all();
}

// Blocks along grid.x in interpret mode: as on a small GPU, so that blocks
// loop over several tiles there too (uneven counts with the ci preset) and the
// tests cover what happens between a block's tiles: the accumulators reset
// after the stores, the pipeline and the A buffers carried on into the next
// tile.
inline constexpr int kInterpretResidentBlocks = 3;

// Blocks along grid.x: on a GPU exactly the blocks that fit at once (SM count
// x occupancy, shared between the grid.y x grid.z slices), each looping over
// tiles. Interpret mode answers those queries only when it models a GPU
// (`kernelgate model`, which then runs a sample of this grid's blocks); in
// its other runs, kInterpretResidentBlocks.
template <typename Kernel>
unsigned persistent_blocks(Kernel kernel, int threads, const Plan& p) {
  int resident_blocks = p.max_class_tiles;  // one block per tile if the queries fail
  // Both answers come from the harness's cache after the first launch.
  const int sms = kg::sm_count(), per_sm = kg::max_active_blocks_per_sm(kernel, threads, p.smem_bytes);
  if (sms > 0 && per_sm > 0) {
    const int slices = p.s.groups * p.co_blocks * p.classes;
    resident_blocks = std::max(1, sms * per_sm / slices);
  }
#if defined(KG_INTERPRET)
  if (sms == 0) resident_blocks = kInterpretResidentBlocks;
#endif
  return static_cast<unsigned>(std::max(1, std::min(p.max_class_tiles, resident_blocks)));
}

// Host side: launches on args.stream. Blocks are persistent over tiles so each
// loads its weights once; grid.y enumerates (group, 32-channel block), grid.z
// the parity classes.
template <Precision kPrecision>
void launch(const LaunchArgs& args) {
  static_assert(kPrecision != Precision::tf32_bf16, "tf32_bf16 exists on the wgmma kernel only");
  const ConvShape s = shape_from_axes(args.axes);
  const std::string reason = unsupported_reason(args.axes);
  if (!reason.empty()) throw Error("l1_071_conv_transposed_2d: " + reason);
  Plan p = make_plan(s);
  p.vector_loads = rows_are_16_byte_aligned(s, args.in("x"));
  auto kernel = s.kernel == 3 && s.stride == 1 ? conv_transpose2d_igemm<kPrecision, 3>
                                               : conv_transpose2d_igemm<kPrecision, 0>;
  kg::set_max_dynamic_smem(kernel, p.smem_bytes);
  const dim3 grid(persistent_blocks(kernel, kThreads, p),
                  static_cast<unsigned>(s.groups * p.co_blocks), static_cast<unsigned>(p.classes));
  kg::launch(kernel, grid, dim3(kThreads), p.smem_bytes, args.stream, p, args.in("x"),
             args.in("weight"), args.output);
}

// The FP32-labelled candidates (3xTF32, TF32 with a BF16 correction) also
// bound the accumulation: in_channels / groups x kernel_size^2 products per
// output at most (common/fp32_accumulation.cuh; measured in
// docs/kernels/l1_071.md, "Accuracy on truncating tensor cores").
inline constexpr long long kMaxFp32Accumulation = 320;
inline std::string fp32_unsupported_reason(const Axes& axes) {
  if (std::string reason = unsupported_reason(axes); !reason.empty()) return reason;
  const ConvShape s = shape_from_axes(axes);
  return kernels::fp32_accumulation_reason(static_cast<long long>(s.in_channels / s.groups) * s.kernel * s.kernel,
                                           kMaxFp32Accumulation, "in_channels / groups x kernel_size^2");
}

// An implicit-GEMM candidate's registration: they all support the same axes
// (unsupported_reason, bounded further for fp32) and need no workspace;
// precision, summary and the launch (mma.sync or wgmma, and the precision)
// tell them apart.
inline Candidate implicit_gemm_candidate(const char* precision, const char* summary,
                                         void (*launch)(const LaunchArgs&)) {
  return Candidate{
      .precision = precision,
      .summary = summary,
      .unsupported_reason =
          std::string_view(precision) == "fp32" ? fp32_unsupported_reason : unsupported_reason,
      .launch = launch,
  };
}

}  // namespace kg::l1_071
