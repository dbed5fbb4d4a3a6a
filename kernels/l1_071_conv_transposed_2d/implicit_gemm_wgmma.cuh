#pragma once
// The implicit GEMM on wgmma (sm_90a) for stride 1 and kernel size 3, the
// workload's own shape, in TF32, 3xTF32 or TF32 with a BF16 correction;
// implicit_gemm_{tf32,3xtf32,tf32_bf16corr}_wgmma.cu and
// implicit_gemm_tf32_wgmma_8rows.cu register it, and every other shape goes to
// the mma.sync kernel of implicit_gemm.cuh. Design and figures:
// docs/kernels/l1_071.md, "The wgmma variants" and "Tiles of 8 rows".
//
// One warpgroup per block; its tile is kRows (4 or 8) output rows x 64 output
// columns x 32 output channels: one wgmma m64n32 tile per output row, warp w
// owning columns 16w..16w+15 of every row. The weight planes (the TF32
// weights, and the 3xTF32 lo or the BF16 correction plane) stay in shared
// memory (B of the wgmma); only the A fragments (input pixels, with their
// second form) pass through registers. Per tap column, the kRows + 2 staged
// input rows are walked once and each row's fragments feed every output row
// that reads it (taps a = 0..2): with 4 rows, A is read 6 times per tap
// column, not 12.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/bf16_correction.cuh"
#include "l1_071_conv_transposed_2d/implicit_gemm.cuh"

