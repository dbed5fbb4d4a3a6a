#pragma once
// Fused ConvTranspose3d(k=5, s=2, p=2) -> MaxPool3d(2) -> MaxPool3d(3) -> sum over
// channels, on TF32 tensor cores (mma.sync m16n8k8, or wgmma m64n64k8 in the
// paired shape of the _wgmma candidates). Shared by the candidates
// fused_tf32.cu (one TF32 product), fused_3xtf32.cu (hi/lo split, three
// products), their wgmma variants fused_tf32_wgmma.cu and
// fused_3xtf32_wgmma.cu, and fused_tf32_bf16corr_wgmma.cu (TF32 with a BF16
// correction, wgmma m64n64k16). The design, its invariants and the reasoning:
// docs/kernels/l2_078.md.
//
// In short: the two pools are one max over 6x6x6 blocks of conv outputs. With
// stride 2 the conv output o = 2m + p splits into 8 parity classes; within one
// class the taps are k = p + 2u reading input i = m + 1 - u (u < 3 - p), a
// stride-1 conv, i.e. an implicit GEMM: rows = conv outputs of the class,
// columns = output channels, K = taps x in_channels. A CTA owns 2x2x2 pooled
// blocks of one image, or of two images (the "paired" shape, 16 blocks), and
// all output channels. Each block has 27 conv outputs per class (q = 0..26).
// Rows are ordered so that a thread's accumulator rows (g and g + 8 of every
// m16 tile) belong to block g (of image 0 and image 1 when paired), so the max
// runs in registers. Bias is added after the max, the channel sum runs in a
// fixed order: no float atomics, deterministic.
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <string>

#include "common/bf16_correction.cuh"
#include "common/fp32_accumulation.cuh"
#include "common/shared_memory.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/ptx.hpp"

