#pragma once
// Exact inputs for the tensor-core tests, shared by the interpret tests and
// their GPU counterparts: small integers times powers of two, so that every
// product and partial sum is exact and any correct mma or wgmma gives the
// same bits whatever its order.
#include <cmath>
#include <vector>

namespace kg::test {

// A (m x k), B (k x n) and C (m x n), row-major.
struct ExactGemmInputs {
  int m, k, n;
  std::vector<float> a, b, c;
  ExactGemmInputs(int rows, int depth, int columns)
      : m(rows), k(depth), n(columns), a(rows * depth), b(depth * columns), c(rows * columns) {
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p)
        a[i * k + p] = std::ldexp(static_cast<float>((i * 3 + p * 5) % 7 - 3), (i + 2 * p) % 4 - 2);
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j)
        b[p * n + j] = std::ldexp(static_cast<float>((p * 7 + j * 2) % 9 - 4), (3 * p + j) % 3 - 1);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) c[i * n + j] = static_cast<float>((i * 11 + j * 13) % 17 - 8);
  }
  // A B + C (A B when not accumulating), rounded once from double.
  std::vector<float> product(bool accumulate = true) const {
    std::vector<float> d(m * n);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = accumulate ? c[i * n + j] : 0.0;
        for (int p = 0; p < k; ++p) sum += static_cast<double>(a[i * k + p]) * b[p * n + j];
        d[i * n + j] = static_cast<float>(sum);
      }
    return d;
  }
};

// D (64 x 64) of wgmma_bf16_then_tf32: bf16's C + bf16's A (64 x 16) * B
// (16 x 64) + the first 8 columns of tf32's A * the first 8 rows of its B,
// rounded once from double (exact for exact inputs).
inline std::vector<float> bf16_then_tf32_product(const ExactGemmInputs& bf16, const ExactGemmInputs& tf32) {
  std::vector<float> d(64 * 64);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      double sum = bf16.c[i * 64 + j];
      for (int p = 0; p < 16; ++p) sum += static_cast<double>(bf16.a[i * 16 + p]) * bf16.b[p * 64 + j];
      for (int p = 0; p < 8; ++p) sum += static_cast<double>(tf32.a[i * 16 + p]) * tf32.b[p * 64 + j];
      d[i * 64 + j] = static_cast<float>(sum);
    }
  return d;
}

}  // namespace kg::test
