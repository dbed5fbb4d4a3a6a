// Latency statistics and the timing protocols on the cpu device.
#include <gtest/gtest.h>

#include <cmath>

#include "kernelgate/runner.hpp"

namespace kg {
namespace {

TEST(LatencyStatistics, MeanStdMedianMinMaxCv) {
  const LatencyStats stats = latency_statistics({4.0, 1.0, 3.0, 2.0}, "kernelbench", "wall", 3);
  EXPECT_EQ(stats.protocol, "kernelbench");
  EXPECT_EQ(stats.clock, "wall");
  EXPECT_EQ(stats.warmups, 3);
  EXPECT_EQ(stats.n, 4);
  EXPECT_DOUBLE_EQ(stats.mean_ms, 2.5);
  EXPECT_DOUBLE_EQ(stats.std_ms, std::sqrt(5.0 / 3.0));  // sample standard deviation
  EXPECT_DOUBLE_EQ(stats.median_ms, 2.5);
  EXPECT_DOUBLE_EQ(stats.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(stats.max_ms, 4.0);
  EXPECT_DOUBLE_EQ(stats.cv, std::sqrt(5.0 / 3.0) / 2.5);
}

TEST(LatencyStatistics, OddCountMedianAndSingleSample) {
  EXPECT_DOUBLE_EQ(latency_statistics({5.0, 1.0, 3.0}, "adaptive", "wall", 1).median_ms, 3.0);
  const LatencyStats one = latency_statistics({2.0}, "adaptive", "wall", 1);
  EXPECT_EQ(one.n, 1);
  EXPECT_EQ(one.std_ms, 0.0);
  EXPECT_EQ(one.cv, 0.0);
}

}  // namespace
}  // namespace kg
