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
#include <vector>

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

// A vector as the operands of one instruction: row 0 of A, column 0 of B and
// C[0][0], everything else zero; the result is D[0][0]. k = 8: mma.sync
// m16n8k8 (A 16 x 8, B 8 x 8, C 16 x 8); k = 16: a bf16 wgmma m64n64k16
// through wgmma_64xnx16_bf16 (A 64 x 16, B 16 x 64, C 64 x 64).
struct VectorOperands {
  std::vector<float> a, b, c;
};
inline VectorOperands operands_of(const TensorCoreVector& v) {
  const int rows = v.k == 8 ? 16 : 64, columns = v.k == 8 ? 8 : 64;
  VectorOperands o{std::vector<float>(rows * v.k, 0.0f), std::vector<float>(v.k * columns, 0.0f),
                   std::vector<float>(rows * columns, 0.0f)};
  for (int k = 0; k < v.k; ++k) {
    o.a[k] = v.a[k];
    o.b[k * columns] = v.b[k];
  }
  o.c[0] = v.c;
  return o;
}

}  // namespace kg::test
