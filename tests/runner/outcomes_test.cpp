// Every outcome the runner decides, each from a test candidate run in its own
// child process on the cpu device (test_candidates.cpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "kernelgate/detail/runner.hpp"
#include "support/error_of.hpp"
#include "test_candidates.hpp"

namespace kg::testing {
namespace {

using ::testing::HasSubstr;

RunOptions quick_options(std::vector<std::string> ids) {
  RunOptions options;
  options.preset = "ci";
  options.axis_overrides = tiny_axes();
  options.candidate_ids = std::move(ids);
  options.timing.protocol = "none";
  options.timeout_s = 20;
  return options;
}

Suite fresh_test_suite() { return find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), kTestWorkload); }

CandidateResult run_one(const std::string& id, RunOptions options = {}, const Suite& suite = fresh_test_suite()) {
  if (options.candidate_ids.empty()) options = quick_options({id});
  const DeviceDescription device = describe_device("cpu");
  RunResult run = run_workload(suite, device, options);
  EXPECT_EQ(run.candidates.size(), 1u);
  return run.candidates.at(0);
}

const CheckResult* find_check(const CandidateResult& result, const std::string& name) {
  for (const auto& check : result.checks)
    if (check.name == name) return &check;
  return nullptr;
}

void expect_violation(const CandidateResult& result, const std::string& rule) {
  EXPECT_EQ(result.outcome, Outcome::contract_violation) << result.message;
  const CheckResult* contract = find_check(result, "contract");
  ASSERT_NE(contract, nullptr);
  EXPECT_EQ(contract->rule, rule);
  EXPECT_THAT(result.message, HasSubstr(rule));
}

// The one rule every outcome comes from (decide_outcome, result.hpp).
TEST(DecideOutcome, TheWorstFailureWithItsMessage) {
  std::vector<CheckResult> checks = {make_check("equivalence", Outcome::passed, "also strict"),
                                     make_check("staleness", Outcome::stale, "older than 90 days"),
                                     make_check("latency", Outcome::regressed, "12% slower"),
                                     make_check("contract", Outcome::passed)};
  OutcomeDecision decision = decide_outcome(checks);
  EXPECT_EQ(decision.outcome, Outcome::regressed);
  EXPECT_EQ(decision.message, "12% slower");
  checks[3] = make_check("contract", Outcome::contract_violation, "guard_bands: after output y");
  decision = decide_outcome(checks);
  EXPECT_EQ(decision.outcome, Outcome::contract_violation);
  EXPECT_EQ(decision.message, "guard_bands: after output y");
  // Two checks of the same failure: the first one's message.
  checks.push_back(make_check("isolation", Outcome::contract_violation, "second"));
  EXPECT_EQ(decide_outcome(checks).message, "guard_bands: after output y");
}

TEST(DecideOutcome, PassedNewNotSupportedAndNothing) {
  EXPECT_EQ(decide_outcome({}).outcome, Outcome::skipped);
  const OutcomeDecision passed = decide_outcome({make_check("contract", Outcome::passed),
                                                 make_check("latency", Outcome::passed, "a warning"),
                                                 make_check("staleness", Outcome::skipped, "no record")});
  EXPECT_EQ(passed.outcome, Outcome::passed);
  EXPECT_EQ(passed.message, "");
  EXPECT_EQ(decide_outcome({make_check("contract", Outcome::passed), make_check("latency", Outcome::new_record)}).outcome,
            Outcome::new_record);
  const OutcomeDecision unsupported = decide_outcome({make_check("support", Outcome::not_supported, "groups > 1")});
  EXPECT_EQ(unsupported.outcome, Outcome::not_supported);
  EXPECT_EQ(unsupported.message, "groups > 1");
  // A failure outranks everything else.
  EXPECT_EQ(decide_outcome({make_check("latency", Outcome::new_record), make_check("staleness", Outcome::stale)})
                .outcome,
            Outcome::stale);
}

TEST(DecideOutcome, OnlyATimedCandidateThatDidNotFailIsJudged) {
  CandidateResult c;
  c.outcome = Outcome::passed;
  EXPECT_EQ(judgeable_latency(&c), nullptr);  // never timed
  c.latency = latency_statistics({1.0, 1.2}, "adaptive", "wall", 0);
  EXPECT_EQ(judgeable_latency(&c), &*c.latency);
  for (Outcome o : {Outcome::incorrect, Outcome::not_supported, Outcome::skipped, Outcome::stale}) {
    c.outcome = o;
    EXPECT_EQ(judgeable_latency(&c), nullptr) << to_string(o);
  }
  c.outcome = Outcome::new_record;
  EXPECT_NE(judgeable_latency(&c), nullptr);
  EXPECT_EQ(judgeable_latency(nullptr), nullptr);
}

