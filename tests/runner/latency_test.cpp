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
  EXPECT_EQ(stats.samples_ms, (std::vector<double>{4.0, 1.0, 3.0, 2.0}));  // in the order taken
  EXPECT_EQ(stats.rounds, 1);
}

TEST(LatencyStatistics, OddCountMedianAndSingleSample) {
  EXPECT_DOUBLE_EQ(latency_statistics({5.0, 1.0, 3.0}, "adaptive", "wall", 1).median_ms, 3.0);
  const LatencyStats one = latency_statistics({2.0}, "adaptive", "wall", 1);
  EXPECT_EQ(one.n, 1);
  EXPECT_EQ(one.std_ms, 0.0);
  EXPECT_EQ(one.cv, 0.0);
}

CandidateResult timed(std::vector<double> samples, std::int64_t checked, double check_ms) {
  CandidateResult result;
  result.id = "fused_tf32";
  result.outcome = Outcome::passed;
  result.latency = latency_statistics(std::move(samples), "adaptive", "cuda_event", 3);
  result.latency->checked_samples = checked;
  result.latency->check_ms = check_ms;
  result.latency->overhead_ms = 0.01;
  return result;
}

// A second round adds its samples; the statistics are of both rounds.
TEST(TimingRounds, ASecondRoundAddsItsSamples) {
  CandidateResult first = timed({1.0, 3.0}, 2, 0.5);
  add_timing_round(first, timed({2.0, 6.0}, 2, 1.5));
  ASSERT_TRUE(first.latency);
  EXPECT_EQ(first.latency->samples_ms, (std::vector<double>{1.0, 3.0, 2.0, 6.0}));
  EXPECT_EQ(first.latency->n, 4);
  EXPECT_DOUBLE_EQ(first.latency->mean_ms, 3.0);
  EXPECT_DOUBLE_EQ(first.latency->max_ms, 6.0);
  EXPECT_EQ(first.latency->rounds, 2);
  EXPECT_EQ(first.latency->checked_samples, 4);
  EXPECT_DOUBLE_EQ(first.latency->check_ms, 1.0);
  EXPECT_EQ(first.latency->protocol, "adaptive");
  EXPECT_EQ(first.outcome, Outcome::passed);
}

// Every round is checked: a round that fails is the candidate's result.
TEST(TimingRounds, ARoundThatFailsIsTheResult) {
  CandidateResult first = timed({1.0, 3.0}, 2, 0.5);
  CandidateResult broken;
  broken.id = "fused_tf32";
  broken.outcome = Outcome::incorrect;
  broken.message = "max abs error 3 at [0]";
  add_timing_round(first, broken);
  EXPECT_EQ(first.outcome, Outcome::incorrect);
  EXPECT_EQ(first.message, "when run again to time it: max abs error 3 at [0]");
}

}  // namespace
}  // namespace kg
