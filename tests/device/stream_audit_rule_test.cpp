// The stream audit's rule on hand-made activity records (the GPU path feeds it
// CUPTI's records; the rule itself needs no GPU).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernelgate/stream_audit_rule.hpp"

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

}  // namespace
}  // namespace kg