TEST(RunnerOutcomes, CorrectCandidatePassesUnderBothThreadOrders) {
  const auto result = run_one("oracle");
  EXPECT_EQ(result.outcome, Outcome::passed) << result.message;
  ASSERT_TRUE(result.error.has_value());
  EXPECT_EQ(result.error->checked, 1 * 5 * 6 * 7);
  EXPECT_FALSE(result.error->sampled);
  EXPECT_EQ(result.error->mismatches, 0);
  EXPECT_TRUE(result.error->kernelbench_1e4);
  EXPECT_EQ(result.thread_orders, (std::vector<std::string>{"forward", "reverse"}));
  ASSERT_TRUE(result.bitwise_deterministic.has_value());
  EXPECT_TRUE(*result.bitwise_deterministic);
}

TEST(RunnerOutcomes, SampledComparisonAtLargerShapes) {
  RunOptions options = quick_options({"oracle"});
  options.full_reference_max_elements = 100;  // the tiny output has 210 elements
  options.sample_points = 50;
  const auto result = run_one("oracle", options);
  EXPECT_EQ(result.outcome, Outcome::passed) << result.message;
  ASSERT_TRUE(result.error.has_value());
  EXPECT_TRUE(result.error->sampled);
  EXPECT_GE(result.error->checked, 40);  // 50 picks, duplicates removed
  EXPECT_LE(result.error->checked, 50);
}

TEST(RunnerOutcomes, TimingStatisticsComeBack) {
  RunOptions options = quick_options({"oracle"});
  options.timing.protocol = "kernelbench";
  options.timing.trials = 5;
  options.thread_orders = {"forward"};
  const auto result = run_one("oracle", options);
  ASSERT_EQ(result.outcome, Outcome::passed) << result.message;
  ASSERT_TRUE(result.latency.has_value());
  EXPECT_EQ(result.latency->protocol, "kernelbench");
  EXPECT_EQ(result.latency->clock, "wall");
  EXPECT_EQ(result.latency->warmups, 3);
  EXPECT_EQ(result.latency->n, 5);
  EXPECT_GT(result.latency->mean_ms, 0);
  EXPECT_LE(result.latency->min_ms, result.latency->median_ms);
  EXPECT_LE(result.latency->median_ms, result.latency->max_ms);
  // The runner hands the figures over; judging them (the latency check) is
  // the gate's alone.
  for (const CheckResult& check : result.checks) EXPECT_NE(check.name, "latency");
}

// The git revision a run records while GITHUB_SHA is `sha` (nothing runs:
// the only candidate asked for is never supported).
std::string recorded_revision(const std::string& sha) {
  EXPECT_EQ(setenv("GITHUB_SHA", sha.c_str(), 1), 0);
  const Suite suite = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), kTestWorkload);
  const DeviceDescription device = describe_device("cpu");
  const RunResult run = run_workload(suite, device, quick_options({"never_supported"}));
  unsetenv("GITHUB_SHA");
  return run.environment.value("git_revision", std::string());
}

TEST(RunnerOutcomes, TheRunRecordsCisGitRevision) {
  const std::string sha = "0123456789abcdef0123456789abcdef01234567";
  EXPECT_EQ(recorded_revision(sha), sha);
}

TEST(RunnerOutcomes, AMalformedGithubShaIsNotRecorded) {
  // The source tree's HEAD (40 hex digits, "-dirty" if it has changes) or
  // nothing, never "main".
  const std::string recorded = recorded_revision("main");
  EXPECT_NE(recorded, "main");
  EXPECT_TRUE(recorded.empty() || recorded.size() == 40 ||
              (recorded.size() == 46 && recorded.ends_with("-dirty")))
      << recorded;
}

TEST(RunnerOutcomes, UnsupportedAxesAreNotRun) {
  const auto result = run_one("never_supported");
  EXPECT_EQ(result.outcome, Outcome::not_supported);
  EXPECT_EQ(result.message, "test: no shape is supported");
}

TEST(RunnerOutcomes, WrongElementIsIncorrectWithItsIndex) {
  const auto result = run_one("wrong_one_element");
  EXPECT_EQ(result.outcome, Outcome::incorrect) << result.message;
  ASSERT_TRUE(result.error.has_value());
  EXPECT_EQ(result.error->mismatches, 1);
  EXPECT_EQ(result.error->first_mismatch_index, 210 / 2);
  EXPECT_NEAR(result.error->first_mismatch_got - result.error->first_mismatch_want, 1.0, 1e-4);
  EXPECT_FALSE(result.error->kernelbench_1e2);
  // Output (1, 5, 6, 7): 105 = 2 x 42 + 3 x 7.
  EXPECT_THAT(result.message, HasSubstr("first at (n=0, c=2, h=3, w=0), flat index 105"));
}

TEST(RunnerOutcomes, MismatchesOfOneChannelAreNamedAsSuch) {
  const auto result = run_one("wrong_last_channel");
  EXPECT_EQ(result.outcome, Outcome::incorrect) << result.message;
  // The 42 elements of channel 4 (1 x 6 x 7), all compared at this size.
  EXPECT_THAT(result.message, HasSubstr("first at (n=0, c=4, h=0, w=0), flat index 168; all 42 mismatches share c=4"));
}

TEST(RunnerOutcomes, NanNeverPasses) {
  const auto result = run_one("writes_nan");
  EXPECT_EQ(result.outcome, Outcome::incorrect) << result.message;
  ASSERT_TRUE(result.error.has_value());
  EXPECT_TRUE(result.error->non_finite);
  EXPECT_EQ(result.error->first_mismatch_index, 3);
  EXPECT_TRUE(std::isnan(result.error->first_mismatch_got));  // survives the JSON round trip
}

