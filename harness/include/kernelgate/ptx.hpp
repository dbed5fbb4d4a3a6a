#pragma once
// The PTX instructions candidates may use, as kg:: functions with an inline-PTX
// body under nvcc and an exact host body in interpret mode (KG_INTERPRET).
// Kernels never write inline PTX themselves (docs/interpret-mode.md).
//
//   std::uint32_t kg::cvt_rna_tf32(float x)   cvt.rna.tf32.f32: the tf32 bit
//       pattern (low 13 bits zero) as a .b32 register, ready for the mma.
//       kg::tf32_to_float gives it back as a float (e.g. for 3xTF32 splits).
//   float kg::round_to_tf32(float x)          both at once: x rounded to TF32,
//       as a float (the hi part of a split; x - hi is the remainder).
//   kg::mma_m16n8k8_tf32(d, a, b, c)          mma.sync.aligned.m16n8k8.row.col
//       .f32.tf32.tf32.f32, warp-collective: every lane of the warp calls it.
//       A (16x8, row), B (8x8, col), C/D (16x8) in the PTX fragment layouts:
//       with g = lane / 4, t = lane % 4,
//         a0=A[g][t] a1=A[g+8][t] a2=A[g][t+4] a3=A[g+8][t+4]
//         b0=B[t][g] b1=B[t+4][g]
//         c0=C[g][2t] c1=C[g][2t+1] c2=C[g+8][2t] c3=C[g+8][2t+1]
//       The host body ignores the low 13 bits of a and b, forms every product
//       exactly (in double), sums each row-column in double starting from c,
//       and rounds once to float.
//   kg::cp_async<Bytes>(smem_dst, gmem_src, src_bytes)   cp.async (Bytes = 4,
//       8 or 16): copies src_bytes bytes and zero-fills the rest of Bytes.
//       kg::cp_async_commit(), kg::cp_async_wait<N>(), kg::cp_async_wait_all().
//       In interpret mode the destination is poisoned at the issue and the
//       copies happen at the wait that covers them, so reading the
//       destination before that wait reads poison.
//   kg::fence_proxy_async_shared()   fence.proxy.async.shared::cta: makes this
//       thread's generic-proxy writes to shared memory (stores, cp.async after
//       its wait) visible to the async proxy that wgmma reads through. Each
//       writer fences, then a barrier, then the wgmma.
//   wgmma (sm_90a; docs/interpret-mode.md, "wgmma"):
//   kg::smem_matrix_descriptor(smem, lbo_bytes, sbo_bytes)   the 64-bit
//       descriptor of a K-major operand in dynamic shared memory without
//       swizzle: core matrices of 8 rows x 16 bytes (4 tf32), each row's 16
//       bytes contiguous and the 8 rows 16 bytes apart (128 contiguous bytes);
//       lbo_bytes from one core matrix to the next along K, sbo_bytes to the
//       next along M or N. Element (row r, k) of the operand is at
//       smem + (r / 8) sbo + (r % 8) 16 + (k / 4) lbo + (k % 4) 4 bytes. All
//       three must be multiples of 16. Adding j to the descriptor moves its
//       start by 16 j bytes.
//   kg::wgmma_m64n64k8_tf32(d, a, b_desc, accumulate)   wgmma.mma_async
//       .sync.aligned.m64n64k8.f32.tf32.tf32 with A from registers:
//       warpgroup-collective (the 4 warps 4w..4w+3 of the block each call it),
//       D (64x64) = A (64x8) * B (8x64) + (accumulate ? D : 0). Warp w % 4
//       holds rows 16 (w % 4) .. +15 of A and D, in the mma.m16n8k8 layouts:
//         a0=A[g][t] a1=A[g+8][t] a2=A[g][t+4] a3=A[g+8][t+4]
//         d[j][0]=D[g][8j+2t] d[j][1]=D[g][8j+2t+1] d[j][2]=D[g+8][8j+2t]
//         d[j][3]=D[g+8][8j+2t+1]   (j = 0..7: the n8 blocks)
//       B[k][n] is element (n, k) of the K-major descriptor b_desc. It runs
//       asynchronously: d must not be read, nor a written, until a
//       wgmma_wait that covers it; a later wgmma may accumulate into the same
//       d without waiting.
//   kg::wgmma_m64n32k8_tf32(d, a, b_desc, accumulate)   the same with N = 32:
//       d is float[4][4] (j = 0..3), B is 8x32.
//   kg::wgmma_m64n32k16_bf16(d, a, b_desc, accumulate)   wgmma.mma_async
//       .sync.aligned.m64n32k16.f32.bf16.bf16 with A from registers: D (64x32)
//       = A (64x16) * B (16x32) + (accumulate ? D : 0), FP32 accumulators as
//       above. Each A register holds two bf16 (kg::pack_bf16x2), the lower
//       k in bits 0-15, in the mma.m16n8k16 layout:
//         a[0]=A[g][2t,2t+1] a[1]=A[g+8][2t,2t+1] a[2]=A[g][2t+8,2t+9]
//         a[3]=A[g+8][2t+8,2t+9]
//       B is 16-bit and K-major: a core matrix row is 8 elements (16 bytes),
//       so element (n, k) is at smem + (n / 8) sbo + (n % 8) 16 +
//       (k / 8) lbo + (k % 8) 2 bytes.
//   kg::wgmma_m64n64k16_bf16(d, a, b_desc, accumulate)   the same with N = 64:
//       d is float[8][4].
//   std::uint32_t kg::pack_bf16x2(float low, float high)   cvt.rn.bf16x2.f32:
//       both rounded to bf16 (to nearest, ties to even), `low` in bits 0-15.
//   kg::wgmma_fence()    wgmma.fence: before the first wgmma, and between any
//       other access to a or d registers and the next wgmma.
//   kg::wgmma_commit()   wgmma.commit_group: the wgmmas issued since the last
//       commit form a group.
//   kg::wgmma_wait<N>()  wgmma.wait_group N: all but the N most recent groups
//       are complete (their d written, their operands released).
#include <cstdint>

