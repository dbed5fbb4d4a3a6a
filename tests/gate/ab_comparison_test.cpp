// Same-job A/B (compare_runs): head's runner records against base's, with
// the gate's sample comparison, on the fixture run with samples added.
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kernelgate/ab_comparison.hpp"
#include "kernelgate/baseline.hpp"
#include "kernelgate/error.hpp"

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

const CandidateAB& find(const RunAB& ab, const std::string& id) {
  for (const auto& c : ab.candidates)
    if (c.implementation == id) return c;
  throw std::runtime_error("no " + id);
}

TEST(AbComparison, HeadAsFastAsBasePasses) {
  const RunAB ab = compare_runs(sampled_run(1.0), sampled_run(1.0), {});
  const CandidateAB& fused = find(ab, "fused_tf32");
  EXPECT_EQ(fused.outcome, Outcome::passed) << fused.message;
  ASSERT_TRUE(fused.comparison);
  EXPECT_TRUE(fused.relative_to_eager);
  EXPECT_NEAR(fused.comparison->ratio, 1.0, 1e-9);
  EXPECT_EQ(ab_exit_code({ab}), 0);
}

TEST(AbComparison, HeadTenPercentSlowerRegresses) {
  const RunAB ab = compare_runs(sampled_run(1.0), sampled_run(1.10), {});
  const CandidateAB& fused = find(ab, "fused_tf32");
  EXPECT_EQ(fused.outcome, Outcome::regressed) << fused.message;
  EXPECT_THAT(fused.message, HasSubstr("typical latency 1.100x base's relative to cudnn_eager"));
  EXPECT_EQ(ab_exit_code({ab}), 1);
  const std::string table = ab_markdown({ab});
  EXPECT_THAT(table, HasSubstr("| `fused_tf32` | regressed | 1.100x |"));
}

// The head job on a machine slower as a whole: cudnn_eager moved too.
TEST(AbComparison, AMachineSlowerAsAWholeIsNotARegression) {
  const RunAB ab = compare_runs(sampled_run(1.0), sampled_run(1.10, 1.10), {});
  EXPECT_EQ(find(ab, "fused_tf32").outcome, Outcome::passed) << find(ab, "fused_tf32").message;
}

TEST(AbComparison, AHeadFailureOrANewCandidateIsSaidAsSuch) {
  RunResult head = sampled_run(1.0);
  candidate(head, "fused_tf32").outcome = Outcome::incorrect;
  candidate(head, "fused_tf32").message = "max abs error 3";
  RunResult base = sampled_run(1.0);
  base.candidates.erase(base.candidates.begin() + 2);  // implicit_gemm_tf32: new in head
  const RunAB ab = compare_runs(base, head, {});
  EXPECT_EQ(find(ab, "fused_tf32").outcome, Outcome::incorrect);
  EXPECT_EQ(find(ab, "implicit_gemm_tf32").outcome, Outcome::new_record);
  EXPECT_EQ(ab_exit_code({ab}), 1);
}

TEST(AbComparison, TheTableKeepsItsColumnsWhateverAMessageHolds) {
  RunResult head = sampled_run(1.0);
  candidate(head, "fused_tf32").outcome = Outcome::crashed;
  candidate(head, "fused_tf32").message = "printed | a | b\nthen died";
  const std::string table = ab_markdown({compare_runs(sampled_run(1.0), head, {})});
  // The same cell text as the run's own Markdown summary: | escaped, the
  // line break a space.
  EXPECT_THAT(table, HasSubstr("| head crashed: printed \\| a \\| b then died |\n"));
}

TEST(AbComparison, RunsOfDifferentAxesOrIdentityAreRefused) {
  RunResult head = sampled_run(1.0);
  head.axes["batch_size"] += 1;
  EXPECT_THROW(compare_runs(sampled_run(1.0), head, {}), Error);
  RunResult other = sampled_run(1.0);
  other.identity = std::string(64, 'f');
  EXPECT_THROW(compare_runs(sampled_run(1.0), other, {}), Error);
}

TEST(AbComparison, InterpretModeSamplesAreInformationalUnlessAskedFor) {
  RunResult base = sampled_run(1.0), head = sampled_run(1.5);
  for (RunResult* run : {&base, &head})
    for (auto& c : run->candidates)
      if (c.latency) c.latency->clock = "wall";
  EXPECT_EQ(find(compare_runs(base, head, {}), "fused_tf32").outcome, Outcome::passed);
  GatePolicy gated;
  gated.gate_wall_clock = true;
  EXPECT_EQ(find(compare_runs(base, head, gated), "fused_tf32").outcome, Outcome::regressed);
}

}  // namespace
}  // namespace kg