namespace kg::l2_078 {

// The module's fixed conv geometry; other values are not supported.
inline constexpr int kKernel = 5;
inline constexpr int kStride = 2;
inline constexpr int kPadding = 2;
inline constexpr int kTaps = kKernel * kKernel * kKernel;  // 125 = sum over classes

inline constexpr int kBlocksPerDim = 2;    // pooled blocks per CTA per dimension
inline constexpr int kBlocksPerImage = 8;  // 2 x 2 x 2 pooled blocks per image and CTA
inline constexpr int kRowsPerBlock = 27;   // 3 x 3 x 3 conv outputs per class and block
inline constexpr int kCoGroup = 64;        // output channels per pass (8 n8 tiles)
inline constexpr int kNTiles = kCoGroup / 8;
inline constexpr int kCiStep = 8;  // K per mma: 8 input channels of one tap

// Input tile in shared memory: 8 x 8 x 8 input positions (3 x 2 blocks + halo
// of 2) per input channel and image. Pitches padded so the A-fragment loads
// are free of bank conflicts: the 8 blocks of a fragment column land in 8
// distinct banks mod 8 (strides 1, 10, 84 -> 3 * (bw + 2 bh + 4 bd) mod 8 is a
// permutation) and the 4 channel lanes 8 banks apart (channel pitch 680 or
// 1368, both = 8 * odd mod 32). One image's tile uses 672 floats; the second
// image of a paired CTA starts 680 floats after the first (8 mod 32: its loads
// are a different instruction, conflict-free by the same argument).
inline constexpr int kTileSide = 3 * kBlocksPerDim + 2;
inline constexpr int kPitchH = 10;
inline constexpr int kPitchD = 84;
inline constexpr int kPitchImage = 680;
inline constexpr int channel_pitch(int images) { return images == 2 ? 1368 : kPitchImage; }
// Weight stage: [in_channels][64 output channels], row pitch 72 (= 8 mod 32)
// so the B-fragment loads hit 32 distinct banks.
inline constexpr int kWeightPitch = kCoGroup + 8;
// Weight stages in flight: three (two loads ahead) where shared memory allows
// it; the single-image TF32 shape keeps two so that two CTAs fit on an SM.
// wgmma reads a stage asynchronously, up to one stage after its issue, so its
// ring holds two buffers more than the stages loaded ahead: four (two ahead)
// for TF32, three (one ahead) for 3xTF32, whose stages are twice the size and
// take three times as long to consume.
inline constexpr int weight_stages(int planes, int images, bool wgmma) {
  return wgmma ? (planes == 1 ? 4 : 3) : planes == 1 && images == 2 ? 3 : 2;
}
// Floats per input channel of a weight stage in shared memory: mma.sync reads
// rows [ci][64 channels] padded to 72; wgmma reads the stage as a K-major
// operand without padding (see pack_weights).
inline constexpr int weight_row_floats(bool wgmma) { return wgmma ? kCoGroup : kWeightPitch; }
// Whether a precision has the paired shape at all. 3xTF32 on mma.sync stays
// on the single-image shape: its hi/lo A and B fragments for 4 m16 tiles do
// not fit in 255 registers next to 128 accumulators (docs/kernels/l2_078.md,
// "Invariants").
// On wgmma B stays in shared memory, and it fits.
inline constexpr bool has_paired_shape(int planes, bool wgmma) { return planes == 1 || wgmma; }

// Per block: sm_90's opt-in limit, or the GPU's where it is less
// (common/shared_memory.cuh).
inline constexpr std::size_t kMaxDynamicSmem = 227 * 1024;

// The two CTA shapes. Single image: 8 blocks x 27 rows = 216 rows per class,
// 14 m16 tiles (row = q * 8 + block, an m16 tile holds q = 2i and 2i + 1; the
// last row pair is padding), 7 warps x 2 tiles. Paired: 16 blocks x 27 rows =
// 432 rows, 27 m16 tiles (row = q * 16 + image * 8 + block, an m16 tile is
// one q, no padding), 8 warps with 4, 4, 4, 3, 3, 3, 3, 3 tiles: warps w and
// w + 4 share an SM sub-partition, so each sub-partition gets 7 or 6 tiles.
//
// With wgmma (paired only) the 28 m16 tiles of 7 m64 tiles (the 28th, q = 27,
// is padding) are dealt so that m64 tile j = q 4j..4j+3, warp w % 4 of its
// warpgroup holding q = 4j + w % 4: warpgroup 0 takes j = 0, 2, 4, 6 and
// warpgroup 1 j = 1, 3, 5, i.e. again 4 and 3 m16 tiles per warp, and 7 per
// sub-partition.
template <int kPlanes, int kImages, bool kWgmma = false>
struct CtaShape {
  static_assert(kImages == 1 || kImages == 2, "a CTA covers one image or a pair");
  static_assert(!kWgmma || kImages == 2, "wgmma is implemented for the paired shape only");
  static constexpr int kBlocks = kBlocksPerImage * kImages;
  static constexpr int kWarps = kImages == 2 ? 8 : 7;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kMaxTiles = kImages == 2 ? 4 : 2;  // m16 tiles of the widest warp
  static constexpr int kMinTiles = kImages == 2 ? 3 : 2;
  static constexpr int kChannelPitch = channel_pitch(kImages);
  static constexpr int kStages = weight_stages(kPlanes, kImages, kWgmma);
  static constexpr int kPrefetch = kWgmma ? kStages - 2 : kStages - 1;  // stages loaded ahead
  static constexpr int kWeightRow = weight_row_floats(kWgmma);
  static constexpr int kCtasPerSm = kImages == 1 && kPlanes == 1 ? 2 : 1;
  // Offset from a thread's row g to its row g + 8 when both are the same q
  // (paired shape); 0 means the rows differ in q and each has its own offset.
  static constexpr int kHalfRowDelta = kImages == 2 ? kPitchImage : 0;
};

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

// Packed weights: planes = 1 (tf32) or 2 (tf32 hi, tf32 lo); the same size in
// either layout.
inline std::size_t stage_floats(int in_channels, int planes) {
  return static_cast<std::size_t>(planes) * in_channels * kCoGroup;
}
inline std::size_t packed_weight_bytes(int in_channels, int out_channels, int planes) {
  return static_cast<std::size_t>(out_channels / kCoGroup) * kTaps *
         stage_floats(in_channels, planes) * sizeof(float);
}
inline std::size_t dynamic_smem_bytes(int in_channels, int planes, int images,
                                      bool wgmma = false) {
  const std::size_t tile = static_cast<std::size_t>(in_channels) * channel_pitch(images);
  const std::size_t stages = static_cast<std::size_t>(weight_stages(planes, images, wgmma)) *
                             planes * in_channels * weight_row_floats(wgmma);
  const std::size_t maxima = static_cast<std::size_t>(kBlocksPerImage) * images * kCoGroup;
  return (tile + stages + maxima) * sizeof(float);
}

// 3xTF32 on wgmma with a single K step per stage (8 input channels) spills
// 16 bytes at sm_90a: that case keeps the single-image shape.
inline constexpr int kMin3xTf32WgmmaChannels = 2 * kCiStep;

// The paired shape where the precision has it, there is a second image, and
// its input tile and weight stages fit; otherwise the single-image shape.
inline int images_per_cta(int planes, int batch, int in_channels, bool wgmma = false) {
  const bool channels_ok = planes == 1 || in_channels >= kMin3xTf32WgmmaChannels;
  return has_paired_shape(planes, wgmma) && channels_ok && batch >= 2 &&
                 dynamic_smem_bytes(in_channels, planes, 2, wgmma) <= kernels::block_smem_limit(kMaxDynamicSmem)
             ? 2
             : 1;
}

// The FP32-labelled candidates bound the accumulation (in_channels x the
// taps an output sees; common/fp32_accumulation.cuh, measured in
// docs/kernels/l2_078.md, "Accuracy on truncating tensor cores"): 3xTF32's
// three TF32 blocks per K step keep 3x headroom up to 24 input channels, the
// BF16 correction's two up to 32.
inline constexpr int kMax3xTf32Channels = 24;
inline constexpr int kMaxBf16CorrectionChannels = 32;

// Empty when the fused kernel handles these axes; otherwise why not.
// `max_channels`: the FP32 candidates' bound on in_channels (0: none).
inline std::string unsupported_reason(const Axes& axes, int planes, int max_channels = 0) {
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
  if (max_channels > 0)
    if (std::string reason = kernels::fp32_accumulation_reason(cin, max_channels, "in_channels"); !reason.empty())
      return reason;
  // The single-image shape is the fallback: it needs the least shared memory.
  const std::size_t smem = dynamic_smem_bytes(static_cast<int>(cin), planes, 1);
  if (const std::size_t limit = kernels::block_smem_limit(kMaxDynamicSmem); smem > limit)
    return "in_channels too large: the input tile and weight stages need " + std::to_string(smem) +
           " bytes of shared memory, above the " + std::to_string(limit) +
           " a block may use on this GPU";
  for (const char* axis : {"depth", "height", "width"})
    if (get(axis) < 4) return std::string(axis) + " must be at least 4 (conv output at least 6)";
  const Geometry geo = geometry_of(1, 0, 0, static_cast<int>(get("depth")),
                                   static_cast<int>(get("height")), static_cast<int>(get("width")));
  const std::int64_t ctas =
      get("batch_size") * static_cast<std::int64_t>(geo.tiles_d) * geo.tiles_h * geo.tiles_w;
  if (get("batch_size") < 1 || ctas > 0x7fffffff) return "too many CTA tiles for one launch";
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
// kKMajor (wgmma): stage[ci / 4][co][ci % 4] instead, the K-major operand
// layout without swizzle: the 8 channels co 8i..8i+7 x 4 input channels form
// one 128-byte core matrix; the next 4 input channels are 64 x 16 = 1024
// bytes on, the next 8 output channels 128 bytes on.
// kBf16Correction (wgmma, kPlanes = 2): plane 1 holds instead, per 8 input
// channels, the BF16 operand B' of the correction product
// (common/bf16_correction.cuh): 16 x 64 bf16, K-major with 8 per core-matrix
// row, the same byte offsets. Its 4-byte word at the K-major position of
// (ci, co) holds k' = 2 (ci % 8) and that + 1.
template <int kPlanes, bool kKMajor = false, bool kBf16Correction = false>
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
  auto value_of = [&](int channel) {
    return weight[(((static_cast<long long>(channel) * out_channels + co) * kKernel + kd) *
                       kKernel + kh) * kKernel + kw];
  };
  const long long row_major = static_cast<long long>(ci) * kCoGroup + co_local;
  const long long k_major = (ci / 4) * 4 * kCoGroup + co_local * 4 + ci % 4;
  float& out = packed[index - row_major + (kKMajor ? k_major : row_major)];
  if (kBf16Correction && plane == 1) {
    const int chunk_start = ci - ci % kCiStep;
    const int k_prime = 2 * (ci % kCiStep);
    float parts[2];
    for (int e = 0; e < 2; ++e)
      parts[e] = kernels::correction_weight(
          value_of(chunk_start + kernels::correction_channel(k_prime + e)), k_prime + e);
    out = __uint_as_float(kg::pack_bf16x2(parts[0], parts[1]));
    return;
  }
  const float value = value_of(ci);
  const float hi = kg::round_to_tf32(value);
  out = plane == 0 ? hi : kg::round_to_tf32(value - hi);
}

// The mma of one weight stage (one tap, all input channels) for a warp with
// kTiles m16 tiles (the widest warp has kMaxTiles; the accumulators of the
// others stay untouched). a_base: the input tile at channel lane t, shifted
// back by the tap; b_base: the stage at row t, column g.
template <int kPlanes, int kTiles, int kMaxTiles, int kChannelPitch, int kHalfRowDelta>
__device__ __forceinline__ void mma_stage(float (&acc)[kMaxTiles][kNTiles][4],
                                          const float* a_base,
                                          const int (&row_offset)[kMaxTiles][2],
                                          const float* b_base, int cin) {
  // Two K steps per iteration: more independent loads in flight.
#pragma unroll 2
  for (int ci0 = 0; ci0 < cin; ci0 += kCiStep) {
    const float* a_lo_ci = a_base + ci0 * kChannelPitch;
    const float* a_hi_ci = a_lo_ci + 4 * kChannelPitch;
    float a_raw[kTiles][4];
#pragma unroll
    for (int i = 0; i < kTiles; ++i) {
      // Paired shape: row g + 8 is the same q in the second image, a fixed
      // offset (an immediate in the load) from row g.
      const int lower = row_offset[i][0];
      const int upper = kHalfRowDelta != 0 ? lower + kHalfRowDelta : row_offset[i][1];
      a_raw[i][0] = a_lo_ci[lower];
      a_raw[i][1] = a_lo_ci[upper];
      a_raw[i][2] = a_hi_ci[lower];
      a_raw[i][3] = a_hi_ci[upper];
    }
    const float* b_row0 = b_base + ci0 * kWeightPitch;
    const float* b_row1 = b_row0 + 4 * kWeightPitch;
    if constexpr (kPlanes == 1) {
      std::uint32_t a[kTiles][4];
#pragma unroll
      for (int i = 0; i < kTiles; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r) a[i][r] = __float_as_uint(a_raw[i][r]);
#pragma unroll
      for (int nt = 0; nt < kNTiles; ++nt) {
        const std::uint32_t b[2] = {__float_as_uint(b_row0[nt * 8]),
                                    __float_as_uint(b_row1[nt * 8])};
#pragma unroll
        for (int i = 0; i < kTiles; ++i) kg::mma_m16n8k8_tf32(acc[i][nt], a[i], b, acc[i][nt]);
      }
    } else {
      std::uint32_t a_hi[kTiles][4], a_lo[kTiles][4];
#pragma unroll
      for (int i = 0; i < kTiles; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          a_hi[i][r] = kg::cvt_rna_tf32(a_raw[i][r]);
          a_lo[i][r] = kg::cvt_rna_tf32(a_raw[i][r] - __uint_as_float(a_hi[i][r]));
        }
      const int lo_plane = cin * kWeightPitch;
#pragma unroll
      for (int nt = 0; nt < kNTiles; ++nt) {
        const std::uint32_t b_hi[2] = {__float_as_uint(b_row0[nt * 8]),
                                       __float_as_uint(b_row1[nt * 8])};
        const std::uint32_t b_lo[2] = {__float_as_uint(b_row0[lo_plane + nt * 8]),
                                       __float_as_uint(b_row1[lo_plane + nt * 8])};
#pragma unroll
        for (int i = 0; i < kTiles; ++i) {
          // Small terms first: they would be lost after the big one.
          kg::mma_m16n8k8_tf32(acc[i][nt], a_lo[i], b_hi, acc[i][nt]);
          kg::mma_m16n8k8_tf32(acc[i][nt], a_hi[i], b_lo, acc[i][nt]);
          kg::mma_m16n8k8_tf32(acc[i][nt], a_hi[i], b_hi, acc[i][nt]);
        }
      }
    }
  }
}

// The wgmma of one weight stage for a warp with kTiles m16 tiles (uniform in
// its warpgroup: 4 in warpgroup 0, 3 in warpgroup 1). Per K step of 8 input
// channels the warp loads its A fragments (the loads of mma_stage) into one
// of kABuffers register buffers (3xTF32: split into hi and lo there); then
// each of its m16 tiles is the warp's quarter of one m64n64k8 wgmma of the
// warpgroup per product, with the stage as the B operand (3xTF32: a_lo b_hi,
// a_hi b_lo, a_hi b_hi, small terms first, over the tiles in turn).
// TF32 has two buffers: one is written again two K steps later, after the
// wgmma_wait<1> that completes its last reader. With an odd number of K steps
// per stage the first step would meet the previous stage's last one on
// buffer 0, so it waits for everything (this also keeps the stage-ring
// argument of the main loop true for a single K step).
// 3xTF32 has one buffer (two hi/lo buffers next to 128 accumulators exceed
// 255 registers and ptxas serializes the wgmmas, C7512): every K step waits
// for the last, and the other warpgroup's wgmmas keep the tensor cores busy
// meanwhile.
// kBf16Correction (kPlanes = 2): a_hi b_hi on TF32 and the two correction
// terms a_lo b_hi + a_hi b_lo as one BF16 wgmma m64n64k16, which runs at twice
// the TF32 rate (common/bf16_correction.cuh has the K order A' and B' share).
// kSteps = in_channels / 8 is a template argument: with a run-time count
// ptxas cannot tell which group last read a buffer, and serializes every
// wgmma.
template <int kPlanes>
inline constexpr int kABuffers = kPlanes == 1 ? 2 : 1;

template <int kPlanes, int kTiles, int kMaxTiles, int kSteps, bool kBf16Correction = false>
__device__ __forceinline__ void wgmma_stage(
    float (&acc)[kMaxTiles][kNTiles][4],
    std::uint32_t (&a_frag)[kABuffers<kPlanes>][kPlanes][kMaxTiles][4],
                                            const float* a_base,
                                            const int (&row_offset)[kMaxTiles][2],
                                            std::uint64_t b_desc, bool first_of_class) {
  constexpr int kChannelPitch = CtaShape<kPlanes, 2, true>::kChannelPitch;
  // One K step = 2 core-matrix columns of 64 x 16 bytes, in the descriptor's
  // 16-byte units; the lo plane follows the hi plane's kSteps K steps.
  constexpr std::uint64_t kDescPerStep = 2 * kCoGroup * 16 / 16;
  constexpr std::uint64_t kDescLoPlane = kSteps * kDescPerStep;
  auto k_step = [&](std::uint32_t (&frag)[kPlanes][kMaxTiles][4], int ks) {
    const float* a_lo_ci = a_base + ks * kCiStep * kChannelPitch;
    const float* a_hi_ci = a_lo_ci + 4 * kChannelPitch;
#pragma unroll
    for (int i = 0; i < kTiles; ++i) {
      const int lower = row_offset[i][0];  // row g + 8: the same q in the second image
      const float raw[4] = {a_lo_ci[lower], a_lo_ci[lower + kPitchImage], a_hi_ci[lower],
                            a_hi_ci[lower + kPitchImage]};
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        if constexpr (kPlanes == 1) {
          frag[0][i][r] = __float_as_uint(raw[r]);  // rounded to TF32 when staged
        } else if constexpr (!kBf16Correction) {
          frag[0][i][r] = kg::cvt_rna_tf32(raw[r]);
          frag[1][i][r] = kg::cvt_rna_tf32(raw[r] - __uint_as_float(frag[0][i][r]));
        } else {
          frag[0][i][r] = kg::cvt_rna_tf32(raw[r]);
        }
      }
      // raw = rows g, g + 8 at channel t, then at t + 4.
      if constexpr (kBf16Correction) kernels::correction_fragment(raw, frag[0][i], frag[1][i]);
    }
    const std::uint64_t desc_hi = b_desc + ks * kDescPerStep;
    const bool accumulate = !(first_of_class && ks == 0);
    kg::wgmma_fence();
    if constexpr (kPlanes == 1) {
#pragma unroll
      for (int i = 0; i < kTiles; ++i)
        kg::wgmma_m64n64k8_tf32(acc[i], frag[0][i], desc_hi, accumulate);
    } else if constexpr (kBf16Correction) {
      // The BF16 plane of this K step lies where 3xTF32's lo plane does.
      const std::uint64_t desc_correction = desc_hi + kDescLoPlane;
#pragma unroll
      for (int i = 0; i < kTiles; ++i)
        kg::wgmma_m64n64k16_bf16(acc[i], frag[1][i], desc_correction, accumulate);
      // PTX orders accumulator accesses only between wgmmas of one shape:
      // the TF32 wgmmas after the BF16 ones need a fence.
      kg::wgmma_fence();
#pragma unroll
      for (int i = 0; i < kTiles; ++i) kg::wgmma_m64n64k8_tf32(acc[i], frag[0][i], desc_hi, true);
    } else {
      const std::uint64_t desc_lo = desc_hi + kDescLoPlane;
#pragma unroll
      for (int i = 0; i < kTiles; ++i)
        kg::wgmma_m64n64k8_tf32(acc[i], frag[1][i], desc_hi, accumulate);
#pragma unroll
      for (int i = 0; i < kTiles; ++i) kg::wgmma_m64n64k8_tf32(acc[i], frag[0][i], desc_lo, true);
#pragma unroll
      for (int i = 0; i < kTiles; ++i) kg::wgmma_m64n64k8_tf32(acc[i], frag[0][i], desc_hi, true);
    }
    kg::wgmma_commit();
  };
  // Two K steps per stage reuse each buffer only across the stage loop, which
  // ptxas cannot follow either (it would serialize every wgmma): there, too,
  // the first step waits for everything.
  constexpr bool kDrainFirst = kSteps % 2 == 1 || kSteps == 2;
  constexpr int kBuffers = kABuffers<kPlanes>;
#pragma unroll
  for (int ks = 0; ks < kSteps; ++ks) {
    if (kBuffers == 1 || (ks == 0 && kDrainFirst))
      kg::wgmma_wait<0>();
    else
      kg::wgmma_wait<1>();
    k_step(a_frag[ks % kBuffers], ks);
  }
}

