// kg::compare_samples: the three answers, robust to outliers, relative to
// cudnn_eager when both runs timed it.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernelgate/detail/sample_comparison.hpp"

namespace kg {
namespace {

// n samples around `ms`, spread by a fixed pattern of +-2% (deterministic).
std::vector<double> samples(double ms, int n = 100) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(ms * (1 + 0.02 * std::sin(0.7 * i + 0.3)));
  return out;
}

TEST(SampleComparison, TheSameKernelPassesWithARatioOfOne) {
  const auto result = compare_samples(samples(1.0), samples(1.0), {});
  EXPECT_EQ(result.verdict, SampleVerdict::passed);
  EXPECT_NEAR(result.ratio, 1.0, 1e-3);
  EXPECT_LT(result.ratio_low, 1.0);
  EXPECT_GT(result.ratio_high, 1.0);
}

TEST(SampleComparison, ASlowdownBeyondTheMarginRegresses) {
  const auto result = compare_samples(samples(1.0), samples(1.10), {});
  EXPECT_EQ(result.verdict, SampleVerdict::regressed);
  EXPECT_NEAR(result.ratio, 1.10, 0.005);
  EXPECT_GT(result.ratio_low, 1.025);
  // A 3% slowdown is confidently under the 5% tolerance: it passes.
  EXPECT_EQ(compare_samples(samples(1.0), samples(1.03), {}).verdict, SampleVerdict::passed);
}

TEST(SampleComparison, OutliersDoNotDecide) {
  auto head = samples(1.0);
  for (int i = 0; i < 5; ++i) head[std::size_t(i) * 20] = 30.0;  // 5% of samples 30x slower
  const auto result = compare_samples(samples(1.0), head, {});
  EXPECT_EQ(result.verdict, SampleVerdict::passed);
  EXPECT_NEAR(result.ratio, 1.0, 0.01);  // a mean would say 1.18
}

TEST(SampleComparison, TooFewOrTooSpreadSamplesAreInconclusive) {
  EXPECT_EQ(compare_samples(samples(1.0, 4), samples(1.0, 4), {}).verdict, SampleVerdict::inconclusive);
  // Spread so wide that a 4% slowdown is neither ruled in nor out.
  std::vector<double> base, head;
  for (int i = 0; i < 20; ++i) {
    base.push_back(1.0 * (1 + 0.3 * std::sin(1.3 * i)));
    head.push_back(1.04 * (1 + 0.3 * std::sin(1.3 * i + 0.5)));
  }
  EXPECT_EQ(compare_samples(base, head, {}).verdict, SampleVerdict::inconclusive);
}

TEST(SampleComparison, AMachineSlowerAsAWholeIsNotARegressionRelativeToEager) {
  // This run is 8% slower in everything, cudnn_eager included.
  const auto alone = compare_samples(samples(1.0), samples(1.08), {});
  EXPECT_EQ(alone.verdict, SampleVerdict::regressed);
  const auto relative = compare_samples(samples(1.0), samples(1.08), {}, samples(1.5), samples(1.5 * 1.08));
  EXPECT_EQ(relative.verdict, SampleVerdict::passed);
  EXPECT_NEAR(relative.ratio, 1.0, 0.005);
  // ...while a real slowdown on such a machine still regresses.
  const auto real = compare_samples(samples(1.0), samples(1.08 * 1.10), {}, samples(1.5), samples(1.5 * 1.08));
  EXPECT_EQ(real.verdict, SampleVerdict::regressed);
  EXPECT_NEAR(real.ratio, 1.10, 0.01);
}

}  // namespace
}  // namespace kg
