#pragma once
// The PTX instructions candidates may use, as kg:: functions with an inline-PTX
// body under nvcc and an exact host body in interpret mode (KG_INTERPRET).
// Kernels never write inline PTX themselves (docs/interpret-mode.md).
//
//   std::uint32_t kg::cvt_rna_tf32(float x)   cvt.rna.tf32.f32: the tf32 bit
//       pattern (low 13 bits zero) as a .b32 register, ready for the mma.
//       kg::tf32_to_float gives it back as a float (e.g. for 3xTF32 splits).
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
//       In interpret mode the copies happen at the wait that covers them, so
//       reading the destination before that wait reads poison.
#include <cstdint>

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

}  // namespace kg

#undef KG_PTX_FUNCTION
