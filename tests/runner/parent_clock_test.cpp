// The parent's clock bounds the times the child reports (check_candidate.cpp,
// docs/runner.md "Timing protocols"): a child that reports a hundredth of
// what its candidate's calls took, as one whose timer was patched would, is
// contract_violation (parent_clock); the same child reporting honestly
// passes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "candidate_host.hpp"
#include "kernelgate/detail/device.hpp"
#include "kernelgate/detail/runner.hpp"
#include "runner_internal.hpp"
#include "test_candidates.hpp"

namespace kg::testing {
namespace {

// An in-process host whose timed runs report `scale` times what they took.
class ScaledTimerSession final : public detail::CandidateSession {
 public:
  ScaledTimerSession(Device& device, double scale) : host_(device), scale_(scale) {}
  detail::Message call(const detail::Message& command) override {
    detail::Message reply = host_.call(command);
    if (command.header.at("command") == "run" && command.header.at("timed") == true &&
        reply.header.contains("time_ms"))
      reply.header["time_ms"] = reply.header["time_ms"].get<double>() * scale_;
    return reply;
  }

 private:
  detail::InProcessSession host_;
  double scale_;
};

const Candidate& slow_oracle() {
  for (const Candidate* candidate : candidates_for(kTestWorkload))
    if (candidate->id == "oracle_slow") return *candidate;
  throw Error("no oracle_slow test candidate");
}

// oracle_slow (20 ms a call) checked and timed at the tiny shape, six samples.
CandidateResult timed_with_scale(double scale) {
  const Suite suite = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), kTestWorkload);
  const Axes axes = suite.resolve_axes("ci", tiny_axes());
  RunOptions options;
  options.timing.protocol = "adaptive";
  options.timing.min_samples = 6;
  options.timing.max_samples = 6;
  options.timing.budget_s = 0;
  const detail::ReferencePoints reference = detail::compute_reference_points(suite, axes, options);
  auto device = open_device("cpu");
  ScaledTimerSession session(*device, scale);
  const detail::SessionRequest request{.device = device->name(), .thread_order = {}, .tensor_cores = {}, .nonce = {}};
  return detail::check_through_session(suite, slow_oracle(), axes, options, reference, request, describe(*device),
                                       session);
}

TEST(ParentClock, AChildReportingAHundredthOfItsTimeIsAFinding) {
  const CandidateResult result = timed_with_scale(0.01);
  EXPECT_EQ(result.outcome, Outcome::contract_violation);
  EXPECT_THAT(result.message, ::testing::StartsWith("parent_clock: timed samples: in every one of 6 samples the child "
                                                    "reported under a quarter of what the parent's clock saw"));
  EXPECT_FALSE(result.latency.has_value());
}

TEST(ParentClock, AnHonestChildPasses) {
  const CandidateResult result = timed_with_scale(1.0);
  EXPECT_EQ(result.outcome, Outcome::passed) << result.message;
  ASSERT_TRUE(result.latency.has_value());
  EXPECT_GE(result.latency->median_ms, 20.0);
}

}  // namespace
}  // namespace kg::testing