namespace kg::l1_071 {

inline constexpr int kWgThreads = 128;                  // one warpgroup
inline constexpr int kWgCols = 64;                      // output columns: 16 per warp
inline constexpr int kWgKernel = 3;                     // compiled in; stride 1
inline constexpr int kWgInputCols = kWgCols + kWgKernel - 1;  // halo columns: 66
// Staged input rows of a tile of `rows` output rows (one m64 tile each).
__host__ __device__ constexpr int wgmma_input_rows(int rows) { return rows + kWgKernel - 1; }
inline constexpr int kWgRowFloats = staged_row_floats(kWgInputCols);  // 72
// One K step of B (8 input channels x 32 output channels) as a K-major wgmma
// operand without swizzle: core matrices of 8 output channels x 4 input
// channels (128 contiguous bytes); the two K halves of an 8-channel block are
// adjacent (leading byte offset 128), the 4 blocks 256 bytes apart (stride
// byte offset).
inline constexpr int kBPlaneFloats = kCiChunk * kCoTile;  // 256 floats, 1 KB
inline constexpr unsigned kBLeadingBytes = 128;
inline constexpr unsigned kBStrideBytes = 256;
inline constexpr int kBPlaneDescriptorUnits = kBPlaneFloats * 4 / 16;  // descriptor step: 16 B

// Where output channel co, input channel ci (of the chunk) lies in a plane.
__host__ __device__ inline int b_plane_offset(int co, int ci) {
  return (co / 8) * 64 + (ci / 4) * 32 + (co % 8) * 4 + ci % 4;
}

// Weight planes per tap and chunk: the TF32 weights (hi); for 3xTF32 also
// their lo parts; for tf32_bf16 also the BF16 correction plane.
__host__ __device__ constexpr int weight_planes(Precision precision) {
  return precision == Precision::tf32 ? 1 : 2;
}

// Where element (co, k') of a BF16 correction plane lies, in 16-bit units:
// K-major, 8 elements per core-matrix row, the same byte offsets as the TF32
// planes (128 between the K halves, 256 between blocks of 8 channels).
__host__ __device__ constexpr int bf16_plane_offset(int co, int k_prime) {
  return (co / 8) * 128 + (k_prime / 8) * 64 + (co % 8) * 8 + k_prime % 8;
}

// The mma.sync kernel a wgmma candidate runs where its wgmma kernel does not
// apply: tf32_bf16 falls back on 3xTF32.
constexpr Precision mma_sync_precision(Precision precision) {
  return precision == Precision::tf32 ? Precision::tf32 : Precision::tf32x3;
}

// make_plan's geometry with the wgmma tile; the weights are planes of every
// tap and 8-channel chunk: [tap][chunk][plane][256].
template <Precision kPrecision, int kRows>
Plan wgmma_plan(const ConvShape& s) {
  Plan p = make_plan(s, kRows, kWgCols);
  p.weight_floats = p.max_taps * p.max_taps * p.chunks * weight_planes(kPrecision) * kBPlaneFloats;
  p.smem_bytes = (static_cast<std::size_t>(p.weight_floats) + 2 * p.stage_floats) * sizeof(float);
  return p;
}

// Whether the wgmma kernel takes these axes; every other supported shape runs
// on the mma.sync kernel of the same precision.
template <Precision kPrecision, int kRows>
bool wgmma_applies(const ConvShape& s) {
  return s.stride == 1 && s.kernel == kWgKernel &&
         wgmma_plan<kPrecision, kRows>(s).smem_bytes <= kMaxSharedBytes;
}

// Blocks per SM at 32 input channels per group: three for one weight plane
// and 4 rows; two with two planes (shared memory) or 8 rows (registers: 224
// per thread).
__host__ __device__ constexpr int wgmma_blocks_per_sm(Precision precision, int rows) {
  return weight_planes(precision) == 1 && rows == 4 ? 3 : 2;
}

template <Precision kPrecision, int kRows>
__global__ void __launch_bounds__(kWgThreads, wgmma_blocks_per_sm(kPrecision, kRows))
    conv_transpose2d_wgmma(Plan p, const float* __restrict__ x, const float* __restrict__ w,
                           float* __restrict__ y) {
  constexpr int kPlanes = weight_planes(kPrecision);
  constexpr bool kSplit = kPrecision == Precision::tf32x3;
  constexpr bool kBf16Correction = kPrecision == Precision::tf32_bf16;
  constexpr int kInputRows = wgmma_input_rows(kRows);
  // The A buffer of a row step alternates: an even count of steps per chunk
  // keeps the parity running on across chunks and tiles.
  static_assert(kWgKernel * kInputRows % 2 == 0, "odd count of row steps per chunk");
  KG_DYNAMIC_SMEM(float, smem);
  float* weights = smem;                       // [tap][chunk][plane][256], 16-byte aligned
  float* stages = smem + p.weight_floats;      // 2 x stage_floats, double buffer

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const int group = static_cast<int>(blockIdx.y) / p.co_blocks;
  const int co_block = static_cast<int>(blockIdx.y) - group * p.co_blocks;
  const ClassDim dh = class_dim(p.s.height_out, kWgKernel, 1, p.s.padding, 0, kRows);
  const ClassDim dw = class_dim(p.s.width_out, kWgKernel, 1, p.s.padding, 0, kWgCols);
  const int stage_count = stages_of_this_block(p.s.batch * dh.tiles * dw.tiles, p.chunks);
  if (stage_count > 0)
    load_stage<kWgThreads, kInputRows, kWgInputCols>(p, dh, dw, x, group,
                                                     static_cast<int>(blockIdx.x), 0, stages);
  kg::cp_async_commit();

  // The block's weights, flipped, rounded to TF32 (and split as the precision
  // needs) while the first stage is in flight. wgmma reads them through the
  // async proxy: each thread fences its stores (the barrier comes at the
  // first stage).
  // The weight of (tap, input channel ci of the group, output channel co of
  // the block), zero outside the group.
  auto weight = [&](int tap, int ci, int co) {
    const int co_in_group = co_block * kCoTile + co;
    if (ci >= p.cin_group || co_in_group >= p.cout_group) return 0.0f;
    const int kh = class_weight_index(dh, tap / kWgKernel, kWgKernel, 1);
    const int kw = class_weight_index(dw, tap % kWgKernel, kWgKernel, 1);
    return w[((static_cast<std::size_t>(group * p.cin_group + ci) * p.cout_group + co_in_group) *
                  kWgKernel + kh) * kWgKernel + kw];
  };
  auto* weight_words = reinterpret_cast<std::uint32_t*>(weights);
  for (int i = tid; i < p.weight_floats; i += kWgThreads) {
    const int plane = i / kBPlaneFloats;  // (tap * chunks + chunk) * kPlanes + second
    const int slot = i % kBPlaneFloats;
    const bool second = plane % kPlanes != 0;  // the lo or the BF16 correction plane
    const int chunk = (plane / kPlanes) % p.chunks;
    const int tap = plane / kPlanes / p.chunks;
    if (kBf16Correction && second) {
      // Slot s holds the 16-bit elements 2s and 2s + 1: one output channel,
      // k' and k' + 1.
      const int element = 2 * slot;
      const int co = (element / 128) * 8 + (element / 8) % 8;
      const int k_prime = ((element / 64) % 2) * 8 + element % 8;
      float parts[2];
      for (int e = 0; e < 2; ++e)
        parts[e] = kernels::correction_weight(
            weight(tap, chunk * kCiChunk + kernels::correction_channel(k_prime + e), co),
            k_prime + e);
      weight_words[plane * kBPlaneFloats + bf16_plane_offset(co, k_prime) / 2] =
          kg::pack_bf16x2(parts[0], parts[1]);
    } else {
      const int co = slot / kCiChunk;
      const int ci_in_chunk = slot % kCiChunk;
      const float value = weight(tap, chunk * kCiChunk + ci_in_chunk, co);
      const float hi = kg::round_to_tf32(value);
      weights[plane * kBPlaneFloats + b_plane_offset(co, ci_in_chunk)] =
          second ? kg::round_to_tf32(value - hi) : hi;
    }
  }
  kg::fence_proxy_async_shared();

  // acc[row] is the m64n32 tile of output row `row`: n8 block j, fragment e.
  float acc[kRows][kCoTile / 8][4];
  for (auto& row : acc)
    for (auto& block : row)
      for (float& v : block) v = 0.0f;
  // A fragments of one input row, [buffer][hi, second] (TF32: hi only; the
  // second is lo for 3xTF32, the packed BF16 A' for tf32_bf16): a buffer is
  // rewritten only once the group that reads it is complete (wgmma_wait<1>
  // below).
  std::uint32_t frag[2][kPlanes][4];
  const std::uint64_t weights_desc = kg::smem_matrix_descriptor(weights, kBLeadingBytes,
                                                                kBStrideBytes);
  const std::uint64_t tap_units =
      static_cast<std::uint64_t>(p.chunks) * kPlanes * kBPlaneDescriptorUnits;

  for (int stage = 0; stage < stage_count; ++stage) {
    const int chunk = stage % p.chunks;
    const int tile = tile_of_stage(stage, p.chunks);
    if (stage + 1 < stage_count) {
      load_stage<kWgThreads, kInputRows, kWgInputCols>(
          p, dh, dw, x, group, tile_of_stage(stage + 1, p.chunks), (stage + 1) % p.chunks,
          stages + ((stage + 1) & 1) * p.stage_floats);
    }
    kg::cp_async_commit();
    kg::cp_async_wait<1>();  // this stage's copies have landed
    __syncthreads();         // ... everybody's, and the weights (fenced) too

    const float* pixels =
        stages + (stage & 1) * p.stage_floats + staged_column_shift(p, dw) + warp * 16 + g;
    // This lane's 4 A elements of staged input row ir at tap column b.
    auto load_row = [&](int b, int ir, float (&v)[4]) {
      const float* row = pixels + ir * kWgRowFloats + b;
      v[0] = row[t * p.plane_stride];
      v[1] = row[t * p.plane_stride + 8];
      v[2] = row[(t + 4) * p.plane_stride];
      v[3] = row[(t + 4) * p.plane_stride + 8];
    };
    const std::uint64_t chunk_desc =
        weights_desc + static_cast<std::uint64_t>(chunk) * kPlanes * kBPlaneDescriptorUnits;
    float v[4];
    load_row(0, 0, v);
#pragma unroll
    for (int b = 0; b < kWgKernel; ++b) {
#pragma unroll
      for (int ir = 0; ir < kInputRows; ++ir) {
        const int step = b * kInputRows + ir;
        const int buffer = step % 2;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          frag[buffer][0][e] = tf32_bits(v[e]);
          if constexpr (kSplit)
            frag[buffer][kPlanes - 1][e] = tf32_bits(v[e] - __uint_as_float(frag[buffer][0][e]));
        }
        // v = pixels g, g + 8 at channel t, then at channel t + 4.
        if constexpr (kBf16Correction)
          kernels::correction_fragment(v, frag[buffer][0], frag[buffer][1]);
        kg::wgmma_fence();
        // Input row ir feeds output row ir - a through tap row a.
#pragma unroll
        for (int a = 0; a < kWgKernel; ++a) {
          const int out_row = ir - a;
          if (out_row < 0 || out_row >= kRows) continue;
          const std::uint64_t hi_desc =
              chunk_desc + static_cast<std::uint64_t>(a * kWgKernel + b) * tap_units;
          const std::uint64_t second_desc = hi_desc + kBPlaneDescriptorUnits;
          // Small terms first; lo x lo is below FP32 resolution.
          if constexpr (kSplit) {
            kg::wgmma_m64n32k8_tf32(acc[out_row], frag[buffer][1], hi_desc, true);
            kg::wgmma_m64n32k8_tf32(acc[out_row], frag[buffer][0], second_desc, true);
          }
          if constexpr (kBf16Correction) {
            kg::wgmma_m64n32k16_bf16(acc[out_row], frag[buffer][1], second_desc, true);
            // PTX orders accumulator accesses only between wgmmas of one
            // shape: the TF32 wgmma after the BF16 one needs a fence.
            kg::wgmma_fence();
          }
          kg::wgmma_m64n32k8_tf32(acc[out_row], frag[buffer][0], hi_desc, true);
        }
        // The next row's loads are in flight while this thread waits.
        if (step + 1 < kWgKernel * kInputRows)
          load_row((step + 1) / kInputRows, (step + 1) % kInputRows, v);
        kg::wgmma_commit();
        kg::wgmma_wait<1>();  // the previous group, and its A buffer, are done
      }
    }

    if (chunk == p.chunks - 1) {
      kg::wgmma_wait<0>();
      // Each store instruction of a warp writes 4 runs of 8 consecutive
      // floats (pixels g along W, one run per output channel 2t, 2t + 1 of
      // block j): four 32-byte sectors where the runs start on 32 bytes.
      const auto [n, th, tw] = tile_position(tile, dh, dw);
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const int oh = th * kRows + r;
#pragma unroll
        for (int j = 0; j < kCoTile / 8; ++j) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int ow = tw * kWgCols + warp * 16 + g + (e / 2) * 8;
            const int co = co_block * kCoTile + j * 8 + 2 * t + (e % 2);
            if (oh < dh.extent && ow < dw.extent && co < p.cout_group) {
              y[((static_cast<std::size_t>(n) * p.s.out_channels + group * p.cout_group + co) *
                     p.s.height_out + oh) * p.s.width_out + ow] = acc[r][j][e];
            }
            acc[r][j][e] = 0.0f;
          }
        }
      }
    }
    __syncthreads();  // the next iteration's copies overwrite this buffer
  }
  kg::wgmma_wait<0>();
  kg::cp_async_wait_all();
}

