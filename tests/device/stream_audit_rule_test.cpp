// The stream audit's rules on hand-made activity records and timings (the GPU
// path feeds them CUPTI's records and the cuda device's timings; the rules
// themselves need no GPU).
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernelgate/detail/stream_audit_rule.hpp"

namespace kg {
namespace {

constexpr std::uint32_t kHarness = 13;
constexpr std::uint64_t kDone = 5'000'000;

TEST(StreamAuditRule, WorkOnTheHarnessStreamBeforeItDrainedPasses) {
  const std::vector<DeviceActivity> work{{"kernel conv", kHarness, 1'000'000, 2'000'000},
                                         {"memset of 64 bytes", kHarness, 2'100'000, 2'200'000},
                                         {"kernel sum", kHarness, 2'300'000, kDone}};
  EXPECT_EQ(judge_stream_audit(work, kHarness, kDone), "");
  EXPECT_EQ(judge_stream_audit({}, kHarness, kDone), "");
}

TEST(StreamAuditRule, AnotherStreamIsNamed) {
  const std::vector<DeviceActivity> work{{"kernel conv", kHarness, 1'000'000, 2'000'000},
                                         {"kernel sneaky(float*)", 7, 1'500'000, 1'600'000}};
  const std::string verdict = judge_stream_audit(work, kHarness, kDone);
  EXPECT_NE(verdict.find("kernel sneaky(float*)"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("stream 7"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("harness stream 13"), std::string::npos) << verdict;
}

TEST(StreamAuditRule, WorkStartingAfterTheHarnessStreamDrainedIsLateWork) {
  const std::vector<DeviceActivity> work{{"kernel conv", kHarness, 1'000'000, 2'000'000},
                                         {"kernel late", kHarness, kDone + 250'000, kDone + 300'000}};
  const std::string verdict = judge_stream_audit(work, kHarness, kDone);
  EXPECT_NE(verdict.find("kernel late"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("250 us after"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("left running"), std::string::npos) << verdict;
}

TEST(StreamAuditRule, AnotherStreamIsReportedBeforeLateWork) {
  const std::vector<DeviceActivity> work{{"kernel late", kHarness, kDone + 1'000, kDone + 2'000},
                                         {"memcpy of 4 bytes", 0, 1'000, 2'000}};
  const std::string verdict = judge_stream_audit(work, kHarness, kDone);
  EXPECT_EQ(verdict.rfind("memcpy of 4 bytes ran on stream 0", 0), 0u) << verdict;
}

// Timed samples of an honest kernel: the device is idle a few microseconds
// after the stop event, and a host that wakes up late now and then is no finding.
TEST(BusyAfterTiming, AnHonestKernelWithARareSlowWakeUpPasses) {
  std::vector<double> timed(100, 1.2), busy(100, 0.004);
  busy[10] = busy[50] = busy[90] = 20.0;  // the host was descheduled three times
  const BusyAfterTiming verdict = judge_busy_after_timing(timed, busy);
  EXPECT_EQ(verdict.finding, "");
  EXPECT_EQ(verdict.busy_median_ms, 0.004);  // what the latency record keeps
  EXPECT_EQ(verdict.timed_median_ms, 1.2);
  EXPECT_EQ(judge_busy_after_timing({}, {}).finding, "");
  EXPECT_EQ(judge_busy_after_timing({}, {}).busy_median_ms, 0.0);
}

// The kernel moved to a stream of its own once timed: the events time the
// launch call alone, the device runs the work afterwards.
TEST(BusyAfterTiming, WorkLeftOnAnotherStreamIsAFinding) {
  const std::vector<double> timed(100, 0.01), busy(100, 2.0);
  const std::string verdict = judge_busy_after_timing(timed, busy).finding;
  EXPECT_THAT(verdict, ::testing::HasSubstr("stayed busy a median 2 ms per sample"));
  EXPECT_THAT(verdict, ::testing::HasSubstr("timed a median 0.01 ms, over 100 samples"));
  EXPECT_THAT(verdict, ::testing::HasSubstr("outside the harness's stream"));
}

// Below both thresholds nothing is said: under the absolute floor however
// short the timed work, and under a quarter of a long timed sample.
TEST(BusyAfterTiming, SmallTailsAreBelowTheThresholds) {
  EXPECT_EQ(judge_busy_after_timing({0.001, 0.001, 0.001}, {0.04, 0.04, 0.04}).finding, "");
  EXPECT_EQ(judge_busy_after_timing({4.0, 4.0, 4.0}, {0.9, 0.9, 0.9}).finding, "");
  EXPECT_NE(judge_busy_after_timing({4.0, 4.0, 4.0}, {1.1, 1.1, 1.1}).finding, "");
  EXPECT_NE(judge_busy_after_timing({0.001, 0.001, 0.001}, {0.06, 0.06, 0.06}).finding, "");
}

// The CUPTI library the audit may use, by the API version it reports at run
// time: CUDA 12.4 (22), 12.8 (26) and 13.0 Update 1 (130001) are fine; 13.0 GA
// (130000) is refused for its deadlock and crash, and so is anything older
// than 12.4.
TEST(CuptiVersion, SupportedVersionsPass) {
  EXPECT_EQ(cupti_version_problem(22), std::nullopt);
  EXPECT_EQ(cupti_version_problem(26), std::nullopt);
  EXPECT_EQ(cupti_version_problem(130001), std::nullopt);
  EXPECT_EQ(cupti_version_problem(130100), std::nullopt);
}

TEST(CuptiVersion, Cuda13GaIsRefusedWithWhatToInstall) {
  const std::optional<std::string> problem = cupti_version_problem(130000);
  ASSERT_TRUE(problem.has_value());
  EXPECT_THAT(*problem, ::testing::HasSubstr("API version 130000 (CUDA 13.0 GA)"));
  EXPECT_THAT(*problem, ::testing::HasSubstr("deadlock"));
  EXPECT_THAT(*problem, ::testing::HasSubstr("install CUDA 13.0 Update 1"));
  EXPECT_EQ(problem->find('\n'), std::string::npos);
}

TEST(CuptiVersion, OlderThanCuda124IsRefused) {
  const std::optional<std::string> problem = cupti_version_problem(21);
  ASSERT_TRUE(problem.has_value());
  EXPECT_THAT(*problem, ::testing::HasSubstr("API version 21"));
  EXPECT_THAT(*problem, ::testing::HasSubstr("install CUDA 12.4 or later"));
}

}  // namespace
}  // namespace kg