// One CTA: images [kImages * pair, kImages * pair + kImages), pooled blocks
// [2 tj, 2 tj + 2) per dimension, all output channels (in groups of 64).
// kPlanes = 1: TF32; 2: 3xTF32. kImages = 1 or 2: the CTA shape (CtaShape).
// kWgmmaSteps > 0: the paired shape on wgmma instead of mma.sync, for
// in_channels = 8 kWgmmaSteps. kBf16Correction: plane 1 and the wgmmas of
// the TF32 + BF16 correction form (wgmma_stage).
template <int kPlanes, int kImages, int kWgmmaSteps = 0, bool kBf16Correction = false>
__global__ void __launch_bounds__(CtaShape<kPlanes, kImages, (kWgmmaSteps > 0)>::kThreads,
                                  CtaShape<kPlanes, kImages, (kWgmmaSteps > 0)>::kCtasPerSm)
    fused_conv_pool_sum(const float* __restrict__ x, const float* __restrict__ packed,
                        const float* __restrict__ bias, float* __restrict__ y, Geometry geo) {
  constexpr bool kWgmma = kWgmmaSteps > 0;
  using Shape = CtaShape<kPlanes, kImages, kWgmma>;
  constexpr int kThreads = Shape::kThreads;
  constexpr int kStages = Shape::kStages;
  constexpr int kChannelPitch = Shape::kChannelPitch;
  constexpr int kMaxTiles = Shape::kMaxTiles;
  KG_DYNAMIC_SMEM(float, smem);
  const int cin = geo.in_channels;
  float* tile = smem;  // [cin][kImages][kPitchImage], channel pitch kChannelPitch
  // Weight stages: [kStages][planes][cin][72], or with wgmma [kStages] of the
  // K-major [cin / 4][64][4] (pack_weights).
  float* stages = tile + static_cast<std::size_t>(cin) * kChannelPitch;
  const int stage_pitch = kPlanes * cin * Shape::kWeightRow;
  int* maxima = reinterpret_cast<int*>(stages + kStages * stage_pitch);  // [kBlocks][64]

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
  const int n0 = (rest / geo.tiles_d) * kImages;
  const int j0d = tjd * kBlocksPerDim, j0h = tjh * kBlocksPerDim, j0w = tjw * kBlocksPerDim;
  // Input position of tile index 0: conv output 6j + 2q + p reads input
  // 3j + q + 1 - u, so the tile starts at 3 j0 - 1 and index 3 b + q + 2 - u.
  const int i0d = 3 * j0d - 1, i0h = 3 * j0h - 1, i0w = 3 * j0w - 1;

  for (int i = tid; i < Shape::kBlocks * kCoGroup; i += kThreads)
    maxima[i] = ordered_key(-INFINITY);

  // Input tile, zero outside the input and for a missing second image (those
  // rows are computed on zeros and never written).
  const int hw = geo.height * geo.width;
  const int tile_elems = cin * kTileSide * kTileSide * kTileSide;
  auto tile_offset = [](int e) {
    const int ci = e >> 9, ld = (e >> 6) & 7, lh = (e >> 3) & 7, lw = e & 7;
    return ci * kChannelPitch + ld * kPitchD + lh * kPitchH + lw;
  };
  for (int image = 0; image < kImages; ++image) {
    const bool image_exists = n0 + image < geo.batch;
    const float* x_image =
        x + static_cast<std::size_t>(image_exists ? n0 + image : 0) * cin * geo.depth * hw;
    for (int e = tid; e < tile_elems; e += kThreads) {
      const int ci = e >> 9, id = i0d + ((e >> 6) & 7), ih = i0h + ((e >> 3) & 7),
                iw = i0w + (e & 7);
      const bool inside = image_exists && id >= 0 && id < geo.depth && ih >= 0 &&
                          ih < geo.height && iw >= 0 && iw < geo.width;
      const float* src = inside ? x_image + (static_cast<std::size_t>(ci) * geo.depth + id) * hw +
                                      ih * geo.width + iw
                                : x_image;
      kg::cp_async<4>(tile + image * kPitchImage + tile_offset(e), src, inside ? 4 : 0);
    }
  }

  // Weight stream: stage s of this CTA's pass is packed[s * stage_floats],
  // held in buffer s mod kStages; kStages - 1 stages are loaded ahead.
  const int stage_floats_ = kPlanes * cin * kCoGroup;
  const int groups = geo.out_channels / kCoGroup;
  const int total_steps = groups * kTaps;
  auto load_stage = [&](int step, int buffer) {
    const float* src = packed + static_cast<std::size_t>(step) * stage_floats_;
    float* dst = stages + buffer * stage_pitch;
    for (int chunk = tid; chunk < stage_floats_ / 4; chunk += kThreads) {
      const int row = chunk >> 4, col = (chunk & 15) * 4;  // row = plane * cin + ci
      kg::cp_async<16>(dst + (kWgmma ? chunk * 4 : row * kWeightPitch + col), src + chunk * 4);
    }
  };
  // One commit group per stage; the first also carries the input tile.
  for (int s = 0; s < Shape::kPrefetch; ++s) {
    if (s < total_steps) load_stage(s, s);
    kg::cp_async_commit();
  }
  kg::cp_async_wait<Shape::kPrefetch - 1>();  // the input tile and stage 0
  if constexpr (kPlanes == 1) {
    // Round the input to TF32 once here instead of at every fragment load.
    for (int image = 0; image < kImages; ++image)
      for (int e = tid; e < tile_elems; e += kThreads) {
        float* p = tile + image * kPitchImage + tile_offset(e);
        *p = kg::round_to_tf32(*p);
      }
  }
  if constexpr (kWgmma) kg::fence_proxy_async_shared();  // stage 0 for the async proxy
  __syncthreads();

  // Rows of this thread, in its warp's m16 tiles first_tile + i: row g and
  // row g + 8, both of block g. Single image: q = 2 (first_tile + i) and
  // q + 1 (q = 27 is padding). Paired: q = first_tile + i, in image 0 and 1;
  // with wgmma q = 4 (2 i + warpgroup) + warp % 4 (CtaShape; q = 27 is
  // padding). Offsets of tap u = 0 in the tile.
  const int tiles = kImages == 2 ? (warp < (kWgmma ? 4 : 3) ? 4 : 3) : 2;
  const int first_tile = kImages == 2 ? (warp < 3 ? 4 * warp : 3 * warp + 3) : 2 * warp;
  const int bd = (g >> 2) & 1, bh = (g >> 1) & 1, bw = g & 1;
  int row_offset[kMaxTiles][2];
  bool row_valid[kMaxTiles][2];
#pragma unroll
  for (int i = 0; i < kMaxTiles; ++i)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int q = kWgmma            ? 4 * (2 * i + (warp >> 2)) + (warp & 3)
                    : kImages == 2 ? first_tile + i
                                   : 2 * (first_tile + i) + half;
      const int image = kImages == 2 ? half : 0;
      row_valid[i][half] = i < tiles && q < kRowsPerBlock;
      const int qq = row_valid[i][half] ? q : 0;
      const int qd = qq / 9, qh = (qq / 3) % 3, qw = qq % 3;
      row_offset[i][half] = image * kPitchImage + (3 * bd + qd + 2) * kPitchD +
                            (3 * bh + qh + 2) * kPitchH + (3 * bw + qw + 2);
    }

  float acc[kMaxTiles][kNTiles][4];
  // wgmma's A fragments: they must outlive the wgmma that reads them.
  [[maybe_unused]] std::uint32_t a_frag[kABuffers<kPlanes>][kPlanes][kMaxTiles][4];
  float block_max[kImages][kNTiles][2];
  float channel_sum = 0.f;  // threads 0..kBlocks-1: the output of block tid
  int step = 0;
  int read_buffer = 0, write_buffer = Shape::kPrefetch;
  // The B descriptor of buffer 0 (1024 bytes to the next 4 input channels,
  // 128 to the next 8 output channels); buffer b is stage_pitch * 4 b bytes on.
  [[maybe_unused]] std::uint64_t stages_desc = 0;
  if constexpr (kWgmma) stages_desc = kg::smem_matrix_descriptor(stages, 4 * kCoGroup * 4, 128);
  for (int group = 0; group < groups; ++group) {
#pragma unroll
    for (int image = 0; image < kImages; ++image)
#pragma unroll
      for (int nt = 0; nt < kNTiles; ++nt)
        block_max[image][nt][0] = block_max[image][nt][1] = -INFINITY;
    for (int cls = 0; cls < 8; ++cls) {
      const int nd = 3 - ((cls >> 2) & 1), nh = 3 - ((cls >> 1) & 1), nw = 3 - (cls & 1);
      if constexpr (!kWgmma) {  // wgmma starts each class with D = A B instead
#pragma unroll
        for (int i = 0; i < kMaxTiles; ++i)
#pragma unroll
          for (int nt = 0; nt < kNTiles; ++nt)
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[i][nt][r] = 0.f;
      }
      for (int ud = 0; ud < nd; ++ud)
        for (int uh = 0; uh < nh; ++uh)
          for (int uw = 0; uw < nw; ++uw, ++step) {
            if (step + Shape::kPrefetch < total_steps)
              load_stage(step + Shape::kPrefetch, write_buffer);
            kg::cp_async_commit();
            const int tap_offset = ud * kPitchD + uh * kPitchH + uw;
            const float* a_base = tile + t * kChannelPitch - tap_offset;
            const float* b_base = stages + read_buffer * stage_pitch + t * kWeightPitch + g;
            // Warp-uniform choice of the warp's tile count (paired shape).
            if constexpr (kWgmma) {
              const std::uint64_t b_desc =
                  stages_desc + static_cast<std::uint64_t>(read_buffer * stage_pitch * 4 / 16);
              const bool first_of_class = ud == 0 && uh == 0 && uw == 0;
              if (tiles == kMaxTiles)
                wgmma_stage<kPlanes, kMaxTiles, kMaxTiles, kWgmmaSteps, kBf16Correction>(
                    acc, a_frag, a_base, row_offset, b_desc, first_of_class);
              else
                wgmma_stage<kPlanes, Shape::kMinTiles, kMaxTiles, kWgmmaSteps, kBf16Correction>(
                    acc, a_frag, a_base, row_offset, b_desc, first_of_class);
            } else if constexpr (Shape::kMinTiles == kMaxTiles) {
              mma_stage<kPlanes, kMaxTiles, kMaxTiles, kChannelPitch, Shape::kHalfRowDelta>(
                  acc, a_base, row_offset, b_base, cin);
            } else if (tiles == kMaxTiles) {
              mma_stage<kPlanes, kMaxTiles, kMaxTiles, kChannelPitch, Shape::kHalfRowDelta>(
                  acc, a_base, row_offset, b_base, cin);
            } else {
              mma_stage<kPlanes, Shape::kMinTiles, kMaxTiles, kChannelPitch, Shape::kHalfRowDelta>(
                  acc, a_base, row_offset, b_base, cin);
            }
            kg::cp_async_wait<Shape::kPrefetch - 1>();  // this thread's part of the next stage landed
            if constexpr (kWgmma) kg::fence_proxy_async_shared();  // ...also for the async proxy
            // The next stage is visible. mma.sync: this one may be overwritten.
            // wgmma: every thread has completed the stage two back (wgmma_stage),
            // whose buffer the next iteration refills.
            __syncthreads();
            read_buffer = read_buffer + 1 == kStages ? 0 : read_buffer + 1;
            write_buffer = write_buffer + 1 == kStages ? 0 : write_buffer + 1;
          }
      if constexpr (kWgmma) kg::wgmma_wait<0>();  // the class's accumulators are final
      // Max of this class's outputs into the per-thread block maxima.
#pragma unroll
      for (int i = 0; i < kMaxTiles; ++i)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          if (!row_valid[i][half]) continue;
          const int image = kImages == 2 ? half : 0;
#pragma unroll
          for (int nt = 0; nt < kNTiles; ++nt) {
            block_max[image][nt][0] = fmaxf(block_max[image][nt][0], acc[i][nt][2 * half]);
            block_max[image][nt][1] = fmaxf(block_max[image][nt][1], acc[i][nt][2 * half + 1]);
          }
        }
    }
    // Across warps: exact integer max.
