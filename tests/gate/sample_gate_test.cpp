// The gate's sample rule: records and runs that carry their samples are
// judged by compare_samples (passed, regressed, inconclusive), relative to
// cudnn_eager where both runs timed it; records without samples (version 1
// files, the fixtures) keep the mean-and-std rule (gate_test.cpp).
#include <algorithm>

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kernelgate/detail/gate.hpp"
#include "kernelgate/detail/sample_comparison.hpp"

namespace kg {
namespace {

using namespace test;  // the fixtures and matchers (fixtures.hpp)

BaselineRecord& record(BaselineFile& file, const std::string& id) {
  for (auto& r : file.records)
    if (r.implementation == id && r.trust == Trust::measured) return r;
  throw std::runtime_error("no measured record of " + id);
}

// The fixture run and its matching baseline, every timed candidate with 200
// samples: the stored ones around the stored means, the run's around
// `factor` times them (cudnn_eager around eager_factor times its own).
struct SampledGate {
  RunResult run = fixture_run("run_h100.json");
  BaselineFile baseline = fixture_baseline("matching.json");
  SampledGate(double factor, double eager_factor = 1.0, double spread = 0.04, bool heavy_tail = false) {
    for (auto& c : run.candidates) {
      if (!c.latency) continue;
      BaselineRecord& stored = record(baseline, c.id);
      const double typical = stored.latency.mean_ms;
      set_samples(stored.latency, stored_samples(samples_around(typical, spread, 200, heavy_tail)));
      const double f = c.id == kEagerBaselineId ? eager_factor : factor;
      set_samples(*c.latency, samples_around(typical * f, spread, 200, heavy_tail));
    }
  }
  GateVerdict judge(GatePolicy policy = {}) {
    GateVerdict verdict = evaluate_gate(run, &baseline, fixture_options(policy));
    apply_gate(run, verdict);
    return verdict;
  }
};

TEST(SampleGate, TheSameLatencyPassesByTheSampleRule) {
  SampledGate g(1.0);
  const GateVerdict verdict = g.judge();
  const CandidateGate* fused = verdict.find("fused_tf32");
  ASSERT_TRUE(fused && fused->comparison);
  EXPECT_EQ(fused->rule, "samples");
  EXPECT_TRUE(fused->relative_to_eager);
  EXPECT_FALSE(fused->threshold_ms.has_value());
  EXPECT_EQ(fused->comparison->verdict, SampleVerdict::passed);
  const auto& latency = check(candidate(g.run, "fused_tf32"), kLatencyCheck);
  EXPECT_EQ(latency.outcome, Outcome::passed) << latency.message;
  EXPECT_THAT(latency.message, HasSubstr("typical latency 1.000x the record's relative to cudnn_eager"));
}

TEST(SampleGate, TenPercentSlowerRegresses) {
  SampledGate g(1.10);
  g.judge();
  const auto& fused = candidate(g.run, "fused_tf32");
  EXPECT_EQ(fused.outcome, Outcome::regressed) << fused.message;
  EXPECT_THAT(fused.message, HasSubstr("regressed on h100-sxm: typical latency 1.100x"));
  EXPECT_EQ(gate_exit_code(g.run), 1);
}

// A machine slower as a whole moves cudnn_eager too: relative to it, nothing
// changed. Without eager's samples the same run is a regression.
TEST(SampleGate, AMachineSlowerAsAWholeIsNotARegression) {
  SampledGate g(1.10, 1.10);
  g.judge();
  EXPECT_EQ(candidate(g.run, "fused_tf32").outcome, Outcome::passed) << candidate(g.run, "fused_tf32").message;

  SampledGate absolute(1.10, 1.10);
  record(absolute.baseline, std::string(kEagerBaselineId)).latency.samples_ms.clear();
  const GateVerdict verdict = absolute.judge();
  EXPECT_FALSE(verdict.find("fused_tf32")->relative_to_eager);
  EXPECT_EQ(candidate(absolute.run, "fused_tf32").outcome, Outcome::regressed);
}

// One sample in twenty ten times slower: the std is about 60% of the mean,
// so the mean-and-std rule cannot gate (unreliable); the samples still see a
// 10% slowdown and still pass an unchanged kernel.
TEST(SampleGate, AHeavyTailNeitherHidesASlowdownNorFailsAnUnchangedKernel) {
  SampledGate slower(1.10, 1.0, 0.04, true);
  slower.judge();
  EXPECT_EQ(candidate(slower.run, "fused_tf32").outcome, Outcome::regressed)
      << candidate(slower.run, "fused_tf32").message;
  EXPECT_GT(candidate(slower.run, "fused_tf32").latency->cv, 0.2);

  SampledGate same(1.0, 1.0, 0.04, true);
  same.judge();
  EXPECT_EQ(candidate(same.run, "fused_tf32").outcome, Outcome::passed) << candidate(same.run, "fused_tf32").message;
}

TEST(SampleGate, SamplesThatCannotTellAreInconclusiveAndFailUnlessTheSuiteWarns) {
  // Spread over -+50% at a 4% slowdown: the interval straddles the tolerance.
  SampledGate g(1.04, 1.0, 1.0);
  g.judge();
  const auto& fused = candidate(g.run, "fused_tf32");
  EXPECT_EQ(fused.outcome, Outcome::inconclusive) << fused.message;
  EXPECT_THAT(fused.message, HasSubstr("cannot tell a slowdown beyond the tolerance from none"));
  EXPECT_EQ(gate_exit_code(g.run), 1);

  GatePolicy warn;
  warn.inconclusive_fails = false;
  SampledGate warned(1.04, 1.0, 1.0);
  warned.judge(warn);
  const auto& latency = check(candidate(warned.run, "fused_tf32"), kLatencyCheck);
  EXPECT_EQ(latency.outcome, Outcome::passed);
  EXPECT_THAT(latency.message, HasSubstr("a warning"));
}

TEST(SampleGate, AWinBeyondTheToleranceIsStale) {
  SampledGate g(0.80);
  g.judge();
  const auto& fused = candidate(g.run, "fused_tf32");
  EXPECT_EQ(check(fused, kLatencyCheck).outcome, Outcome::passed);
  EXPECT_EQ(fused.outcome, Outcome::stale);
  EXPECT_THAT(check(fused, kStalenessCheck).message, HasSubstr("faster than its record: typical latency 0.800x"));
}

// Stored: fused_tf32 (0.6 ms) ranks ahead of implicit_gemm_tf32 (0.8 ms).
// Timed now at 0.55 ms, implicit_gemm_tf32 is confidently faster than
// fused_tf32 by more than half the tolerance: the order drifted. At 1% faster
// it is not.
TEST(SampleGate, RankDriftIsJudgedOnTheSamplesOfBothCandidates) {
  SampledGate drifted(1.0);
  set_samples(*candidate(drifted.run, "implicit_gemm_tf32").latency, samples_around(0.55, 0.04, 200));
  const GateVerdict verdict = drifted.judge();
  ASSERT_EQ(verdict.drifts.size(), 1u);
  EXPECT_EQ(verdict.drifts[0].faster_stored, "fused_tf32");
  EXPECT_EQ(verdict.drifts[0].faster_now, "implicit_gemm_tf32");

  SampledGate close(1.0);
  set_samples(*candidate(close.run, "implicit_gemm_tf32").latency, samples_around(0.594, 0.04, 200));
  EXPECT_TRUE(close.judge().drifts.empty());
}

// Fewer samples than the policy's minimum cannot gate, by either rule.
TEST(SampleGate, TooFewSamplesAreUnreliable) {
  SampledGate g(1.0);
  set_samples(*candidate(g.run, "fused_tf32").latency, samples_around(0.6, 0.04, 4));
  g.judge();
  EXPECT_EQ(candidate(g.run, "fused_tf32").outcome, Outcome::unreliable) << candidate(g.run, "fused_tf32").message;
}

// The record a run offers for publishing keeps at most kStoredSamples
// samples, sorted: the order statistics the comparison thins to anyway.
TEST(SampleGate, TheRecordKeepsTheOrderStatisticsTheComparisonUses) {
  SampledGate g(1.0);
  set_samples(*candidate(g.run, "fused_tf32").latency, samples_around(0.6, 0.04, 2000));
  std::reverse(candidate(g.run, "fused_tf32").latency->samples_ms.begin(),
               candidate(g.run, "fused_tf32").latency->samples_ms.end());
  const GateVerdict verdict = g.judge();
  const auto& kept = verdict.find("fused_tf32")->record->latency.samples_ms;
  ASSERT_EQ(kept.size(), kStoredSamples);
  EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end()));
  EXPECT_EQ(verdict.find("fused_tf32")->record->latency.n, 2000);
  // Compared with either form, the verdict and interval are the same.
  const auto& all = candidate(g.run, "fused_tf32").latency->samples_ms;
  const auto stored = record(g.baseline, "fused_tf32").latency.samples_ms;
  const SampleComparison whole = compare_samples(stored, all, {});
  const SampleComparison thinned = compare_samples(stored, kept, {});
  EXPECT_EQ(whole.ratio_low, thinned.ratio_low);
  EXPECT_EQ(whole.ratio_high, thinned.ratio_high);
}

}  // namespace
}  // namespace kg