// The candidates' launch: the wgmma kernel with tiles of kRows output rows
// where it applies, the mma.sync kernel of the same precision elsewhere.
template <Precision kPrecision, int kRows = 4>
void launch_wgmma(const LaunchArgs& args) {
  const ConvShape s = shape_from_axes(args.axes);
  const std::string reason = unsupported_reason(args.axes);
  if (!reason.empty()) throw Error("l1_071_conv_transposed_2d: " + reason);
  if (!wgmma_applies<kPrecision, kRows>(s)) return launch<mma_sync_precision(kPrecision)>(args);
  Plan p = wgmma_plan<kPrecision, kRows>(s);
  p.vector_loads = rows_are_16_byte_aligned(s, args.in("x"));
  auto kernel = conv_transpose2d_wgmma<kPrecision, kRows>;
  kg::set_max_dynamic_smem(kernel, p.smem_bytes);
  const dim3 grid(persistent_blocks(kernel, kWgThreads, p),
                  static_cast<unsigned>(s.groups * p.co_blocks), 1);
  kg::launch(kernel, grid, dim3(kWgThreads), p.smem_bytes, args.stream, p, args.in("x"),
             args.in("weight"), args.output);
}

// A wgmma variant's registration: implicit_gemm_candidate's, needing sm_90a
// (kernelgate/candidate.hpp): on any other GPU it is not_supported.
inline Candidate wgmma_candidate(const char* precision, const char* summary, void (*launch)(const LaunchArgs&)) {
  Candidate candidate = implicit_gemm_candidate(precision, summary, launch);
  candidate.needs = needs_sm_90a("wgmma");
  return candidate;
}

}  // namespace kg::l1_071
