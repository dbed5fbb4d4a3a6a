// Latency statistics and the timing protocols on the cpu device; the
// throttle rule with a simulated GPU clock.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "kernelgate/detail/runner.hpp"
#include "kernelgate/detail/throttle_rule.hpp"
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

// A GPU whose SM clock (boost 1980 MHz) follows `clocks`, one per sample
// taken; each sample takes 2 ms at full clock and longer in proportion below
// it, as a compute-bound kernel would. `reasons` are NVML's clocks-event
// reasons of each sample (-1: a driver that gives none), `set_mhz` the
// application clock the GPU reports as set (0: none).
struct SimulatedClock {
  explicit SimulatedClock(std::vector<int> clocks, std::vector<std::int64_t> reasons = {-1}, int set_mhz = 0)
      : clocks(std::move(clocks)), reasons(std::move(reasons)), set_mhz(set_mhz) {}
  std::vector<int> clocks;
  std::vector<std::int64_t> reasons;
  int set_mhz;
  std::size_t taken = 0;
  std::vector<double> waits;
  TimedLaunch sample() {
    const std::size_t i = taken++;
    const int mhz = clocks[std::min(i, clocks.size() - 1)];
    return {.ms = 2.0 * 1980 / mhz,
            .sm_clock_mhz = mhz,
            .sm_clock_max_mhz = 1980,
            .sm_clock_set_mhz = set_mhz,
            .clock_event_reasons = reasons[std::min(i, reasons.size() - 1)]};
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
  EXPECT_FALSE(judge_throttle({.ms = 1, .sm_clock_mhz = 100, .sm_clock_max_mhz = 0}, 0.75).throttled);
}

// `nvidia-smi -lgc 1410`: 71% of the boost clock, steady. NVML names the
// setting as the reason, so no sample is throttled, and none waits.
TEST(Throttling, AClockLockedAt71PercentOfBoostKeepsEverySample) {
  SimulatedClock locked{{1410}, {std::int64_t(clock_event::kApplicationsClocksSetting)}};
  const LatencyStats stats = measure(locked, kernelbench_trials(20));
  EXPECT_EQ(stats.n, 20);
  EXPECT_EQ(stats.throttled_samples, 0);
  EXPECT_TRUE(locked.waits.empty());
  EXPECT_EQ(stats.sm_clock_mhz, std::vector<int>(20, 1410));
  EXPECT_EQ(stats.clock_event_reasons, std::vector<std::string>{"applications_clocks_setting"});
}

// A driver that gives no reasons, but an application clock set at 1410 MHz:
// the samples are judged against that clock, not the boost clock.
TEST(Throttling, AnApplicationClockIsTheReferenceWhereTheDriverGivesNoReason) {
  SimulatedClock set{{1410}, {-1}, 1410};
  EXPECT_EQ(measure(set, kernelbench_trials(10)).throttled_samples, 0);
  // Well under that clock, still no reason given: throttled, as before.
  SimulatedClock sagging{{1410, 1000, 1410}, {-1}, 1410};
  const LatencyStats stats = measure(sagging, kernelbench_trials(2));
  EXPECT_EQ(stats.throttled_samples, 1);
  EXPECT_EQ(stats.n, 2);
}

// 20% of the samples at half clock under hardware slowdown: those are
// discarded and counted, the others kept; the reason is reported.
TEST(Throttling, AStretchAtHalfClockIsDiscardedAndCounted) {
  const auto slowdown = std::int64_t(clock_event::kHwSlowdown);
  std::vector<int> clocks(10, 1980);
  std::vector<std::int64_t> reasons(10, 0);
  for (int i = 4; i < 6; ++i) clocks[i] = 990, reasons[i] = slowdown;
  SimulatedClock gpu{clocks, reasons};
  const LatencyStats stats = measure(gpu, kernelbench_trials(8));
  EXPECT_EQ(stats.n, 8);
  EXPECT_EQ(stats.throttled_samples, 2);
  EXPECT_EQ(gpu.waits.size(), 2u);
  EXPECT_DOUBLE_EQ(stats.max_ms, 2.0);  // no half-clock sample kept
  EXPECT_EQ(stats.clock_event_reasons, std::vector<std::string>{"hw_slowdown"});
}

// A power-capped card drifting down from boost: the samples still above 75%
// of boost are kept, the ones below are discarded, each for the power cap.
TEST(Throttling, PowerCappedDriftDiscardsOnlyTheSamplesBelowTheFraction) {
  const std::vector<int> drift{1980, 1860, 1740, 1620, 1500, 1480, 1400, 1350, 1300};
  SimulatedClock capped{drift, {std::int64_t(clock_event::kSwPowerCap)}};
  TimingOptions options = kernelbench_trials(100);
  options.max_throttled_samples = 4;  // the drift never recovers: stop after four discards
  const LatencyStats stats = measure(capped, options);
  EXPECT_EQ(stats.sm_clock_mhz, (std::vector<int>{1980, 1860, 1740, 1620, 1500}));
  EXPECT_EQ(stats.throttled_samples, 4);  // 1480, 1400, 1350, 1300 (and the protocol stopped)
  EXPECT_EQ(stats.clock_event_reasons, std::vector<std::string>{"sw_power_cap"});
}

TEST(ThrottleRule, IdlingAndSyncBoostAreNoThrottling) {
  const TimedLaunch idle{.ms = 1, .sm_clock_mhz = 345, .sm_clock_max_mhz = 1980,
                         .clock_event_reasons = std::int64_t(clock_event::kGpuIdle | clock_event::kSyncBoost)};
  EXPECT_FALSE(judge_throttle(idle, 0.75).throttled);
  TimedLaunch thermal = idle;
  thermal.clock_event_reasons = std::int64_t(clock_event::kGpuIdle | clock_event::kHwThermalSlowdown);
  const ThrottleVerdict verdict = judge_throttle(thermal, 0.75);
  EXPECT_TRUE(verdict.throttled);
  EXPECT_EQ(verdict.cause, "345 MHz, under 75% of the boost clock of 1980 MHz, throttled by hw_thermal_slowdown");
  // No reason from the driver: judged by the clock alone, and said so.
  TimedLaunch unexplained = idle;
  unexplained.clock_event_reasons = -1;
  EXPECT_THAT(judge_throttle(unexplained, 0.75).cause, ::testing::HasSubstr("the driver gives no reason"));
}

TEST(ThrottleRule, ReasonNamesFollowTheBitsAndNameUnknownOnes) {
  EXPECT_EQ(clock_event_reason_names(clock_event::kSwPowerCap | clock_event::kApplicationsClocksSetting),
            (std::vector<std::string>{"applications_clocks_setting", "sw_power_cap"}));
  EXPECT_EQ(clock_event_reason_names(0x400), std::vector<std::string>{"0x400"});
  EXPECT_TRUE(clock_event_reason_names(0).empty());
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

TEST(Throttling, ASecondRoundJoinsTheReasonsAndTheExpiredHolds) {
  CandidateResult first = timed({1.0, 1.1}, 2, 0.1), second = timed({1.2}, 1, 0.1);
  first.latency->clock_event_reasons = {"applications_clocks_setting"};
  first.latency->hold_expired_samples = 1;
  second.latency->clock_event_reasons = {"sw_power_cap", "applications_clocks_setting"};
  second.latency->hold_expired_samples = 2;
  add_timing_round(first, second);
  EXPECT_EQ(first.latency->clock_event_reasons,
            (std::vector<std::string>{"applications_clocks_setting", "sw_power_cap"}));
  EXPECT_EQ(first.latency->hold_expired_samples, 3);
}

}  // namespace
}  // namespace kg