#pragma unroll
    for (int image = 0; image < kImages; ++image)
#pragma unroll
      for (int nt = 0; nt < kNTiles; ++nt) {
        int* column = &maxima[(image * kBlocksPerImage + g) * kCoGroup + nt * 8 + 2 * t];
        atomicMax(column, ordered_key(block_max[image][nt][0]));
        atomicMax(column + 1, ordered_key(block_max[image][nt][1]));
      }
    __syncthreads();
    if (tid < Shape::kBlocks) {
      // Fixed channel order: deterministic. Bias commutes with the max.
      const float* group_bias = bias + group * kCoGroup;
      for (int c = 0; c < kCoGroup; ++c) {
        channel_sum += key_value(maxima[tid * kCoGroup + c]) + group_bias[c];
        maxima[tid * kCoGroup + c] = ordered_key(-INFINITY);  // next group; read again after barriers
      }
    }
    __syncthreads();
  }
  if (tid < Shape::kBlocks) {
    const int n = n0 + tid / kBlocksPerImage, block = tid % kBlocksPerImage;
    const int jd = j0d + ((block >> 2) & 1), jh = j0h + ((block >> 1) & 1), jw = j0w + (block & 1);
    if (n < geo.batch && jd < geo.pooled_d && jh < geo.pooled_h && jw < geo.pooled_w)
      y[((static_cast<std::size_t>(n) * geo.pooled_d + jd) * geo.pooled_h + jh) * geo.pooled_w + jw] =
          channel_sum;
  }
}