#include "kernelgate/arch.hpp"

#if defined(KG_INTERPRET)
#include <bit>
#include <source_location>

#include "kernelgate/interpret/runtime.hpp"
#define KG_PTX_FUNCTION inline
#else
#include <cuda_runtime.h>
#define KG_PTX_FUNCTION __device__ __forceinline__
#endif

namespace kg {

#if defined(KG_INTERPRET)
namespace interp {
// Host bodies (harness/interpret/ptx_host.cpp).
void mma_m16n8k8_tf32(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                      const float (&c)[4], const std::source_location& where);
void cp_async(void* smem_dst, const void* gmem_src, int bytes, int src_bytes,
              const std::source_location& where);
void cp_async_commit();
void cp_async_wait(int pending_groups);
void fence_proxy_async_shared();
// wgmma (harness/interpret/wgmma_host.cpp).
std::uint64_t smem_matrix_descriptor(const void* smem, std::uint32_t lbo_bytes,
                                     std::uint32_t sbo_bytes, const std::source_location& where);
// What a wgmma multiplies: tf32 (K = 8) or bf16 (K = 16).
enum class WgmmaInput : unsigned char { tf32, bf16 };
// D (64 x n, this lane's n / 2 floats at d) = A * B (K x n) [+ D], n = 32 or 64.
void wgmma(float* d, int n, WgmmaInput input, const std::uint32_t (&a)[4], std::uint64_t b_desc,
           bool accumulate, const std::source_location& where);
void wgmma_fence();
void wgmma_commit();
void wgmma_wait(int pending_groups, const std::source_location& where);
}  // namespace interp
#endif

// ---- cvt.rna.tf32.f32 ----
KG_PTX_FUNCTION std::uint32_t cvt_rna_tf32(float x) {
#if defined(KG_INTERPRET)
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  if ((bits & 0x7f800000u) == 0x7f800000u) return bits;  // Inf and NaN unchanged
  // Round to nearest, ties away from zero, on the magnitude: add half an ulp
  // of the kept 10-bit mantissa, then drop the 13 low bits. A carry runs into
  // the exponent (and up to Inf), as it should.
  return (bits + 0x1000u) & 0xffffe000u;
#else
  std::uint32_t result;
  asm volatile("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(result) : "f"(x));
  return result;
#endif
}

KG_PTX_FUNCTION float tf32_to_float(std::uint32_t bits) {
#if defined(KG_INTERPRET)
  return std::bit_cast<float>(bits);
#else
  return __uint_as_float(bits);
#endif
}

KG_PTX_FUNCTION float round_to_tf32(float x) { return tf32_to_float(cvt_rna_tf32(x)); }

// ---- cvt.rn.bf16x2.f32 ----
#if defined(KG_INTERPRET)
namespace interp {
// x rounded to bf16 (the high 16 bits of a float), to nearest with ties to
// even; NaN stays a (quiet) NaN, Inf stays Inf.
inline std::uint32_t bf16_bits(float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  if ((bits & 0x7f800000u) == 0x7f800000u)
    return (bits >> 16) | ((bits & 0x007fffffu) != 0 ? 0x0040u : 0u);
  return (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
}
}  // namespace interp
#endif
KG_PTX_FUNCTION std::uint32_t pack_bf16x2(float low, float high) {
#if defined(KG_INTERPRET)
  return interp::bf16_bits(low) | interp::bf16_bits(high) << 16;
#else
  // cvt puts its first source in the upper half.
  std::uint32_t result;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(result) : "f"(high), "f"(low));
  return result;
#endif
}

// ---- mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 ----
#if defined(KG_INTERPRET)
inline void mma_m16n8k8_tf32(float (&d)[4], const std::uint32_t (&a)[4],
                             const std::uint32_t (&b)[2], const float (&c)[4],
                             std::source_location where = std::source_location::current()) {
  interp::mma_m16n8k8_tf32(d, a, b, c, where);
}
#else
KG_PTX_FUNCTION void mma_m16n8k8_tf32(float (&d)[4], const std::uint32_t (&a)[4],
                                      const std::uint32_t (&b)[2], const float (&c)[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
        "f"(c[2]), "f"(c[3]));
}
#endif

// ---- cp.async ----
#if defined(KG_INTERPRET)
template <int Bytes>
inline void cp_async(void* smem_dst, const void* gmem_src, int src_bytes = Bytes,
                     std::source_location where = std::source_location::current()) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
  interp::cp_async(smem_dst, gmem_src, Bytes, src_bytes, where);
}
inline void cp_async_commit() { interp::cp_async_commit(); }
template <int N>
inline void cp_async_wait() {
  static_assert(N >= 0, "cp.async.wait_group takes a non-negative group count");
  interp::cp_async_wait(N);
}
inline void cp_async_wait_all() { interp::cp_async_wait(0); }
#else
template <int Bytes>
KG_PTX_FUNCTION void cp_async(void* smem_dst, const void* gmem_src, int src_bytes = Bytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  if constexpr (Bytes == 16) {
    // .cg (bypass L1) exists only for 16-byte copies.
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src),
                 "r"(src_bytes)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(gmem_src),
                 "n"(Bytes), "r"(src_bytes)
                 : "memory");
  }
}
KG_PTX_FUNCTION void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
KG_PTX_FUNCTION void cp_async_wait() {
  static_assert(N >= 0, "cp.async.wait_group takes a non-negative group count");
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
KG_PTX_FUNCTION void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
#endif

// ---- fence.proxy.async and wgmma (sm_90a) ----
#if defined(KG_INTERPRET)
// Interpret mode has one view of shared memory; the fence clears this
// thread's cp.async writes from the check that wgmma operands are fenced.
inline void fence_proxy_async_shared() { interp::fence_proxy_async_shared(); }
inline std::uint64_t smem_matrix_descriptor(
    const void* smem, std::uint32_t lbo_bytes, std::uint32_t sbo_bytes,
    std::source_location where = std::source_location::current()) {
  return interp::smem_matrix_descriptor(smem, lbo_bytes, sbo_bytes, where);
}
inline void wgmma_m64n64k8_tf32(float (&d)[8][4], const std::uint32_t (&a)[4],
                                std::uint64_t b_desc, bool accumulate,
                                std::source_location where = std::source_location::current()) {
  interp::wgmma(&d[0][0], 64, interp::WgmmaInput::tf32, a, b_desc, accumulate, where);
}
inline void wgmma_m64n32k8_tf32(float (&d)[4][4], const std::uint32_t (&a)[4],
                                std::uint64_t b_desc, bool accumulate,
                                std::source_location where = std::source_location::current()) {
  interp::wgmma(&d[0][0], 32, interp::WgmmaInput::tf32, a, b_desc, accumulate, where);
}
inline void wgmma_m64n32k16_bf16(float (&d)[4][4], const std::uint32_t (&a)[4],
                                 std::uint64_t b_desc, bool accumulate,
                                 std::source_location where = std::source_location::current()) {
  interp::wgmma(&d[0][0], 32, interp::WgmmaInput::bf16, a, b_desc, accumulate, where);
}
inline void wgmma_m64n64k16_bf16(float (&d)[8][4], const std::uint32_t (&a)[4],
                                 std::uint64_t b_desc, bool accumulate,
                                 std::source_location where = std::source_location::current()) {
  interp::wgmma(&d[0][0], 64, interp::WgmmaInput::bf16, a, b_desc, accumulate, where);
}
inline void wgmma_fence() { interp::wgmma_fence(); }
inline void wgmma_commit() { interp::wgmma_commit(); }
template <int N>
inline void wgmma_wait(std::source_location where = std::source_location::current()) {
  static_assert(N >= 0, "wgmma.wait_group takes a non-negative group count");
  interp::wgmma_wait(N, where);
}
#else
// wgmma exists only in sm_90a code, fence.proxy.async from sm_90 on
// (kernelgate/arch.hpp). Other targets (sm_80, sm_100a) get a trap in its
// place: the build succeeds, and a candidate that uses wgmma, which its
// registration declares (kg::needs_sm_90a), is never launched there.
#if KG_ARCH_HAS_SM90A
#define KG_WGMMA_ASM(...) asm volatile(__VA_ARGS__)
#else
#define KG_WGMMA_ASM(...) __trap()
#endif
#if KG_ARCH_HAS_SM90
#define KG_SM90_ASM(...) asm volatile(__VA_ARGS__)
#else
#define KG_SM90_ASM(...) __trap()
#endif
// The operand lists of the wgmma asm statements below: the accumulators of
// N = 64 (32 per lane) or N = 32 (16), read and written; then the four A
// registers, the scale-d flag and the B descriptor.
#define KG_WGMMA_D16(d)                                                                   \
  "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), \
      "+f"(d[1][2]), "+f"(d[1][3]), "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]),            \
      "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3])
