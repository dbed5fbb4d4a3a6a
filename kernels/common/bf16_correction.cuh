#pragma once
// TF32 with a BF16 correction: FP32-level products at two thirds of 3xTF32's
// tensor time (docs/kernels/l1_071.md, "TF32 with a BF16 correction").
//
// With a = a_hi + a_lo and b = b_hi + b_lo split at TF32, a kernel computes
// a_hi b_hi on TF32 (wgmma k8) and the two correction terms a_lo b_hi +
// a_hi b_lo of the same 8 input channels as one BF16 product A' B' of K = 16
// (wgmma k16): A' = [a_lo | a_hi] and B' = [b_hi ; b_lo] along K. Within each
// half of K, k' % 8 = 2c is channel c and 2c + 1 channel c + 4 (c < 4): a
// thread's TF32 A fragment holds channels t and t + 4, exactly the pair its
// BF16 registers need (k' = 2t, 2t + 1 and 2t + 8, 2t + 9 in the m16n8k16
// layout), so both products come from the same loads. A and B must use this
// same order; these helpers are that order.
#include <cstdint>

#include "kernelgate/ptx.hpp"

namespace kg::kernels {

// The input channel (of the 8) at index k' of A' and B'.
__host__ __device__ constexpr int correction_channel(int k_prime) {
  return (k_prime % 8) / 2 + 4 * (k_prime % 2);
}

// B' at k': b_hi where A' holds a_lo (k' < 8), b_lo where it holds a_hi.
__device__ __forceinline__ float correction_weight(float b, int k_prime) {
  const float hi = kg::round_to_tf32(b);
  return k_prime < 8 ? hi : b - hi;
}

// A' of one thread from its TF32 fragment: raw = the four FP32 values (rows
// g and g + 8 at channel t, then at channel t + 4), hi_bits = their TF32
// rounding (the TF32 fragment).
__device__ __forceinline__ void correction_fragment(const float (&raw)[4],
                                                    const std::uint32_t (&hi_bits)[4],
                                                    std::uint32_t (&out)[4]) {
  float hi[4], lo[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    hi[r] = __uint_as_float(hi_bits[r]);
    lo[r] = raw[r] - hi[r];
  }
  out[0] = kg::pack_bf16x2(lo[0], lo[2]);  // row g: lo at k' = 2t, 2t + 1
  out[1] = kg::pack_bf16x2(lo[1], lo[3]);  // row g + 8
  out[2] = kg::pack_bf16x2(hi[0], hi[2]);  // row g: hi at k' = 2t + 8, 2t + 9
  out[3] = kg::pack_bf16x2(hi[1], hi[3]);  // row g + 8
}

}  // namespace kg::kernels
