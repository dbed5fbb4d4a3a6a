// The PTX wrappers: cvt.rna.tf32, mma.sync m16n8k8 tf32, cp.async.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "exact_gemm_inputs.hpp"
#include "kernels/test_kernels.hpp"
#include "test_support.hpp"

namespace kg::test {
namespace {

float from_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }

TEST(InterpretPtx, CvtRnaTf32MatchesHandComputedBitPatterns) {
  struct Case {
    std::uint32_t in, want;
    const char* what;
  };
  const std::vector<Case> cases = {
      {0x3f800000u, 0x3f800000u, "1.0 is exact"},
      {0x3f800fffu, 0x3f800000u, "below half an ulp rounds down"},
      {0x3f801000u, 0x3f802000u, "a tie rounds away from zero"},
      {0x3f803000u, 0x3f804000u, "a tie at an odd mantissa also rounds away (not to even)"},
      {0x3f801001u, 0x3f802000u, "above half an ulp rounds up"},
      {0xbf801000u, 0xbf802000u, "a negative tie rounds away from zero"},
      {0xbf800fffu, 0xbf800000u, "negative, below half an ulp"},
      {0x3fffffffu, 0x40000000u, "a carry into the exponent"},
      {0x7f7fffffu, 0x7f800000u, "FLT_MAX overflows to +Inf"},
      {0xff7ff000u, 0xff800000u, "a negative tie at the top overflows to -Inf"},
      {0x7f800000u, 0x7f800000u, "+Inf stays"},
      {0xff800000u, 0xff800000u, "-Inf stays"},
      {0x00001000u, 0x00002000u, "a subnormal tie"},
      {0x80000000u, 0x80000000u, "-0 stays"},
  };
  std::vector<float> in;
  for (const Case& c : cases) in.push_back(from_bits(c.in));
  in.push_back(from_bits(0x7fc00000u));  // quiet NaN
  in.push_back(from_bits(0x7f800001u));  // NaN whose payload is all in the dropped bits
  std::vector<std::uint32_t> out(in.size());
  cvt_rna_tf32(in.data(), out.data(), static_cast<int>(in.size()), nullptr);
  for (std::size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(out[i], cases[i].want) << cases[i].what << ": 0x" << std::hex << cases[i].in;
  EXPECT_TRUE(std::isnan(from_bits(out[cases.size()])));
  EXPECT_TRUE(std::isnan(from_bits(out[cases.size() + 1]))) << "NaN must not become Inf";
}

TEST(InterpretPtx, PackBf16x2RoundsToNearestEvenAndPutsLowFirst) {
  struct Case {
    std::uint32_t in;
    std::uint16_t want;
    const char* what;
  };
  const std::vector<Case> cases = {
      {0x3f800000u, 0x3f80u, "1.0 is exact"},
      {0x3f807fffu, 0x3f80u, "below half an ulp rounds down"},
      {0x3f808000u, 0x3f80u, "a tie at an even mantissa stays (to even)"},
      {0x3f818000u, 0x3f82u, "a tie at an odd mantissa rounds up (to even)"},
      {0x3f808001u, 0x3f81u, "above half an ulp rounds up"},
      {0xbf818000u, 0xbf82u, "a negative tie to even"},
      {0x3fffffffu, 0x4000u, "a carry into the exponent"},
      {0x7f7fffffu, 0x7f80u, "FLT_MAX overflows to +Inf"},
      {0xff800000u, 0xff80u, "-Inf stays"},
      {0x80000000u, 0x8000u, "-0 stays"},
  };
  std::vector<float> low, high;
  for (const Case& c : cases) {
    low.push_back(from_bits(c.in));
    high.push_back(from_bits(0x40400000u));  // 3.0: 0x4040 in the high half
  }
  low.push_back(from_bits(0x7f800001u));  // NaN whose payload is all in the dropped bits
  high.push_back(from_bits(0x7fc00000u));
  std::vector<std::uint32_t> out(low.size());
  pack_bf16x2(low.data(), high.data(), out.data(), static_cast<int>(low.size()), nullptr);
  for (std::size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(out[i], 0x40400000u | cases[i].want) << cases[i].what << ": 0x" << std::hex
                                                     << cases[i].in;
  EXPECT_TRUE(std::isnan(from_bits(out[cases.size()] << 16))) << "NaN must not become Inf";
  EXPECT_TRUE(std::isnan(from_bits(out[cases.size()] & 0xffff0000u)));
}

ExactGemmInputs mma_inputs() { return ExactGemmInputs(16, 8, 8); }

void expect_same_bits(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i]))
        << "D[" << i / 8 << "][" << i % 8 << "] = " << got[i] << ", want " << want[i];
}