#define KG_WGMMA_D32(d)                                                                   \
  KG_WGMMA_D16(d), "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]),             \
      "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]), "+f"(d[6][0]),            \
      "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]),            \
      "+f"(d[7][2]), "+f"(d[7][3])
#define KG_WGMMA_SOURCES(a, accumulate, b_desc)                                          \
  "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(static_cast<int>(accumulate)), "l"(b_desc)
KG_PTX_FUNCTION void fence_proxy_async_shared() {
  KG_SM90_ASM("fence.proxy.async.shared::cta;\n" ::: "memory");
}
KG_PTX_FUNCTION std::uint64_t smem_matrix_descriptor(const void* smem, std::uint32_t lbo_bytes,
                                                     std::uint32_t sbo_bytes) {
  // Bits 0-13: start address >> 4; 16-29: leading byte offset >> 4; 32-45:
  // stride byte offset >> 4; base offset (49-51) and swizzle (62-63) zero.
  const auto address = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  return static_cast<std::uint64_t>((address >> 4) & 0x3fffu) |
         static_cast<std::uint64_t>((lbo_bytes >> 4) & 0x3fffu) << 16 |
         static_cast<std::uint64_t>((sbo_bytes >> 4) & 0x3fffu) << 32;
}
KG_PTX_FUNCTION void wgmma_m64n64k8_tf32(float (&d)[8][4], const std::uint32_t (&a)[4],
                                         std::uint64_t b_desc, bool accumulate) {
  KG_WGMMA_ASM(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %36, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "{%32, %33, %34, %35}, %37, p, 1, 1;\n}\n"
      : KG_WGMMA_D32(d)
      : KG_WGMMA_SOURCES(a, accumulate, b_desc));
}
KG_PTX_FUNCTION void wgmma_m64n32k8_tf32(float (&d)[4][4], const std::uint32_t (&a)[4],
                                         std::uint64_t b_desc, bool accumulate) {
  KG_WGMMA_ASM(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %20, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "{%16, %17, %18, %19}, %21, p, 1, 1;\n}\n"
      : KG_WGMMA_D16(d)
      : KG_WGMMA_SOURCES(a, accumulate, b_desc));
}
KG_PTX_FUNCTION void wgmma_m64n32k16_bf16(float (&d)[4][4], const std::uint32_t (&a)[4],
                                          std::uint64_t b_desc, bool accumulate) {
  // Operands after the predicate: scale-a 1, scale-b 1, B not transposed
  // (K-major).
  KG_WGMMA_ASM(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %20, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "{%16, %17, %18, %19}, %21, p, 1, 1, 0;\n}\n"
      : KG_WGMMA_D16(d)
      : KG_WGMMA_SOURCES(a, accumulate, b_desc));
}
KG_PTX_FUNCTION void wgmma_m64n64k16_bf16(float (&d)[8][4], const std::uint32_t (&a)[4],
                                          std::uint64_t b_desc, bool accumulate) {
  KG_WGMMA_ASM(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %36, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "{%32, %33, %34, %35}, %37, p, 1, 1, 0;\n}\n"
      : KG_WGMMA_D32(d)
      : KG_WGMMA_SOURCES(a, accumulate, b_desc));
}
KG_PTX_FUNCTION void wgmma_fence() { KG_WGMMA_ASM("wgmma.fence.sync.aligned;\n" ::: "memory"); }
KG_PTX_FUNCTION void wgmma_commit() {
  KG_WGMMA_ASM("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
KG_PTX_FUNCTION void wgmma_wait() {
  static_assert(N >= 0, "wgmma.wait_group takes a non-negative group count");
  KG_WGMMA_ASM("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
#endif

}  // namespace kg

#undef KG_PTX_FUNCTION
#undef KG_WGMMA_ASM
#undef KG_SM90_ASM
#undef KG_WGMMA_D16
#undef KG_WGMMA_D32
#undef KG_WGMMA_SOURCES