// A candidate that breaks one rule of the contract: the rule the runner names
// and what its message says besides.
struct Violation {
  const char* candidate;
  const char* rule;
  const char* says;
};
void PrintTo(const Violation& violation, std::ostream* out) { *out << violation.candidate; }

class ContractViolations : public ::testing::TestWithParam<Violation> {};

TEST_P(ContractViolations, AreNamedByTheirRule) {
  const auto result = run_one(GetParam().candidate);
  expect_violation(result, GetParam().rule);
  EXPECT_THAT(result.message, HasSubstr(GetParam().says));
}

INSTANTIATE_TEST_SUITE_P(
    RunnerOutcomes, ContractViolations,
    ::testing::Values(Violation{"writes_half", "output_fully_written", "105 of 210"},  // partly written output
                      Violation{"mutates_input", "inputs_unchanged", "input x"},
                      Violation{"writes_past_end", "guard_bands", "after output y"},
                      Violation{"replays_first_answer", "fresh_inputs", "fresh_inputs"},  // an answer replayed
                      Violation{"drifts_on_repeat", "repeat_agreement", "repeat_agreement"},  // runs disagree
                      Violation{"default_stream", "launch_stream", "default stream"}),
    [](const ::testing::TestParamInfo<Violation>& info) { return std::string(info.param.candidate); });

TEST(RunnerOutcomes, MutatedInputPassesWhereTheSuiteAllowsIt) {
  // contract.no_mutation false: an in-place workload. The input is restored
  // before every launch, so the candidate is still judged on fresh inputs.
  Suite in_place = fresh_test_suite();
  in_place.contract.no_mutation = false;
  const auto result = run_one("mutates_input", {}, in_place);
  EXPECT_EQ(result.outcome, Outcome::passed) << result.message;
}

TEST(RunnerOutcomes, LastBitJitterPassesButIsNotBitwiseDeterministic) {
  const auto result = run_one("last_bit_jitter");
  EXPECT_EQ(result.outcome, Outcome::passed) << result.message;
  ASSERT_TRUE(result.bitwise_deterministic.has_value());
  EXPECT_FALSE(*result.bitwise_deterministic);
}

TEST(RunnerOutcomes, EveryThreadOrderIsChecked) {
  const auto result = run_one("wrong_under_reverse");
  EXPECT_EQ(result.outcome, Outcome::incorrect) << result.message;
  EXPECT_THAT(result.message, HasSubstr("under thread order reverse"));
  EXPECT_EQ(result.thread_orders, (std::vector<std::string>{"forward", "reverse"}));
}

TEST(RunnerOutcomes, SegfaultIsCrashedWithTheSignalNamed) {
  const auto result = run_one("segfaults");
  EXPECT_EQ(result.outcome, Outcome::crashed);
  EXPECT_THAT(result.message, HasSubstr("SIGSEGV"));
}

TEST(RunnerOutcomes, AbortIsCrashedWithTheSignalNamed) {
  const auto result = run_one("aborts");
  EXPECT_EQ(result.outcome, Outcome::crashed);
  EXPECT_THAT(result.message, HasSubstr("SIGABRT"));
}

TEST(RunnerOutcomes, ExceptionIsCrashedWithItsMessage) {
  const auto result = run_one("throws");
  EXPECT_EQ(result.outcome, Outcome::crashed);
  EXPECT_THAT(result.message, HasSubstr("test candidate gave up"));
}

TEST(RunnerOutcomes, HangIsTimedOutAndTheRunGoesOn) {
  RunOptions options = quick_options({"hangs", "oracle"});
  options.timeout_s = 1.5;
  const Suite suite = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), kTestWorkload);
  const DeviceDescription device = describe_device("cpu");
  std::vector<std::string> finished;
  options.on_result = [&](const CandidateResult& result) { finished.push_back(result.id); };
  RunResult run = run_workload(suite, device, options);
  ASSERT_EQ(run.candidates.size(), 2u);
  EXPECT_EQ(run.candidates[0].outcome, Outcome::timed_out);
  EXPECT_THAT(run.candidates[0].message, HasSubstr("1.5 s"));
  EXPECT_EQ(run.candidates[1].outcome, Outcome::passed) << run.candidates[1].message;
  EXPECT_EQ(finished, (std::vector<std::string>{"hangs", "oracle"}));
  EXPECT_EQ(run.hardware, "cpu");
  EXPECT_EQ(run.workload, kTestWorkload);
  EXPECT_EQ(run.axes.at("height"), 6);
}

TEST(RunnerOutcomes, UnknownCandidateIdIsAnError) {
  const Suite suite = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), kTestWorkload);
  const DeviceDescription device = describe_device("cpu");
  EXPECT_THAT(test::error_of([&] { run_workload(suite, device, quick_options({"no_such_candidate"})); }),
              HasSubstr("has no candidate 'no_such_candidate'"));
}

}  // namespace
}  // namespace kg::testing
