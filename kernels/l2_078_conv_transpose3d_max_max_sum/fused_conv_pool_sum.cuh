#pragma once
// Fused ConvTranspose3d(k=5, s=2, p=2) -> MaxPool3d(2) -> MaxPool3d(3) -> sum over
// channels, on TF32 tensor cores (mma.sync m16n8k8). Shared by the candidates
// fused_tf32.cu (one TF32 product) and fused_3xtf32.cu (hi/lo split, three
// products). The design, its numbers and the reasoning: docs/kernels/l2_078.md.
//
// In short: the two pools are one max over 6x6x6 blocks of conv outputs. With
// stride 2 the conv output o = 2m + p splits into 8 parity classes; within one
// class the taps are k = p + 2u reading input i = m + 1 - u (u < 3 - p), a
// stride-1 conv, i.e. an implicit GEMM: rows = conv outputs of the class,
// columns = output channels, K = taps x in_channels. A CTA owns 2x2x2 pooled
// blocks (8 blocks x 27 outputs per class = 216 GEMM rows) of one image and
// all output channels; rows are ordered row = q * 8 + block, so a thread's
// accumulator rows (g and g + 8 of every m16 tile) all belong to block g and
// the max runs in registers. Bias is added after the max, the channel sum runs
// in a fixed order: no float atomics, deterministic.
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <string>

#include "kernelgate/cuda.hpp"
#include "kernelgate/ptx.hpp"

