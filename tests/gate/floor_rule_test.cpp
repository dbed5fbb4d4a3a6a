// A time no hardware reaches is a finding (floor_rule.hpp): the fixture H100
// run at l1_071's full axes, whose floor on h100-sxm is 0.306 ms (memory)
// for every precision, with one candidate's median moved around half of it.
#include "fixtures.hpp"
#include "kernelgate/detail/floor_rule.hpp"
#include "kernelgate/detail/runner.hpp"
#include "support/stock_suite.hpp"

namespace kg {
namespace {

using namespace test;
using test_support::stock_suite;

RunResult full_size_run(double fused_median_ms) {
  RunResult run = fixture_run("run_h100.json");
  run.axes = stock_suite(run.workload).default_axes();
  std::vector<double> samples;
  for (int i = -5; i <= 5; ++i) samples.push_back(fused_median_ms * (1 + 0.01 * i));
  candidate(run, "fused_tf32").latency = latency_statistics(samples, "adaptive", "cuda_event", 0);
  return run;
}

TEST(FloorRule, AMedianUnderHalfTheFloorIsAContractViolation) {
  const Suite suite = stock_suite("l1_071_conv_transposed_2d");
  EXPECT_NEAR(*latency_floor_ms(suite, suite.default_axes(), "h100-sxm", "tf32"), 0.30582, 0.00001);
  RunResult run = full_size_run(0.15);
  apply_floor_rule(suite, run);
  const CandidateResult& fused = candidate(run, "fused_tf32");
  EXPECT_EQ(fused.outcome, Outcome::contract_violation);
  EXPECT_EQ(check(fused, kContractCheck).rule, kBelowFloorRule);
  EXPECT_THAT(fused.message, HasSubstr("below_floor: a median of 0.15 ms is under 0.5 of the tf32 floor of 0.305821"));
  EXPECT_TRUE(fused.latency.has_value());  // the evidence stays
  EXPECT_EQ(candidate(run, "cudnn_eager").outcome, Outcome::passed);  // 1.5 ms
  // Failed, it is never gated: no record to publish.
  const GateVerdict verdict = evaluate_gate(run, nullptr, fixture_options());
  EXPECT_FALSE(verdict.find("fused_tf32")->gated);
  EXPECT_FALSE(verdict.find("fused_tf32")->record.has_value());
}

TEST(FloorRule, HalfTheFloorAndAboveIsATime) {
  const Suite suite = stock_suite("l1_071_conv_transposed_2d");
  RunResult run = full_size_run(0.16);
  apply_floor_rule(suite, run);
  EXPECT_EQ(candidate(run, "fused_tf32").outcome, Outcome::passed);
}

TEST(FloorRule, NoFloorOnTheCpuKeyOrTheSimulatedGpu) {
  const Suite suite = stock_suite("l1_071_conv_transposed_2d");
  for (const std::string hardware : {"cpu", "sim-h100-sxm", ""}) {
    EXPECT_FALSE(latency_floor_ms(suite, suite.default_axes(), hardware, "fp32").has_value()) << hardware;
    RunResult run = full_size_run(1e-6);
    run.hardware = hardware;
    apply_floor_rule(suite, run);
    EXPECT_EQ(candidate(run, "fused_tf32").outcome, Outcome::passed) << hardware;
  }
}

TEST(FloorRule, AFailedCandidateKeepsItsOwnFinding) {
  const Suite suite = stock_suite("l1_071_conv_transposed_2d");
  RunResult run = full_size_run(0.01);
  CandidateResult& fused = candidate(run, "fused_tf32");
  fused.checks.push_back(make_check(kEquivalenceCheck, Outcome::incorrect, "wrong"));
  decide(fused);
  apply_floor_rule(suite, run);
  EXPECT_EQ(fused.outcome, Outcome::incorrect);
  EXPECT_EQ(fused.message, "wrong");
}

}  // namespace
}  // namespace kg
