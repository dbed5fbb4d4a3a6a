// Same-job A/B (compare_runs): head's runner records against base's, with
// the gate's sample comparison, on the fixture run with samples added.
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kernelgate/detail/ab_comparison.hpp"
#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/runner.hpp"
#include "support/stock_suite.hpp"

namespace kg {
namespace {

using namespace test;  // the fixtures and matchers (fixtures.hpp)

// The fixture run with 200 samples per timed candidate around its mean
// times factor (cudnn_eager: eager_factor).
RunResult sampled_run(double factor, double eager_factor = 1.0) {
  RunResult run = fixture_run("run_h100.json");
  for (auto& c : run.candidates) {
    if (!c.latency) continue;
    const double f = c.id == kEagerBaselineId ? eager_factor : factor;
    set_samples(*c.latency, samples_around(c.latency->mean_ms * f, 0.04, 200));
  }
  return run;
}

// The fixture run's workload.
const Suite& fixture_suite() {
  static const Suite suite = test_support::stock_suite("l1_071_conv_transposed_2d");
  return suite;
}

const CandidateAB& find(const RunAB& ab, const std::string& id) {
  for (const auto& c : ab.candidates)
    if (c.implementation == id) return c;
  throw std::runtime_error("no " + id);
}

TEST(AbComparison, HeadAsFastAsBasePasses) {
  const RunAB ab = compare_runs(fixture_suite(), sampled_run(1.0), sampled_run(1.0), {});
  const CandidateAB& fused = find(ab, "fused_tf32");
  EXPECT_EQ(fused.outcome, Outcome::passed) << fused.message;
  ASSERT_TRUE(fused.comparison);
  EXPECT_TRUE(fused.relative_to_eager);
  EXPECT_NEAR(fused.comparison->ratio, 1.0, 1e-9);
  EXPECT_EQ(ab_exit_code({ab}), 0);
}

TEST(AbComparison, HeadTenPercentSlowerRegresses) {
  const RunAB ab = compare_runs(fixture_suite(), sampled_run(1.0), sampled_run(1.10), {});
  const CandidateAB& fused = find(ab, "fused_tf32");
  EXPECT_EQ(fused.outcome, Outcome::regressed) << fused.message;
  EXPECT_THAT(fused.message, HasSubstr("typical latency 1.100x base's relative to cudnn_eager"));
  EXPECT_EQ(ab_exit_code({ab}), 1);
  const std::string table = ab_markdown({ab});
  EXPECT_THAT(table, HasSubstr("| `fused_tf32` | regressed | 1.100x |"));
}

// The head job on a machine slower as a whole: cudnn_eager moved too.
TEST(AbComparison, AMachineSlowerAsAWholeIsNotARegression) {
  const RunAB ab = compare_runs(fixture_suite(), sampled_run(1.0), sampled_run(1.10, 1.10), {});
  EXPECT_EQ(find(ab, "fused_tf32").outcome, Outcome::passed) << find(ab, "fused_tf32").message;
}

TEST(AbComparison, AHeadFailureOrANewCandidateIsSaidAsSuch) {
  RunResult head = sampled_run(1.0);
  candidate(head, "fused_tf32").outcome = Outcome::incorrect;
  candidate(head, "fused_tf32").message = "max abs error 3";
  RunResult base = sampled_run(1.0);
  base.candidates.erase(base.candidates.begin() + 2);  // implicit_gemm_tf32: new in head
  const RunAB ab = compare_runs(fixture_suite(), base, head, {});
  EXPECT_EQ(find(ab, "fused_tf32").outcome, Outcome::incorrect);
  EXPECT_EQ(find(ab, "implicit_gemm_tf32").outcome, Outcome::new_record);
  EXPECT_EQ(ab_exit_code({ab}), 1);
}

TEST(AbComparison, TheTableKeepsItsColumnsWhateverAMessageHolds) {
  RunResult head = sampled_run(1.0);
  candidate(head, "fused_tf32").outcome = Outcome::crashed;
  candidate(head, "fused_tf32").message = "printed | a | b\nthen died";
  const std::string table = ab_markdown({compare_runs(fixture_suite(), sampled_run(1.0), head, {})});
  // The same cell text as the run's own Markdown summary: | escaped, the
  // line break a space.
  EXPECT_THAT(table, HasSubstr("| head crashed: printed \\| a \\| b then died |\n"));
}

TEST(AbComparison, RunsOfDifferentAxesOrIdentityAreRefused) {
  RunResult head = sampled_run(1.0);
  head.axes["batch_size"] += 1;
  EXPECT_THROW(compare_runs(fixture_suite(), sampled_run(1.0), head, {}), Error);
  RunResult other = sampled_run(1.0);
  other.identity = std::string(64, 'f');
  EXPECT_THROW(compare_runs(fixture_suite(), sampled_run(1.0), other, {}), Error);
}

TEST(AbComparison, InterpretModeSamplesAreInformationalUnlessAskedFor) {
  RunResult base = sampled_run(1.0), head = sampled_run(1.5);
  for (RunResult* run : {&base, &head})
    for (auto& c : run->candidates)
      if (c.latency) c.latency->clock = "wall";
  EXPECT_EQ(find(compare_runs(fixture_suite(), base, head, {}), "fused_tf32").outcome, Outcome::passed);
  GatePolicy gated;
  gated.gate_wall_clock = true;
  EXPECT_EQ(find(compare_runs(fixture_suite(), base, head, gated), "fused_tf32").outcome, Outcome::regressed);
}

// The floor rule on both sides (floor_rule.hpp): at l1_071's full axes
// (floor 0.306 ms on h100-sxm), a head at a tenth of a millisecond fails as
// below_floor; a base there is no time to compare with, so its head is new.
TEST(AbComparison, ATimeUnderItsFloorIsJudgedOnBothSides) {
  // The fixture run at full axes (fused_tf32 around 0.6 ms), its fused_tf32
  // at 0.1 ms when `fast`.
  auto at_full_size = [](bool fast) {
    RunResult run = sampled_run(1.0);
    run.axes = fixture_suite().default_axes();
    if (fast)
      candidate(run, "fused_tf32").latency = latency_statistics(samples_around(0.1, 0.04, 200), "adaptive",
                                                                "cuda_event", 0);
    return run;
  };
  const RunAB fast_head = compare_runs(fixture_suite(), at_full_size(false), at_full_size(true), {});
  EXPECT_EQ(find(fast_head, "fused_tf32").outcome, Outcome::contract_violation);
  EXPECT_THAT(find(fast_head, "fused_tf32").message, HasSubstr("below_floor: "));
  const RunAB fast_base = compare_runs(fixture_suite(), at_full_size(true), at_full_size(false), {});
  EXPECT_EQ(find(fast_base, "fused_tf32").outcome, Outcome::new_record);
}

}  // namespace
}  // namespace kg
