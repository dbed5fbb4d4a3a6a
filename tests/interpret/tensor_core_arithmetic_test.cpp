// The tensor-core arithmetic of interpret mode (docs/interpret-mode.md,
// "Tensor-core arithmetic"): the block FMA on the feature vectors, and the
// mma.sync and wgmma host bodies computing in the launch's mode.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernelgate/interpret/tensor_core_arithmetic.hpp"
#include "kernels/test_kernels.hpp"
#include "tensor_core_vectors.hpp"
#include "test_support.hpp"

namespace kg::test {
namespace {

using interp::TensorCoreArithmetic;

float block_fma(const TensorCoreVector& v, TensorCoreArithmetic arithmetic) {
  return interp::tensor_core_block_fma(v.a.data(), v.b.data(), v.k, v.c, arithmetic);
}

TEST(TensorCoreArithmetic, EveryFeatureVectorGivesTheModelsResult) {
  for (const TensorCoreVector& v : tensor_core_vectors()) {
    EXPECT_EQ(block_fma(v, TensorCoreArithmetic::hopper), v.hopper) << v.feature;
    EXPECT_EQ(block_fma(v, TensorCoreArithmetic::nearest), v.nearest) << v.feature;
  }
}

TEST(TensorCoreArithmetic, TheVectorsTellTheTwoModesApart) {
  int differ = 0;
  for (const TensorCoreVector& v : tensor_core_vectors()) differ += v.hopper != v.nearest;
  EXPECT_GE(differ, 5);
}

TEST(TensorCoreArithmetic, SpecialValuesAndZero) {
  const float inf = std::numeric_limits<float>::infinity();
  const float a[2] = {inf, 1}, b[2] = {1, 1};
  EXPECT_EQ(interp::tensor_core_block_fma(a, b, 2, 1.0f, TensorCoreArithmetic::hopper), INFINITY);
  const float opposite[2] = {inf, -inf};
  EXPECT_TRUE(std::isnan(interp::tensor_core_block_fma(opposite, b, 2, 0.0f, TensorCoreArithmetic::hopper)));
  const float zero_times_inf[2] = {0, 1}, infs[2] = {inf, 0};
  EXPECT_TRUE(std::isnan(interp::tensor_core_block_fma(zero_times_inf, infs, 2, 0.0f, TensorCoreArithmetic::hopper)));
  const float zeros[2] = {0, 0};
  EXPECT_EQ(interp::tensor_core_block_fma(zeros, b, 2, 0.0f, TensorCoreArithmetic::hopper), 0.0f);
  EXPECT_TRUE(std::isnan(
      interp::tensor_core_block_fma(zeros, b, 2, std::numeric_limits<float>::quiet_NaN(), TensorCoreArithmetic::hopper)));
}

TEST(TensorCoreArithmetic, ANonFiniteOperandMakesOnlyItsRowAndColumnSpecial) {
  // 2 x 2 tile of k = 8: A's row 0 holds an infinity, B's column 1 a NaN.
  // Element (1, 0) has finite operands and must be the truncation vector's
  // result; (0, 0) is infinite, the column-1 elements NaN.
  const TensorCoreVector& v = tensor_core_vectors()[1];
  std::vector<float> a(2 * 8, 0.0f), b(2 * 8, 0.0f);
  a[0] = INFINITY;
  b[0] = 1.0f;  // (0, 0): inf * 1
  for (int i = 0; i < 8; ++i) {
    a[8 + i] = v.a[i];
    b[i] = i == 0 ? v.b[0] : v.b[i];
  }
  b[8] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> acc = {0.0f, 0.0f, v.c, 0.0f};
  interp::tensor_core_tile(a.data(), b.data(), 2, 2, 8, acc.data(), TensorCoreArithmetic::hopper);
  EXPECT_EQ(acc[0], INFINITY);
  EXPECT_TRUE(std::isnan(acc[1]));
  EXPECT_EQ(acc[2], v.hopper);
  EXPECT_TRUE(std::isnan(acc[3]));
}

TEST(TensorCoreArithmetic, ModesParseAndAnUnknownOneIsNamed) {
  EXPECT_EQ(interp::parse_tensor_core_arithmetic(""), TensorCoreArithmetic::hopper);
  EXPECT_EQ(interp::parse_tensor_core_arithmetic("nearest"), TensorCoreArithmetic::nearest);
  EXPECT_THAT(error_of([] { interp::parse_tensor_core_arithmetic("exact"); }),
              ::testing::HasSubstr("KG_INTERPRET_TENSOR_CORES='exact' is not one of hopper, nearest"));
}

// The vector through one mma.sync m16n8k8 or bf16 wgmma m64n64k16.
float through_instruction(const TensorCoreVector& v) {
  VectorOperands o = operands_of(v);
  std::vector<float> d(o.c.size(), -1.0f);
  if (v.k == 8)
    mma_16x8x8(o.a.data(), o.b.data(), o.c.data(), d.data(), /*convert=*/false, nullptr);
  else
    wgmma_64xnx16_bf16(64, o.a.data(), o.b.data(), o.c.data(), d.data(), /*accumulate=*/true, nullptr);
  return d[0];
}

TEST(TensorCoreArithmetic, HostBodiesComputeInTheLaunchsMode) {
  for (const TensorCoreVector& v : tensor_core_vectors()) {
    {
      ScopedEnvironment scoped("KG_INTERPRET_TENSOR_CORES", "hopper");
      EXPECT_EQ(through_instruction(v), v.hopper) << v.feature;
    }
    {
      ScopedEnvironment scoped("KG_INTERPRET_TENSOR_CORES", "nearest");
      EXPECT_EQ(through_instruction(v), v.nearest) << v.feature;
    }
  }
}

TEST(TensorCoreArithmetic, TheTf32WgmmaComputesInTheLaunchsMode) {
  // The truncation vector through wgmma m64n64k8 (the first of its two K steps).
  const TensorCoreVector& v = tensor_core_vectors()[1];
  std::vector<float> a(64 * 16, 0.0f), b(16 * 64, 0.0f), c(64 * 64, 0.0f), d(64 * 64, -1.0f);
  a[0] = v.a[0];
  b[0] = v.b[0];
  c[0] = v.c;
  for (const auto& [mode, want] : {std::pair{"hopper", v.hopper}, std::pair{"nearest", v.nearest}}) {
    ScopedEnvironment scoped("KG_INTERPRET_TENSOR_CORES", mode);
    wgmma_64xnx16(64, a.data(), b.data(), c.data(), d.data(), /*accumulate=*/true, nullptr);
    EXPECT_EQ(d[0], want) << mode;
  }
}

}  // namespace
}  // namespace kg::test