namespace kg::l2_078 {

// The module's fixed conv geometry; other values are not supported.
inline constexpr int kKernel = 5;
inline constexpr int kStride = 2;
inline constexpr int kPadding = 2;
inline constexpr int kTaps = kKernel * kKernel * kKernel;  // 125 = sum over classes

inline constexpr int kWarps = 7;  // 14 m16 tiles of 16 rows (216 used), 2 per warp
inline constexpr int kThreads = kWarps * 32;
inline constexpr int kBlocksPerDim = 2;  // pooled blocks per CTA per dimension
inline constexpr int kBlocks = 8;        // 2 x 2 x 2 pooled blocks per CTA
inline constexpr int kRowsPerBlock = 27;  // 3 x 3 x 3 conv outputs per class and block
inline constexpr int kCoGroup = 64;      // output channels per pass (8 n8 tiles)
inline constexpr int kNTiles = kCoGroup / 8;
inline constexpr int kCiStep = 8;  // K per mma: 8 input channels of one tap

// Input tile in shared memory: 8 x 8 x 8 input positions (3 x 2 blocks + halo
// of 2) per input channel. Pitches padded so the A-fragment loads are free of
// bank conflicts: the 8 blocks of a fragment column land in 8 distinct banks
// mod 8 (strides 1, 10, 84 -> 3 * (bw + 2 bh + 4 bd) mod 8 is a permutation)
// and the 4 channel lanes 8 banks apart (680 = 8 mod 32).
inline constexpr int kTileSide = 3 * kBlocksPerDim + 2;
inline constexpr int kPitchH = 10;
inline constexpr int kPitchD = 84;
inline constexpr int kPitchCi = 680;
// Weight stage: [in_channels][64 output channels], row pitch 72 (= 8 mod 32)
// so the B-fragment loads hit 32 distinct banks.
inline constexpr int kWeightPitch = kCoGroup + 8;

inline constexpr std::size_t kMaxDynamicSmem = 227 * 1024;  // sm_90 opt-in limit per block

struct Geometry {
  int batch, in_channels, out_channels, depth, height, width;
  int pooled_d, pooled_h, pooled_w;  // output spatial sizes
  int tiles_d, tiles_h, tiles_w;     // CTA tiles per dimension (2 pooled blocks each)
};

inline Geometry geometry_of(int batch, int in_channels, int out_channels, int depth, int height,
                            int width) {
  Geometry g{batch, in_channels, out_channels, depth, height, width, 0, 0, 0, 0, 0, 0};
  auto pooled = [](int n) { return ((n - 1) * kStride - 2 * kPadding + kKernel) / 6; };
  g.pooled_d = pooled(depth);
  g.pooled_h = pooled(height);
  g.pooled_w = pooled(width);
  g.tiles_d = (g.pooled_d + kBlocksPerDim - 1) / kBlocksPerDim;
  g.tiles_h = (g.pooled_h + kBlocksPerDim - 1) / kBlocksPerDim;
  g.tiles_w = (g.pooled_w + kBlocksPerDim - 1) / kBlocksPerDim;
  return g;
}

// Packed weights: planes = 1 (tf32) or 2 (tf32 hi, tf32 lo).
inline std::size_t stage_floats(int in_channels, int planes) {
  return static_cast<std::size_t>(planes) * in_channels * kCoGroup;
}
inline std::size_t packed_weight_bytes(int in_channels, int out_channels, int planes) {
  return static_cast<std::size_t>(out_channels / kCoGroup) * kTaps *
         stage_floats(in_channels, planes) * sizeof(float);
}
inline std::size_t dynamic_smem_bytes(int in_channels, int planes) {
  const std::size_t tile = static_cast<std::size_t>(in_channels) * kPitchCi;
  const std::size_t stages = 2 * static_cast<std::size_t>(planes) * in_channels * kWeightPitch;
  const std::size_t maxima = kBlocks * kCoGroup;  // int keys of the block maxima
  return (tile + stages + maxima) * sizeof(float);
}

// Empty when the fused kernel handles these axes; otherwise why not.
inline std::string unsupported_reason(const Axes& axes, int planes) {
  auto get = [&](const char* name) -> std::int64_t {
    auto it = axes.find(name);
    return it == axes.end() ? -1 : it->second;
  };
  if (get("kernel_size") != kKernel || get("stride") != kStride || get("padding") != kPadding)
    return "the fused kernel is specialised to kernel_size=5, stride=2, padding=2";
  const std::int64_t cin = get("in_channels"), cout = get("out_channels");
  if (cin < kCiStep || cin % kCiStep != 0)
    return "in_channels must be a positive multiple of 8 (the mma K step)";
  if (cout < kCoGroup || cout % kCoGroup != 0)
    return "out_channels must be a positive multiple of 64 (the CTA's channel group)";
  if (dynamic_smem_bytes(static_cast<int>(cin), planes) > kMaxDynamicSmem)
    return "in_channels too large: the input tile and weight stages exceed 227 KiB of shared memory";
  for (const char* axis : {"depth", "height", "width"})
    if (get(axis) < 4) return std::string(axis) + " must be at least 4 (conv output at least 6)";
  const Geometry geo = geometry_of(1, 0, 0, static_cast<int>(get("depth")),
                                   static_cast<int>(get("height")), static_cast<int>(get("width")));
  const std::int64_t ctas =
      get("batch") * static_cast<std::int64_t>(geo.tiles_d) * geo.tiles_h * geo.tiles_w;
  if (get("batch") < 1 || ctas > 0x7fffffff) return "too many CTA tiles for one launch";
  return {};
}

// Order-preserving map of floats to signed ints, so the cross-warp max can use
// integer atomicMax (exact: the result does not depend on the order).
__device__ __forceinline__ int ordered_key(float value) {
  const int bits = __float_as_int(value);
  return bits >= 0 ? bits : bits ^ 0x7fffffff;
}
__device__ __forceinline__ float key_value(int key) {
  return __int_as_float(key >= 0 ? key : key ^ 0x7fffffff);
}

// Rewrites the weight [Cin][Cout][5][5][5] as a stream of stages, one per
// (64-channel group, class, tap) in the order the main kernel consumes them:
// stage[plane][ci][co], already rounded to TF32 (plane 1: the TF32 remainder).
template <int kPlanes>
__global__ void pack_weights(const float* __restrict__ weight, float* __restrict__ packed,
                             int in_channels, int out_channels, long long total) {
  const long long index = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= total) return;
  const int co_local = static_cast<int>(index % kCoGroup);
  long long rest = index / kCoGroup;
  const int ci = static_cast<int>(rest % in_channels);
  rest /= in_channels;
  const int plane = static_cast<int>(rest % kPlanes);
  rest /= kPlanes;
  int step = static_cast<int>(rest % kTaps);
  const int group = static_cast<int>(rest / kTaps);
  // Step -> (class, tap) in the main loop's order: classes 0..7 (parity bits
  // d, h, w), then taps u_d, u_h, u_w with 3 - parity taps each.
  int kd = 0, kh = 0, kw = 0;
  for (int cls = 0; cls < 8; ++cls) {
    const int pd = (cls >> 2) & 1, ph = (cls >> 1) & 1, pw = cls & 1;
    const int nd = 3 - pd, nh = 3 - ph, nw = 3 - pw;
    if (step < nd * nh * nw) {
      kd = pd + 2 * (step / (nh * nw));
      kh = ph + 2 * ((step / nw) % nh);
      kw = pw + 2 * (step % nw);
      break;
    }
    step -= nd * nh * nw;
  }
  const int co = group * kCoGroup + co_local;
  const float value =
      weight[(((static_cast<long long>(ci) * out_channels + co) * kKernel + kd) * kKernel + kh) *
                 kKernel + kw];
  const float hi = __uint_as_float(kg::cvt_rna_tf32(value));
  packed[index] = plane == 0 ? hi : __uint_as_float(kg::cvt_rna_tf32(value - hi));
}

