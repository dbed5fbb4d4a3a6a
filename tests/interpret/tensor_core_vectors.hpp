#pragma once
// Test vectors for the tensor-core arithmetic of interpret mode, in the manner
// of Fasi et al. (PeerJ CS, 2021) and Khattak and Mikaitis (arXiv 2512.07004):
// each one dot product c + sum a[i] b[i] whose result tells one feature of the
// hardware's block FMA apart. `hopper` is what the model of the H100's tensor
// cores gives (and what the GPU test expects of the hardware), `nearest`
// what rounding the exact sum once gives. Operands are exact TF32 (k = 8) or
// BF16 (k = 16) values; entries past those listed are zero.
#include <array>
#include <cmath>

namespace kg::test {

struct TensorCoreVector {
  const char* feature;
  int k;  // 8: one tf32 mma.sync or wgmma k8; 16: one bf16 wgmma k16
  std::array<float, 16> a, b;
  float c;
  float hopper, nearest;
};

inline const std::array<TensorCoreVector, 8>& tensor_core_vectors() {
  const float u = 0x1p-23f;  // FP32's unit in the last place at 1
  static const std::array<TensorCoreVector, 8> vectors{{
      {"products are exact", 8, {1 + 0x1p-10f}, {1 + 0x1p-10f}, 0.0f,
       1 + 0x1p-9f + 0x1p-20f, 1 + 0x1p-9f + 0x1p-20f},
      {"the sum is truncated, not rounded to nearest", 8, {3 * 0x1p-24f}, {1}, 1.0f,
       1 + u, 1 + 2 * u},
      {"a negative sum is truncated toward zero", 8, {-3 * 0x1p-24f}, {1}, -1.0f,
       -(1 + u), -(1 + 2 * u)},
      {"terms keep 25 bits below the largest exponent", 8,
       {0x1p-25f, 0x1p-25f, 0x1p-25f, 0x1p-25f}, {1, 1, 1, 1}, 1.0f, 1 + u, 1 + u},
      {"and lose the 26th (no sticky bit)", 8,
       {0x1p-26f, 0x1p-26f, 0x1p-26f, 0x1p-26f, 0x1p-26f, 0x1p-26f, 0x1p-26f, 0x1p-26f},
       {1, 1, 1, 1, 1, 1, 1, 1}, 1.0f, 1.0f, 1 + u},
      {"a product's carry bit does not move the alignment", 8,
       {1.5f, 0x1p-25f, 0x1p-25f, 0x1p-25f, 0x1p-25f, 0x1p-25f, 0x1p-25f, 0x1p-25f},
       {1.5f, 1, 1, 1, 1, 1, 1, 1}, 0x1p-25f, 2.25f + 0x1p-22f, 2.25f + 0x1p-22f},
      {"bits cut by the alignment stay lost after cancellation", 8, {1 - 0x1p-11f, 0x1p-30f},
       {-1, 1}, 1.0f, 0x1p-11f, 0x1p-11f + 0x1p-30f},
      {"sixteen bf16 products are aligned together", 16,
       {0x1p-26f, 0x1p-26f, 0x1p-26f, 0x1p-26f, 0x1p-26f, 0x1p-26f, 0x1p-26f, 0x1p-26f, 1},
       {1, 1, 1, 1, 1, 1, 1, 1, 1}, 0.0f, 1.0f, 1 + u},
  }};
  return vectors;
}

}  // namespace kg::test