template <int kPlanes, int kImages, int kWgmmaSteps = 0, bool kBf16Correction = false>
void launch_main_kernel(const LaunchArgs& args, const Geometry& geo, const float* packed) {
  constexpr bool kWgmma = kWgmmaSteps > 0;
  using Shape = CtaShape<kPlanes, kImages, kWgmma>;
  const std::size_t smem = dynamic_smem_bytes(geo.in_channels, kPlanes, kImages, kWgmma);
  constexpr auto kernel = fused_conv_pool_sum<kPlanes, kImages, kWgmmaSteps, kBf16Correction>;
  kg::set_max_dynamic_smem(kernel, smem);
  const unsigned image_groups = static_cast<unsigned>((geo.batch + kImages - 1) / kImages);
  const unsigned ctas = image_groups * geo.tiles_d * geo.tiles_h * geo.tiles_w;
  kg::launch(kernel, dim3(ctas), dim3(Shape::kThreads), smem, args.stream, args.in("x"), packed,
             args.in("bias"), args.output, geo);
}

// The wgmma kernel for in_channels = 8 (TF32 only), 16, 24 or 32: all the
// paired shape holds. A template, so that only the candidate that calls it
// compiles it.
template <int kPlanes, bool kBf16Correction = false>
void launch_wgmma_kernel(const LaunchArgs& args, const Geometry& geo, const float* packed) {
  if constexpr (kPlanes == 1)
    if (geo.in_channels == kCiStep) return launch_main_kernel<kPlanes, 2, 1>(args, geo, packed);
  switch (geo.in_channels / kCiStep) {
    case 2: return launch_main_kernel<kPlanes, 2, 2, kBf16Correction>(args, geo, packed);
    case 3: return launch_main_kernel<kPlanes, 2, 3, kBf16Correction>(args, geo, packed);
    case 4: return launch_main_kernel<kPlanes, 2, 4, kBf16Correction>(args, geo, packed);
  }
  throw Error("the paired wgmma kernel has no instance for " + std::to_string(geo.in_channels) +
              " input channels");
}