// One CTA: image n, pooled blocks [2 tj, 2 tj + 2) per dimension, all output
// channels (in groups of 64). kPlanes = 1: TF32; 2: 3xTF32.
template <int kPlanes>
__global__ void __launch_bounds__(kThreads, kPlanes == 1 ? 2 : 1)
    fused_conv_pool_sum(const float* __restrict__ x, const float* __restrict__ packed,
                        const float* __restrict__ bias, float* __restrict__ y, Geometry geo) {
  KG_DYNAMIC_SMEM(float, smem);
  const int cin = geo.in_channels;
  float* tile = smem;                                          // [cin][kPitchCi]
  float* stages = tile + static_cast<std::size_t>(cin) * kPitchCi;  // [2][planes][cin][72]
  const int stage_pitch = kPlanes * cin * kWeightPitch;
  int* maxima = reinterpret_cast<int*>(stages + 2 * stage_pitch);  // [8 blocks][64]

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;

  // CTA coordinates.
  int rest = static_cast<int>(blockIdx.x);
  const int tjw = rest % geo.tiles_w;
  rest /= geo.tiles_w;
  const int tjh = rest % geo.tiles_h;
  rest /= geo.tiles_h;
  const int tjd = rest % geo.tiles_d;
  const int n = rest / geo.tiles_d;
  const int j0d = tjd * kBlocksPerDim, j0h = tjh * kBlocksPerDim, j0w = tjw * kBlocksPerDim;
  // Input position of tile index 0: conv output 6j + 2q + p reads input
  // 3j + q + 1 - u, so the tile starts at 3 j0 - 1 and index 3 b + q + 2 - u.
  const int i0d = 3 * j0d - 1, i0h = 3 * j0h - 1, i0w = 3 * j0w - 1;

  for (int i = tid; i < kBlocks * kCoGroup; i += kThreads) maxima[i] = ordered_key(-INFINITY);

  // Input tile, zero outside the input (those taps contribute nothing).
  const int hw = geo.height * geo.width;
  const float* x_image = x + static_cast<std::size_t>(n) * cin * geo.depth * hw;
  const int tile_elems = cin * kTileSide * kTileSide * kTileSide;
  auto tile_offset = [](int e) {
    const int ci = e >> 9, ld = (e >> 6) & 7, lh = (e >> 3) & 7, lw = e & 7;
    return ci * kPitchCi + ld * kPitchD + lh * kPitchH + lw;
  };
  for (int e = tid; e < tile_elems; e += kThreads) {
    const int ci = e >> 9, id = i0d + ((e >> 6) & 7), ih = i0h + ((e >> 3) & 7), iw = i0w + (e & 7);
    const bool inside = id >= 0 && id < geo.depth && ih >= 0 && ih < geo.height && iw >= 0 &&
                        iw < geo.width;
    const float* src =
        inside ? x_image + (static_cast<std::size_t>(ci) * geo.depth + id) * hw + ih * geo.width + iw
               : x_image;
    kg::cp_async<4>(tile + tile_offset(e), src, inside ? 4 : 0);
  }

  // Weight stream: stage s of this CTA's pass is packed[s * stage_floats].
  const int stage_floats_ = kPlanes * cin * kCoGroup;
  const int groups = geo.out_channels / kCoGroup;
  const int total_steps = groups * kTaps;
  auto load_stage = [&](int step, int buffer) {
    const float* src = packed + static_cast<std::size_t>(step) * stage_floats_;
    float* dst = stages + buffer * stage_pitch;
    for (int chunk = tid; chunk < stage_floats_ / 4; chunk += kThreads) {
      const int row = chunk >> 4, col = (chunk & 15) * 4;  // row = plane * cin + ci
      kg::cp_async<16>(dst + row * kWeightPitch + col, src + chunk * 4);
    }
  };
  load_stage(0, 0);
  kg::cp_async_commit();
  kg::cp_async_wait_all();
  if constexpr (kPlanes == 1) {
    // Round the input to TF32 once here instead of at every fragment load.
    for (int e = tid; e < tile_elems; e += kThreads) {
      float* p = tile + tile_offset(e);
      *p = __uint_as_float(kg::cvt_rna_tf32(*p));
    }
  }
  __syncthreads();

  // Rows of this thread: m16 tiles 2 warp + i, rows g (q = 2 mt) and g + 8
  // (q = 2 mt + 1), block g. Offsets of tap u = 0 in the tile; q = 27 is padding.
  const int bd = (g >> 2) & 1, bh = (g >> 1) & 1, bw = g & 1;
  int row_offset[2][2];
  bool row_valid[2][2];
  for (int i = 0; i < 2; ++i)
    for (int half = 0; half < 2; ++half) {
      const int q = 2 * (2 * warp + i) + half;
      row_valid[i][half] = q < kRowsPerBlock;
      const int qq = q < kRowsPerBlock ? q : 0;
      const int qd = qq / 9, qh = (qq / 3) % 3, qw = qq % 3;
      row_offset[i][half] = (3 * bd + qd + 2) * kPitchD + (3 * bh + qh + 2) * kPitchH + (3 * bw + qw + 2);
    }

  float acc[2][kNTiles][4];
  float block_max[kNTiles][2];
  float channel_sum = 0.f;  // threads 0..7: the output of block tid
  int step = 0;
  for (int group = 0; group < groups; ++group) {
    for (int nt = 0; nt < kNTiles; ++nt) block_max[nt][0] = block_max[nt][1] = -INFINITY;
    for (int cls = 0; cls < 8; ++cls) {
      const int nd = 3 - ((cls >> 2) & 1), nh = 3 - ((cls >> 1) & 1), nw = 3 - (cls & 1);
      for (int i = 0; i < 2; ++i)
        for (int nt = 0; nt < kNTiles; ++nt)
          for (int r = 0; r < 4; ++r) acc[i][nt][r] = 0.f;
      for (int ud = 0; ud < nd; ++ud)
        for (int uh = 0; uh < nh; ++uh)
          for (int uw = 0; uw < nw; ++uw, ++step) {
            if (step + 1 < total_steps) load_stage(step + 1, (step + 1) & 1);
            kg::cp_async_commit();
            const int tap_offset = ud * kPitchD + uh * kPitchH + uw;
            const float* w_stage = stages + (step & 1) * stage_pitch;
            // Two K steps per iteration: more independent loads in flight.
#pragma unroll 2
            for (int ci0 = 0; ci0 < cin; ci0 += kCiStep) {
              const float* a_lo_ci = tile + (ci0 + t) * kPitchCi - tap_offset;
              const float* a_hi_ci = a_lo_ci + 4 * kPitchCi;
              float a_raw[2][4];
              for (int i = 0; i < 2; ++i) {
                a_raw[i][0] = a_lo_ci[row_offset[i][0]];
                a_raw[i][1] = a_lo_ci[row_offset[i][1]];
                a_raw[i][2] = a_hi_ci[row_offset[i][0]];
                a_raw[i][3] = a_hi_ci[row_offset[i][1]];
              }
              const float* b_row0 = w_stage + (ci0 + t) * kWeightPitch + g;
              const float* b_row1 = b_row0 + 4 * kWeightPitch;
              if constexpr (kPlanes == 1) {
                std::uint32_t a[2][4];
                for (int i = 0; i < 2; ++i)
                  for (int r = 0; r < 4; ++r) a[i][r] = __float_as_uint(a_raw[i][r]);
                for (int nt = 0; nt < kNTiles; ++nt) {
                  const std::uint32_t b[2] = {__float_as_uint(b_row0[nt * 8]),
                                              __float_as_uint(b_row1[nt * 8])};
                  for (int i = 0; i < 2; ++i) kg::mma_m16n8k8_tf32(acc[i][nt], a[i], b, acc[i][nt]);
                }
              } else {
                std::uint32_t a_hi[2][4], a_lo[2][4];
                for (int i = 0; i < 2; ++i)
                  for (int r = 0; r < 4; ++r) {
                    a_hi[i][r] = kg::cvt_rna_tf32(a_raw[i][r]);
                    a_lo[i][r] = kg::cvt_rna_tf32(a_raw[i][r] - __uint_as_float(a_hi[i][r]));
                  }
                const int lo_plane = cin * kWeightPitch;
                for (int nt = 0; nt < kNTiles; ++nt) {
                  const std::uint32_t b_hi[2] = {__float_as_uint(b_row0[nt * 8]),
                                                 __float_as_uint(b_row1[nt * 8])};
                  const std::uint32_t b_lo[2] = {__float_as_uint(b_row0[lo_plane + nt * 8]),
                                                 __float_as_uint(b_row1[lo_plane + nt * 8])};
                  for (int i = 0; i < 2; ++i) {
                    // Small terms first: they would be lost after the big one.
                    kg::mma_m16n8k8_tf32(acc[i][nt], a_lo[i], b_hi, acc[i][nt]);
                    kg::mma_m16n8k8_tf32(acc[i][nt], a_hi[i], b_lo, acc[i][nt]);
                    kg::mma_m16n8k8_tf32(acc[i][nt], a_hi[i], b_hi, acc[i][nt]);
                  }
                }
              }
            }
            kg::cp_async_wait_all();
            __syncthreads();  // the next stage is visible; this one may be overwritten
          }
      // Max of this class's outputs into the per-thread block maximum.
      for (int i = 0; i < 2; ++i)
        for (int nt = 0; nt < kNTiles; ++nt) {
          if (row_valid[i][0]) {
            block_max[nt][0] = fmaxf(block_max[nt][0], acc[i][nt][0]);
            block_max[nt][1] = fmaxf(block_max[nt][1], acc[i][nt][1]);
          }
          if (row_valid[i][1]) {
            block_max[nt][0] = fmaxf(block_max[nt][0], acc[i][nt][2]);
            block_max[nt][1] = fmaxf(block_max[nt][1], acc[i][nt][3]);
          }
        }
    }
    // Across warps (and rows g, g + 8 already merged): exact integer max.
    for (int nt = 0; nt < kNTiles; ++nt) {
      atomicMax(&maxima[g * kCoGroup + nt * 8 + 2 * t], ordered_key(block_max[nt][0]));
      atomicMax(&maxima[g * kCoGroup + nt * 8 + 2 * t + 1], ordered_key(block_max[nt][1]));
    }
    __syncthreads();
    if (tid < kBlocks) {
      // Fixed channel order: deterministic. Bias commutes with the max.
      const float* group_bias = bias + group * kCoGroup;
      for (int c = 0; c < kCoGroup; ++c) {
        channel_sum += key_value(maxima[tid * kCoGroup + c]) + group_bias[c];
        maxima[tid * kCoGroup + c] = ordered_key(-INFINITY);  // next group; read again after barriers
      }
    }
    __syncthreads();
  }
  if (tid < kBlocks) {
    const int jd = j0d + ((tid >> 2) & 1), jh = j0h + ((tid >> 1) & 1), jw = j0w + (tid & 1);
    if (jd < geo.pooled_d && jh < geo.pooled_h && jw < geo.pooled_w)
      y[((static_cast<std::size_t>(n) * geo.pooled_d + jd) * geo.pooled_h + jh) * geo.pooled_w + jw] =
          channel_sum;
  }
}

