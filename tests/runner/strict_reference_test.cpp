// The whole-output check against a workload's strict-FP32 GPU reference,
// which the runner adds where the float64 comparison is only sampled. The
// test oracle is registered as the strict reference (test_candidates.cpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "kernelgate/detail/runner.hpp"
#include "test_candidates.hpp"

namespace kg::testing {
namespace {

using ::testing::HasSubstr;

// Only the first and the last element are sampled (the tiny output has 210).
RunOptions sampled_options(const std::string& id) {
  RunOptions options;
  options.preset = "ci";
  options.axis_overrides = tiny_axes();
  options.candidate_ids = {id};
  options.timing.protocol = "none";
  options.timeout_s = 20;
  options.thread_orders = {"forward"};
  options.full_reference_max_elements = 100;
  options.sample_points = 2;
  return options;
}

CandidateResult run_sampled(const std::string& id) {
  const Suite suite = find_suite(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR), kTestWorkload);
  const DeviceDescription device = describe_device("cpu");
  RunResult run = run_workload(suite, device, sampled_options(id));
  EXPECT_EQ(run.candidates.size(), 1u);
  return run.candidates.at(0);
}

std::string check_message(const CandidateResult& result, const std::string& name) {
  for (const auto& check : result.checks)
    if (check.name == name) return check.message;
  ADD_FAILURE() << "no " << name << " check";
  return {};
}

TEST(StrictReference, CorrectCandidatePassesAndTheCheckSaysSo) {
  const auto result = run_sampled("oracle");
  EXPECT_EQ(result.outcome, Outcome::passed) << result.message;
  ASSERT_TRUE(result.error.has_value());
  EXPECT_TRUE(result.error->sampled);
  EXPECT_THAT(check_message(result, "equivalence"), HasSubstr("strict-FP32 GPU reference (test oracle)"));
}

TEST(StrictReference, CatchesAnErrorBetweenTheSampledPoints) {
  // Element 105 is wrong; the float64 samples (0 and 209) cannot see it.
  const auto result = run_sampled("wrong_one_element");
  EXPECT_EQ(result.outcome, Outcome::incorrect) << result.message;
  EXPECT_THAT(result.message, HasSubstr("input set A, every element against the strict-FP32 GPU reference"));
  ASSERT_TRUE(result.error.has_value());
  EXPECT_FALSE(result.error->sampled);
  EXPECT_EQ(result.error->checked, 210);
  EXPECT_EQ(result.error->first_mismatch_index, 105);
}

TEST(StrictReference, ABrokenReferenceStopsTheRunNamingItself) {
  ASSERT_EQ(setenv("KG_TEST_BREAK_STRICT_REFERENCE", "1", 1), 0);
  const auto result = run_sampled("oracle");
  unsetenv("KG_TEST_BREAK_STRICT_REFERENCE");
  EXPECT_EQ(result.outcome, Outcome::crashed) << result.message;
  EXPECT_THAT(result.message, HasSubstr("the strict-FP32 GPU reference of " + kTestWorkload +
                                        " (test oracle) disagrees with the float64 reference on input set A"));
}

}  // namespace
}  // namespace kg::testing