TEST(InterpretPtx, MmaIsBitExactOnExactInputs) {
  const ExactGemmInputs inputs = mma_inputs();
  const std::vector<float> want = inputs.product();
  // The test would be void if the product were symmetric under a transposition.
  ASSERT_NE(want[1 * 8 + 2], want[2 * 8 + 1]);
  for (const char* order : kAllOrders) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    std::vector<float> d(16 * 8, -1.0f);
    mma_16x8x8(inputs.a.data(), inputs.b.data(), inputs.c.data(), d.data(), true, nullptr);
    expect_same_bits(d, want);
  }
}

TEST(InterpretPtx, MmaIgnoresTheLow13BitsOfItsOperands) {
  const ExactGemmInputs inputs = mma_inputs();
  ExactGemmInputs noisy = inputs;
  for (float& x : noisy.a)
    if (x != 0.0f) x = from_bits(std::bit_cast<std::uint32_t>(x) | 0x1fffu);
  for (float& x : noisy.b)
    if (x != 0.0f) x = from_bits(std::bit_cast<std::uint32_t>(x) | 0x1fffu);
  std::vector<float> d(16 * 8);
  mma_16x8x8(noisy.a.data(), noisy.b.data(), noisy.c.data(), d.data(), /*convert=*/false, nullptr);
  expect_same_bits(d, inputs.product());
  // Rounded with cvt.rna instead, the same noise rounds every operand up.
  std::vector<float> rounded(16 * 8);
  mma_16x8x8(noisy.a.data(), noisy.b.data(), noisy.c.data(), rounded.data(), true, nullptr);
  EXPECT_NE(rounded, d);
}

TEST(InterpretPtx, CpAsyncReadBeforeWaitSeesPoisonAndTailsAreZeroFilled) {
  const std::vector<float> src = {1, 2, 3, 4, 5, 6, 7, 8};
  for (int tail_bytes : {16, 8, 0}) {
    std::vector<float> before(8), after_first(8), after_all(8);
    cp_async_groups(src.data(), tail_bytes, before.data(), after_first.data(), after_all.data(),
                    nullptr);
    // Neither the old 5 nor the new value: poison from the issue to the wait.
    for (int i = 0; i < 8; ++i) EXPECT_TRUE(std::isnan(before[i])) << "read before any wait, " << i;
    for (int i = 0; i < 4; ++i) EXPECT_EQ(after_first[i], src[i]);
    for (int i = 4; i < 8; ++i)
      EXPECT_TRUE(std::isnan(after_first[i])) << "group 1 is still pending after wait_group 1";
    for (int i = 0; i < 8; ++i) {
      const bool copied = i < 4 || (i - 4) * 4 < tail_bytes;
      EXPECT_EQ(after_all[i], copied ? src[i] : 0.0f) << "tail_bytes " << tail_bytes << ", " << i;
    }
  }
}

TEST(InterpretPtx, TiledTensorCoreGemmWithCpAsyncIsExact) {
  const int m = 40, n = 36, k = 20;  // not multiples of the tiles: tails are zero-filled
  std::vector<float> a(m * k), b(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = static_cast<float>((i * 7) % 11 - 5);
  for (int i = 0; i < k * n; ++i) b[i] = static_cast<float>((i * 5) % 9 - 4) * 0.5f;
  std::vector<float> want(m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int p = 0; p < k; ++p) sum += static_cast<double>(a[i * k + p]) * b[p * n + j];
      want[i * n + j] = static_cast<float>(sum);
    }
  for (const char* order : kAllOrders) {
    ScopedEnvironment scoped("KG_INTERPRET_ORDER", order);
    std::vector<float> c(m * n, -7.0f);
    tiled_gemm_tf32(a.data(), b.data(), c.data(), m, n, k, nullptr);
    EXPECT_EQ(c, want) << order;
  }
}

}  // namespace
}  // namespace kg::test
