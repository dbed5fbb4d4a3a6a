// The equivalence comparison against the float64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernelgate/runner.hpp"

namespace kg {
namespace {

const Tolerance kFp32{.atol = 1e-4, .rtol = 1e-4, .rel_l2 = 1e-5};

std::vector<std::int64_t> iota(std::size_t n) {
  std::vector<std::int64_t> indices(n);
  for (std::size_t i = 0; i < n; ++i) indices[i] = static_cast<std::int64_t>(i) * 10;
  return indices;
}

TEST(CompareToReference, ExactOutputPassesEveryRule) {
  const std::vector<double> want = {1.0, -2.0, 0.5, 3.0};
  const std::vector<float> got = {1.0f, -2.0f, 0.5f, 3.0f};
  const ErrorStats stats = compare_to_reference(got, want, iota(4), kFp32, false);
  EXPECT_EQ(stats.checked, 4);
  EXPECT_EQ(stats.mismatches, 0);
  EXPECT_EQ(stats.first_mismatch_index, -1);
  EXPECT_EQ(stats.max_abs, 0.0);
  EXPECT_TRUE(stats.kernelbench_1e2);
  EXPECT_TRUE(stats.kernelbench_1e4);
  EXPECT_TRUE(within_tolerance(stats, kFp32));
}

TEST(CompareToReference, HeadroomIsTheInverseOfTheLargerShareOfTheBounds) {
  // want 1: the elementwise bound is 1e-4 + 1e-4 = 2e-4; an error of 5e-5 uses
  // a quarter of it. The relative L2 over 4 points of 1 with one off by 5e-5
  // is 2.5e-5: 2.5 times its bound of 1e-5.
  const std::vector<double> want = {1.0, 1.0, 1.0, 1.0};
  const std::vector<float> got = {1.0f, 1.0f, 1.0f, static_cast<float>(1.0 + 5e-5)};
  const ErrorStats stats = compare_to_reference(got, want, iota(4), kFp32, false);
  const double error = static_cast<double>(got[3]) - 1.0;
  EXPECT_DOUBLE_EQ(stats.elementwise_fraction, error / 2e-4);
  EXPECT_DOUBLE_EQ(stats.rel_l2_fraction, error / 2 / 1e-5);
  EXPECT_DOUBLE_EQ(stats.headroom(), 1 / stats.rel_l2_fraction);
  // Without an L2 bound only the elementwise share counts.
  const Tolerance no_l2{.atol = 1e-4, .rtol = 1e-4, .rel_l2 = 0};
  const ErrorStats elementwise = compare_to_reference(got, want, iota(4), no_l2, false);
  EXPECT_EQ(elementwise.rel_l2_fraction, 0.0);
  EXPECT_DOUBLE_EQ(elementwise.headroom(), 2e-4 / error);
  // An exact result has unbounded headroom, a non-finite one none.
  const std::vector<float> exact = {1.0f, 1.0f, 1.0f, 1.0f};
  EXPECT_TRUE(std::isinf(compare_to_reference(exact, want, iota(4), kFp32, false).headroom()));
  const std::vector<float> nan = {1.0f, 1.0f, 1.0f, std::numeric_limits<float>::quiet_NaN()};
  EXPECT_EQ(compare_to_reference(nan, want, iota(4), kFp32, false).headroom(), 0.0);
}

TEST(CompareToReference, ReportsTheFirstMismatchByItsFlatIndex) {
  const std::vector<double> want = {1.0, 2.0, 3.0, 4.0};
  const std::vector<float> got = {1.0f, 2.0f, 3.5f, 4.25f};
  const ErrorStats stats = compare_to_reference(got, want, iota(4), kFp32, true);
  EXPECT_TRUE(stats.sampled);
  EXPECT_EQ(stats.mismatches, 2);
  EXPECT_EQ(stats.first_mismatch_index, 20);  // the third point's flat index
  EXPECT_EQ(stats.first_mismatch_got, 3.5);
  EXPECT_EQ(stats.first_mismatch_want, 3.0);
  EXPECT_DOUBLE_EQ(stats.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(stats.max_rel, 0.5 / 3.0);
  EXPECT_NEAR(stats.rel_l2, std::sqrt((0.25 + 0.0625) / 30.0), 1e-12);
  EXPECT_FALSE(stats.kernelbench_1e2);
  EXPECT_FALSE(within_tolerance(stats, kFp32));
}

TEST(CompareToReference, KernelBenchRulesAreSeparate) {
  // 1e-3 relative error: passes 1e-2, fails 1e-4.
  const std::vector<double> want = {1.0, 2.0};
  const std::vector<float> got = {1.001f, 2.0f};
  const ErrorStats stats = compare_to_reference(got, want, iota(2), kFp32, false);
  EXPECT_TRUE(stats.kernelbench_1e2);
  EXPECT_FALSE(stats.kernelbench_1e4);
}

TEST(CompareToReference, NanAndInfNeverPass) {
  const std::vector<double> want = {1.0, 2.0};
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    const std::vector<float> got = {1.0f, bad};
    const Tolerance loose{.atol = 1e30, .rtol = 1e30, .rel_l2 = 0};
    const ErrorStats stats = compare_to_reference(got, want, iota(2), loose, false);
    EXPECT_TRUE(stats.non_finite);
    EXPECT_EQ(stats.mismatches, 1);
    EXPECT_FALSE(stats.kernelbench_1e2);
    EXPECT_FALSE(within_tolerance(stats, loose));
  }
}

TEST(CompareToReference, NearZeroOutputIsCaughtByRelativeL2) {
  // Every element fits atol, but the output is all zero: relative L2 is 1.
  const std::vector<double> want = {1e-5, -2e-5, 3e-5};
  const std::vector<float> got = {0.0f, 0.0f, 0.0f};
  const ErrorStats stats = compare_to_reference(got, want, iota(3), kFp32, false);
  EXPECT_EQ(stats.mismatches, 0);
  EXPECT_NEAR(stats.rel_l2, 1.0, 1e-12);
  EXPECT_FALSE(within_tolerance(stats, kFp32));
}

}  // namespace
}  // namespace kg
