// The equivalence comparison against the float64 reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernelgate/detail/runner.hpp"

namespace kg {
namespace {

using ::testing::HasSubstr;

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

// A timed sample's few spot points: their relative L2 may wander past the
// whole output's bound (a case seen on 8 points of l1_086: 1.1e-3 against
// 1e-3) without failing the sample, but not far past it; an output of zeros
// still fails, and so does any point outside the elementwise bound.
TEST(CompareToReference, SpotPointsGetSlackOnTheirRelativeL2Only) {
  const Tolerance tf32{.atol = 2e-3, .rtol = 2e-3, .rel_l2 = 1e-3};
  const std::vector<double> want = {0.5, -0.25, 1.0, 0.125};
  const std::vector<float> wandered = {0.5009f, -0.2509f, 1.0011f, 0.1259f};
  const ErrorStats near = compare_to_reference(wandered, want, iota(4), tf32, true);
  EXPECT_EQ(near.mismatches, 0);
  EXPECT_GT(near.rel_l2, tf32.rel_l2);
  EXPECT_FALSE(within_tolerance(near, tf32));
  EXPECT_TRUE(within_spot_tolerance(near, tf32));
  const ErrorStats zeros = compare_to_reference({0, 0, 0, 0}, {1e-4, -2e-4, 3e-4, 1e-4}, iota(4), tf32, true);
  EXPECT_EQ(zeros.mismatches, 0);  // each within atol
  EXPECT_FALSE(within_spot_tolerance(zeros, tf32));
  const ErrorStats off = compare_to_reference({0.5f, -0.25f, 1.1f, 0.125f}, want, iota(4), tf32, true);
  EXPECT_FALSE(within_spot_tolerance(off, tf32));
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

// Mismatch messages give coordinates and the shape the mismatches share.
struct Located {
  std::vector<std::int64_t> shape{2, 4, 5, 6};  // n, c, h, w: 240 elements
  std::vector<double> want = std::vector<double>(240, 1.0);
  std::vector<float> got = std::vector<float>(240, 1.0f);
  std::vector<std::int64_t> index;
  Located() {
    for (std::int64_t i = 0; i < 240; ++i) index.push_back(i);
  }
  std::int64_t flat(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w) const {
    return ((n * 4 + c) * 5 + h) * 6 + w;
  }
  void wrong(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w) { got[flat(n, c, h, w)] = 5.0f; }
  std::string where() const {
    return locate_mismatches(compare_to_reference(got, want, index, Tolerance{1e-3, 1e-3, 0}, false), shape);
  }
};

TEST(MismatchLocation, TheFirstMismatchHasItsCoordinates) {
  Located output;
  output.wrong(1, 2, 3, 4);
  EXPECT_EQ(output.where(), "first at (n=1, c=2, h=3, w=4), flat index " + std::to_string(output.flat(1, 2, 3, 4)));
}

TEST(MismatchLocation, MismatchesOfOneChannelSayIt) {
  Located output;
  for (int n = 0; n < 2; ++n)
    for (int h = 0; h < 5; ++h) output.wrong(n, 3, h, 2);
  EXPECT_EQ(output.where(), "first at (n=0, c=3, h=0, w=2), flat index " + std::to_string(output.flat(0, 3, 0, 2)) +
                                "; all 10 mismatches share c=3, w=2");
}

TEST(MismatchLocation, MismatchesOnTheBorderSayIt) {
  Located output;
  output.wrong(0, 0, 0, 3);  // first row
  output.wrong(1, 2, 4, 1);  // last row
  output.wrong(0, 1, 2, 5);  // last column
  output.wrong(1, 3, 1, 0);  // first column
  EXPECT_THAT(output.where(), HasSubstr("; all 4 mismatches lie on the border (first or last h or w)"));
  output.wrong(1, 1, 2, 2);  // and one inside: no pattern
  EXPECT_EQ(output.where().find(';'), std::string::npos) << output.where();
}

TEST(MismatchLocation, TwoMismatchesOrScatteredOnesMakeNoPattern) {
  Located output;
  output.wrong(0, 1, 1, 1);
  output.wrong(0, 1, 1, 2);
  EXPECT_EQ(output.where().find(';'), std::string::npos) << output.where();
  output.wrong(1, 2, 2, 3);
  EXPECT_EQ(output.where().find(';'), std::string::npos) << output.where();
}

TEST(MismatchLocation, AnIndexOutsideTheShapeIsOnlyFlat) {
  Located output;
  output.wrong(1, 3, 4, 5);
  EXPECT_EQ(locate_mismatches(compare_to_reference(output.got, output.want, output.index, Tolerance{1e-3, 1e-3, 0},
                                                   false),
                              {2, 3}),
            "first at flat index 239");
}

}  // namespace
}  // namespace kg