// Packs the weights into the workspace (K-major for the wgmma kernel), then
// runs the fused kernel in the CTA shape images_per_cta chooses. kWgmma:
// the paired shape on wgmma; the single-image shape stays on mma.sync (3xTF32
// there also for kBf16Correction).
template <int kPlanes, bool kWgmma = false, bool kBf16Correction = false>
void launch_fused(const LaunchArgs& args) {
  static_assert(!kBf16Correction || (kPlanes == 2 && kWgmma),
                "the BF16 correction is a form of the two-plane wgmma kernel");
  const Geometry geo = geometry_of(
      static_cast<int>(args.axis("batch_size")), static_cast<int>(args.axis("in_channels")),
      static_cast<int>(args.axis("out_channels")), static_cast<int>(args.axis("depth")),
      static_cast<int>(args.axis("height")), static_cast<int>(args.axis("width")));
  float* packed = static_cast<float*>(args.workspace);
  const long long packed_floats = static_cast<long long>(
      packed_weight_bytes(geo.in_channels, geo.out_channels, kPlanes) / sizeof(float));
  constexpr int kPackThreads = 256;
  const dim3 pack_grid(static_cast<unsigned>((packed_floats + kPackThreads - 1) / kPackThreads));
  auto pack = [&](auto kernel) {
    kg::launch(kernel, pack_grid, dim3(kPackThreads), 0, args.stream, args.in("weight"), packed,
               geo.in_channels, geo.out_channels, packed_floats);
  };
  if constexpr (has_paired_shape(kPlanes, kWgmma)) {
    if (images_per_cta(kPlanes, geo.batch, geo.in_channels, kWgmma) == 2) {
      pack(pack_weights<kPlanes, kWgmma, kBf16Correction>);
      if constexpr (kWgmma)
        launch_wgmma_kernel<kPlanes, kBf16Correction>(args, geo, packed);
      else
        launch_main_kernel<kPlanes, 2>(args, geo, packed);
      return;
    }
  }
  pack(pack_weights<kPlanes, false>);
  launch_main_kernel<kPlanes, 1>(args, geo, packed);
}

