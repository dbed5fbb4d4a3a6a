// Latency statistics and the timing protocols on the cpu device; the
// throttle rule with a simulated GPU clock.
#include <gtest/gtest.h>

#include <cmath>

#include "kernelgate/runner.hpp"
#include "runner_internal.hpp"

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
  CandidateResult second = timed({2.0, 6.0}, 2, 1.5);
  first.latency->busy_after_ms = 0.003;
  second.latency->busy_after_ms = 0.004;
  add_timing_round(first, second);
  ASSERT_TRUE(first.latency);
  EXPECT_EQ(first.latency->samples_ms, (std::vector<double>{1.0, 3.0, 2.0, 6.0}));
  EXPECT_EQ(first.latency->n, 4);
  EXPECT_DOUBLE_EQ(first.latency->mean_ms, 3.0);
  EXPECT_DOUBLE_EQ(first.latency->max_ms, 6.0);
  EXPECT_EQ(first.latency->rounds, 2);
  EXPECT_EQ(first.latency->checked_samples, 4);
  EXPECT_DOUBLE_EQ(first.latency->check_ms, 1.0);
  EXPECT_DOUBLE_EQ(first.latency->busy_after_ms, 0.004);  // the worse round
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
  broken.checks = {make_check("equivalence", Outcome::incorrect, broken.message)};
  add_timing_round(first, broken);
  EXPECT_EQ(first.outcome, Outcome::incorrect);
  EXPECT_EQ(first.message, "when run again to time it: max abs error 3 at [0]");
  EXPECT_EQ(first.checks.at(0).message, first.message);  // the check says so too
}

// A GPU whose SM clock (max 1980 MHz) follows `clocks`, one per sample
// taken; each sample takes `ms` milliseconds at full clock and longer in
// proportion below it, as a compute-bound kernel would.
struct SimulatedClock {
  explicit SimulatedClock(std::vector<int> clocks) : clocks(std::move(clocks)) {}
  std::vector<int> clocks;
  std::size_t taken = 0;
  std::vector<double> waits;
  TimedLaunch sample() {
    const int mhz = clocks[std::min(taken++, clocks.size() - 1)];
    return {.ms = 2.0 * 1980 / mhz, .sm_clock_mhz = mhz, .sm_clock_max_mhz = 1980};
  }
};

TimingOptions kernelbench_trials(int trials) {
  TimingOptions options;
  options.protocol = "kernelbench";
  options.trials = trials;
  options.warmups = 0;
  return options;
}

LatencyStats measure(SimulatedClock& gpu, const TimingOptions& options) {
  return detail::measure_latency([](int) {}, [&] { return gpu.sample(); }, options, false, "cuda_event",
                                 [&](double seconds) { gpu.waits.push_back(seconds); });
}

TEST(Throttling, SamplesBelowThreeQuartersOfTheMaximumClockAreDiscardedAndCounted) {
  // 1480 MHz is under 75% of 1980 (1485); 1490 is not.
  SimulatedClock gpu{{1980, 1980, 1480, 1200, 1490, 1980, 1980, 1980}};
  const LatencyStats stats = measure(gpu, kernelbench_trials(6));
  EXPECT_EQ(stats.n, 6);
  EXPECT_EQ(stats.throttled_samples, 2);
  EXPECT_EQ(stats.sm_clock_mhz, (std::vector<int>{1980, 1980, 1490, 1980, 1980, 1980}));
  EXPECT_EQ(stats.samples_ms.size(), stats.sm_clock_mhz.size());
  EXPECT_NEAR(stats.max_ms, 2.0 * 1980 / 1490, 1e-12);  // the slow but unthrottled one stays
  // The run waited for the clock after each discard.
  EXPECT_EQ(gpu.waits, (std::vector<double>{0.05, 0.05}));
}

TEST(Throttling, AClockThatNeverRecoversEndsTheProtocolWithWhatItKept) {
  SimulatedClock gpu{{1980, 1980, 900}};
  TimingOptions options = kernelbench_trials(100);
  options.max_throttled_samples = 20;
  const LatencyStats stats = measure(gpu, options);
  EXPECT_EQ(stats.n, 2);
  EXPECT_EQ(stats.throttled_samples, 20);
  EXPECT_EQ(gpu.taken, 22u);
  // The adaptive protocol stops too, short of its minimum.
  SimulatedClock adaptive_gpu{{1980, 900}};
  TimingOptions adaptive;
  adaptive.protocol = "adaptive";
  adaptive.min_samples = 50;
  adaptive.max_throttled_samples = 10;
  const LatencyStats partial = measure(adaptive_gpu, adaptive);
  EXPECT_EQ(partial.n, 1);
  EXPECT_EQ(partial.throttled_samples, 10);
}

TEST(Throttling, AnUnknownClockDiscardsNothing) {
  // The cpu device and a GPU without NVML read no clock: every sample counts
  // and no clocks travel.
  int taken = 0;
  const LatencyStats stats = detail::measure_latency(
      [](int) {}, [&] { return TimedLaunch{.ms = 1.0 + taken++}; }, kernelbench_trials(5), false, "wall",
      [](double) { ADD_FAILURE() << "waited for a clock it cannot read"; });
  EXPECT_EQ(stats.n, 5);
  EXPECT_EQ(stats.throttled_samples, 0);
  EXPECT_TRUE(stats.sm_clock_mhz.empty());
  EXPECT_FALSE(detail::throttled({.ms = 1, .sm_clock_mhz = 100, .sm_clock_max_mhz = 0}, 0.75));
}

TEST(Throttling, ASecondRoundKeepsTheClocksPairedAndAddsTheDiscards) {
  CandidateResult first = timed({1.0, 1.1}, 2, 0.1), second = timed({1.2}, 1, 0.1);
  first.latency->sm_clock_mhz = {1980, 1970};
  first.latency->throttled_samples = 3;
  second.latency->sm_clock_mhz = {1900};
  second.latency->throttled_samples = 1;
  add_timing_round(first, second);
  EXPECT_EQ(first.latency->sm_clock_mhz, (std::vector<int>{1980, 1970, 1900}));
  EXPECT_EQ(first.latency->throttled_samples, 4);
}

}  // namespace
}  // namespace kg