// Packs the weights into the workspace, then runs the fused kernel.
template <int kPlanes>
void launch_fused(const LaunchArgs& args) {
  const Geometry geo = geometry_of(
      static_cast<int>(args.axis("batch")), static_cast<int>(args.axis("in_channels")),
      static_cast<int>(args.axis("out_channels")), static_cast<int>(args.axis("depth")),
      static_cast<int>(args.axis("height")), static_cast<int>(args.axis("width")));
  float* packed = static_cast<float*>(args.workspace);
  const long long packed_floats = static_cast<long long>(
      packed_weight_bytes(geo.in_channels, geo.out_channels, kPlanes) / sizeof(float));
  constexpr int kPackThreads = 256;
  kg::launch(pack_weights<kPlanes>,
             dim3(static_cast<unsigned>((packed_floats + kPackThreads - 1) / kPackThreads)),
             dim3(kPackThreads), 0, args.stream, args.in("weight"), packed, geo.in_channels,
             geo.out_channels, packed_floats);
  const std::size_t smem = dynamic_smem_bytes(geo.in_channels, kPlanes);
  kg::set_max_dynamic_smem(fused_conv_pool_sum<kPlanes>, smem);
  const unsigned ctas = static_cast<unsigned>(geo.batch) * geo.tiles_d * geo.tiles_h * geo.tiles_w;
  kg::launch(fused_conv_pool_sum<kPlanes>, dim3(ctas), dim3(kThreads), smem, args.stream,
             args.in("x"), static_cast<const float*>(packed), args.in("bias"), args.output, geo);
}

}  // namespace kg::l2_078