// A fused candidate's registration: what it supports, its workspace (the
// packed weights) and its launch follow from kPlanes, kWgmma and
// kBf16Correction.
template <int kPlanes, bool kWgmma, bool kBf16Correction = false>
Candidate fused_candidate(const char* precision, const char* summary) {
  return Candidate{
      .precision = precision,
      .summary = summary,
      .unsupported_reason =
          [](const Axes& axes) {
            // Two planes are the FP32-labelled forms (3xTF32, the BF16 correction).
            int max_channels =
                kPlanes == 1 ? 0 : (kBf16Correction ? kMaxBf16CorrectionChannels : kMax3xTf32Channels);
            // Where the BF16 correction falls back to 3xTF32's single-image
            // kernel (one image), 3xTF32's bound holds: at 32 channels that
            // kernel kept 2.7x headroom, under the 3x the bound promises.
            bool fallback = false;
            if constexpr (kBf16Correction) {
              const auto batch = axes.find("batch_size"), cin = axes.find("in_channels");
              fallback = batch != axes.end() && cin != axes.end() &&
                         images_per_cta(kPlanes, static_cast<int>(batch->second), static_cast<int>(cin->second),
                                        kWgmma) != 2;
              if (fallback) max_channels = kMax3xTf32Channels;
            }
            const std::string reason = unsupported_reason(axes, kPlanes, max_channels);
            return fallback && !reason.empty() && reason.rfind("in_channels = ", 0) == 0
                       ? reason + " (with one image it runs fused_3xtf32's kernel)"
                       : reason;
          },
      .workspace_bytes =
          [](const Axes& axes) {
            return packed_weight_bytes(static_cast<int>(axes.at("in_channels")),
                                       static_cast<int>(axes.at("out_channels")), kPlanes);
          },
      .launch =
          [](const LaunchArgs& args) { launch_fused<kPlanes, kWgmma, kBf16Correction>(args); },
      // The wgmma forms run on sm_90a alone (kernelgate/candidate.hpp).
      .needs = kWgmma ? needs_sm_90a("wgmma") : ArchitectureNeed{},
  };
}

}  // namespace kg::l2_078
