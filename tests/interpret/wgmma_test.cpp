// The wgmma wrappers: the product, the descriptor's layout, and the rules of
// the asynchrony (docs/interpret-mode.md, "wgmma").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "exact_gemm_inputs.hpp"
#include "kernelgate/interpret/launch.hpp"
#include "kernels/test_kernels.hpp"
#include "test_support.hpp"

namespace kg::test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// D = A B (+ C) of 64 x 16 x n exact inputs through `product`, at both widths,
// both accumulate flags and every thread order, bit for bit.
using ProductKernel = void (*)(int n, const float* a, const float* b, const float* c, float* d,
                               bool accumulate, cudaStream_t stream);
void expect_exact_products(ProductKernel product) {
  for (int n : {64, 32}) {
    const ExactGemmInputs inputs(64, 16, n);
    for (bool accumulate : {true, false}) {
      const std::vector<float> want = inputs.product(accumulate);
      for (const char* order : kAllOrders) {
        ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
        std::vector<float> d(64 * n, -1.0f);
        product(n, inputs.a.data(), inputs.b.data(), inputs.c.data(), d.data(), accumulate,
                nullptr);
        EXPECT_EQ(d, want) << "n " << n << ", " << order
                           << (accumulate ? ", accumulate" : ", D = A B");
      }
    }
  }
}

TEST(InterpretWgmma, ChainedProductIsExactForEveryWidthWarpAndOrder) {
  expect_exact_products(wgmma_64xnx16);
}

TEST(InterpretWgmma, Bf16ProductIsExactForEveryWidthWarpAndOrder) {
  // The exact inputs have at most 3 significant bits: bf16 holds them.
  expect_exact_products(wgmma_64xnx16_bf16);
}

TEST(InterpretWgmma, TheTestWouldSeeSwappedOffsetsOrATransposedB) {
  // The kernel's B layout puts the K neighbour of a core matrix 128 bytes on
  // and the N neighbour 256 bytes on; with the two offsets swapped, or B read
  // as [n][k], the product would differ, so the exact test pins both.
  const ExactGemmInputs inputs(64, 16, 64);
  const std::vector<float> want = inputs.product(true);
  ExactGemmInputs transposed = inputs;
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 16; ++n) transposed.b[k * 64 + n] = inputs.b[n * 64 + k];
  EXPECT_NE(transposed.product(true), want);
  ExactGemmInputs k_halves_swapped = inputs;
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 64; ++n)
      k_halves_swapped.b[k * 64 + n] = inputs.b[((k / 8) * 8 + (k % 8 + 4) % 8) * 64 + n];
  EXPECT_NE(k_halves_swapped.product(true), want);
}

TEST(InterpretWgmma, AccumulatorHoldsNanUntilTheWaitThatCoversIt) {
  std::vector<float> out(64, 0.0f);
  wgmma_misuse(WgmmaMisuse::read_before_wait, out.data(), nullptr);
  for (int i = 0; i < 32; ++i) EXPECT_TRUE(std::isnan(out[i])) << i;
  // The B operand is all ones and A is 1.0: each D element is 8.
  wgmma_misuse(WgmmaMisuse::partial_wait, out.data(), nullptr);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(out[i], 8.0f) << "first group, complete after wait<1>";
  for (int i = 32; i < 64; ++i) EXPECT_TRUE(std::isnan(out[i])) << "second group still pending";
}

TEST(InterpretWgmma, BrokenRulesAreErrorsThatNameTheProblem) {
  std::vector<float> out(64);
  // The proxy check tracks a few blocks of a kernel seen to issue wgmma: this
  // first launch shows it, and every later block is to be tracked.
  interp::track_every_block_for_proxy_check(true);
  wgmma_misuse(WgmmaMisuse::partial_wait, out.data(), nullptr);
  auto message = [&](WgmmaMisuse misuse) {
    return error_of([&] { wgmma_misuse(misuse, out.data(), nullptr); });
  };
  EXPECT_THAT(message(WgmmaMisuse::no_fence), HasSubstr("no kg::wgmma_fence"));
  EXPECT_THAT(message(WgmmaMisuse::a_changed), HasSubstr("A fragment changed"));
  EXPECT_THAT(message(WgmmaMisuse::no_wait), HasSubstr("wgmma not waited for"));
  EXPECT_THAT(message(WgmmaMisuse::outside_smem), HasSubstr("not in the block's dynamic shared memory"));
  EXPECT_THAT(message(WgmmaMisuse::odd_block), HasSubstr("not whole warpgroups of 128"));
  EXPECT_THAT(message(WgmmaMisuse::warp_disagrees),
              HasSubstr("warps of warpgroup 0 disagree on wgmma number 0"));
  EXPECT_THAT(message(WgmmaMisuse::shape_disagrees),
              AllOf(HasSubstr("disagree on wgmma number 0"), HasSubstr("m64n32k8")));
  EXPECT_THAT(message(WgmmaMisuse::warp_skips),
              HasSubstr("warp 2: 1, warp 3: 0"));
  EXPECT_THAT(message(WgmmaMisuse::b_overwritten),
              HasSubstr("the shared memory of its B operand was written before"));
  EXPECT_THAT(message(WgmmaMisuse::unfenced_copy),
              HasSubstr("with no kg::fence_proxy_async_shared() by that thread since"));
  EXPECT_THAT(message(WgmmaMisuse::unfenced_stores),
              AllOf(HasSubstr("was written by thread"),
                    HasSubstr("with no kg::fence_proxy_async_shared() by that thread since")));
  interp::track_every_block_for_proxy_check(false);
}

// Two products of different shapes on one accumulator: 64 x 16 bf16 and
// 64 x 8 tf32, exact inputs.
struct ChainedShapes {
  ExactGemmInputs bf16{64, 16, 64}, tf32{64, 16, 64};
  std::vector<float> want() const { return bf16_then_tf32_product(bf16, tf32); }
  std::vector<float> run(bool fence_between) const {
    std::vector<float> d(64 * 64, -1.0f);
    wgmma_bf16_then_tf32(bf16.a.data(), bf16.b.data(), tf32.a.data(), tf32.b.data(), bf16.c.data(),
                         d.data(), fence_between, nullptr);
    return d;
  }
};

TEST(InterpretWgmma, ShapesChainOnOneAccumulatorOnlyWithAFenceBetween) {
  const ChainedShapes chained;
  for (const char* order : kAllOrders) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    EXPECT_EQ(chained.run(/*fence_between=*/true), chained.want()) << order;
  }
  EXPECT_THAT(error_of([&] { chained.run(/*fence_between=*/false); }),
              AllOf(::testing::StartsWith("wgmma.mma_async.m64n64k8.tf32 ("),
                    HasSubstr("wgmma_kernels.cu:"),
                    HasSubstr("chains onto the accumulator of the pending "
                              "wgmma.mma_async.m64n64k16.bf16 ("),
                    HasSubstr("no kg::wgmma_fence between them")));
}

}  // namespace
}  // namespace kg::test
