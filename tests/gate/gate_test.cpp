// Every verdict of the gate, each from a fixture baseline file
// (tests/report/fixtures/make_baselines.py writes them) against a fixture run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>

#include "fixtures.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/gate.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

using namespace test;  // the fixtures and matchers (fixtures.hpp)

// Gates the fixture run against a fixture baseline and applies the verdicts.
struct Gated {
  RunResult run;
  BaselineFile baseline;
  GateVerdict verdict;
  int exit_code = 0;
};

Gated gate_edited(BaselineFile baseline, RunResult run, GatePolicy policy = {}) {
  Gated g{std::move(run), std::move(baseline), {}, 0};
  g.verdict = evaluate_gate(g.run, &g.baseline, fixture_options(policy));
  apply_gate(g.run, g.verdict);
  g.exit_code = gate_exit_code(g.run);
  return g;
}

Gated gate(const std::string& baseline_name, GatePolicy policy = {},
           const std::string& run_name = "run_h100.json") {
  return gate_edited(fixture_baseline(baseline_name), fixture_run(run_name), policy);
}

TEST(Gate, MatchingBaselinePasses) {
  auto g = gate("matching.json");
  for (const auto& c : g.run.candidates) {
    EXPECT_EQ(c.outcome, Outcome::passed) << c.id << ": " << c.message;
    EXPECT_EQ(check(c, kLatencyCheck).outcome, Outcome::passed) << c.id;
    EXPECT_EQ(check(c, kStalenessCheck).outcome, Outcome::passed) << c.id;
  }
  EXPECT_TRUE(g.verdict.drifts.empty());
  EXPECT_EQ(g.exit_code, 0);
  const auto* fused = g.verdict.find("fused_tf32");
  ASSERT_TRUE(fused && fused->ratio_to_eager && fused->stored_ratio_to_eager);
  EXPECT_NEAR(*fused->ratio_to_eager, 0.4, 1e-12);
  EXPECT_NEAR(*fused->threshold_ms, 0.60 * 1.05 + 2 * 0.01, 1e-12);
}

TEST(Gate, SlowerThanRecordBeyondToleranceAndNoiseRegresses) {
  auto g = gate("regressed.json");
  const auto& fused = candidate(g.run, "fused_tf32");
  EXPECT_EQ(fused.outcome, Outcome::regressed);
  const auto& latency = check(fused, kLatencyCheck);
  EXPECT_EQ(latency.outcome, Outcome::regressed);
  EXPECT_THAT(latency.message, HasSubstr("+20.0%"));
  EXPECT_THAT(latency.message, HasSubstr("ratio to cudnn_eager"));
  EXPECT_EQ(candidate(g.run, "implicit_gemm_tf32").outcome, Outcome::passed);
  EXPECT_EQ(g.exit_code, 1);
}

TEST(Gate, RatioToEagerAloneRegresses) {
  // Same absolute latency as stored, but relative to cudnn_eager of the same
  // run it got slower: on a faster machine, only the ratio sees it.
  auto g = gate("regressed_ratio_only.json");
  const auto& latency = check(candidate(g.run, "fused_tf32"), kLatencyCheck);
  EXPECT_EQ(latency.outcome, Outcome::regressed);
  EXPECT_THAT(latency.message, Not(HasSubstr("vs measured record")));
  EXPECT_THAT(latency.message, HasSubstr("ratio to cudnn_eager 0.400 vs stored 0.300"));
}

TEST(Gate, WithoutEagerInTheRunOnlyTheAbsoluteFigureGates) {
  auto g = gate("regressed_ratio_only.json", {}, "run_h100_no_eager.json");
  const auto& fused = candidate(g.run, "fused_tf32");
  EXPECT_EQ(fused.outcome, Outcome::passed) << fused.message;
  EXPECT_FALSE(g.verdict.find("fused_tf32")->ratio_to_eager.has_value());
  EXPECT_FALSE(g.verdict.find("fused_tf32")->record->ratio_to_eager.has_value());
}

TEST(Gate, MeasuredNoiseWidensTheThreshold) {
  RunResult run = fixture_run("run_h100.json");
  auto& latency = *candidate(run, "fused_tf32").latency;
  latency.mean_ms = 0.66;  // +10%: beyond the 5% tolerance ...
  latency.std_ms = 0.03;   // ... but within tolerance + 2 x the measured noise
  latency.cv = latency.std_ms / latency.mean_ms;
  BaselineFile baseline = fixture_baseline("matching.json");

  RunResult noisy = run;
  apply_gate(noisy, evaluate_gate(noisy, &baseline, fixture_options()));
  EXPECT_EQ(candidate(noisy, "fused_tf32").outcome, Outcome::passed) << candidate(noisy, "fused_tf32").message;

  GatePolicy no_noise;
  no_noise.noise_multiplier = 0;
  RunResult strict = run;
  apply_gate(strict, evaluate_gate(strict, &baseline, fixture_options(no_noise)));
  EXPECT_EQ(candidate(strict, "fused_tf32").outcome, Outcome::regressed);
}

TEST(Gate, OldRecordIsStale) {
  auto g = gate("stale_age.json");
  const auto& three = candidate(g.run, "fused_3xtf32");
  EXPECT_EQ(three.outcome, Outcome::stale);
  const auto& staleness = check(three, kStalenessCheck);
  EXPECT_THAT(staleness.message, HasSubstr("2025-11-01 is 134 days old (max 90)"));
  // The latency is still judged: an old record is still comparable.
  EXPECT_EQ(check(three, kLatencyCheck).outcome, Outcome::passed);
  EXPECT_EQ(g.exit_code, 1);

  GatePolicy lenient;
  lenient.max_age_days = 200;
  auto lenient_gate = gate("stale_age.json", lenient);
  EXPECT_EQ(candidate(lenient_gate.run, "fused_3xtf32").outcome, Outcome::passed);
}

TEST(Gate, RecordOfAnotherWorkloadIdentityIsStale) {
  auto g = gate("stale_identity.json");
  const auto& implicit = candidate(g.run, "implicit_gemm_tf32");
  EXPECT_EQ(implicit.outcome, Outcome::stale);
  EXPECT_THAT(check(implicit, kStalenessCheck).message, HasSubstr("workload identity bbbbbbbbbbbb"));
  EXPECT_THAT(check(implicit, kLatencyCheck).message, HasSubstr("not compared"));
  EXPECT_EQ(candidate(g.run, "fused_tf32").outcome, Outcome::passed);
}

TEST(Gate, RecordOfAnotherPrecisionIsStale) {
  auto g = gate("stale_precision.json");
  const auto& fused = candidate(g.run, "fused_tf32");
  EXPECT_EQ(fused.outcome, Outcome::stale);
  EXPECT_THAT(check(fused, kStalenessCheck).message,
              HasSubstr("the record is fp32 but the candidate now declares tf32"));
}

TEST(Gate, RecordOfOtherAxesIsStale) {
  RunResult run = fixture_run("run_h100.json");
  run.axes["batch_size"] = 16;
  BaselineFile baseline = fixture_baseline("matching.json");
  apply_gate(run, evaluate_gate(run, &baseline, fixture_options()));
  for (const auto& c : run.candidates) {
    EXPECT_EQ(c.outcome, Outcome::stale) << c.id;
    EXPECT_THAT(check(c, kStalenessCheck).message, HasSubstr("batch_size=2,"));
  }
}

TEST(Gate, WinBeyondToleranceIsStaleUnlessPolicySaysOtherwise) {
  auto g = gate("stale_win.json");
  const auto& three = candidate(g.run, "fused_3xtf32");
  EXPECT_EQ(three.outcome, Outcome::stale);
  EXPECT_THAT(check(three, kStalenessCheck).message, HasSubstr("faster than its record by 23.1%"));
  EXPECT_EQ(check(three, kLatencyCheck).outcome, Outcome::passed);

  GatePolicy keep_wins;
  keep_wins.win_is_stale = false;
  auto kept = gate("stale_win.json", keep_wins);
  EXPECT_EQ(candidate(kept.run, "fused_3xtf32").outcome, Outcome::passed);
}

TEST(Gate, RankDriftNamesThePair) {
  // A wide tolerance, so neither candidate regresses or wins on its own: only
  // their order changed (stored: implicit_gemm_tf32 #1, fused_tf32 #2).
  GatePolicy wide;
  wide.latency_tolerance = 0.5;
  auto g = gate("rank_drift.json", wide);
  ASSERT_EQ(g.verdict.drifts.size(), 1u);
  EXPECT_EQ(g.verdict.drifts[0].faster_stored, "implicit_gemm_tf32");
  EXPECT_EQ(g.verdict.drifts[0].faster_now, "fused_tf32");
  for (const char* id : {"implicit_gemm_tf32", "fused_tf32"}) {
    const auto& c = candidate(g.run, id);
    EXPECT_EQ(c.outcome, Outcome::stale) << id;
    EXPECT_THAT(check(c, kStalenessCheck).message, HasSubstr("puts implicit_gemm_tf32 (#1) ahead of fused_tf32 (#2)"));
    EXPECT_EQ(check(c, kLatencyCheck).outcome, Outcome::passed) << id;
  }
  EXPECT_EQ(candidate(g.run, "fused_3xtf32").outcome, Outcome::passed);
}

TEST(Gate, RankOrderWithinNoiseIsNoDrift) {
  GatePolicy wide;
  wide.latency_tolerance = 0.5;
  RunResult run = fixture_run("run_h100.json");
  // Now 0.705 vs 0.70 ms: fused_tf32 is slower again, implicit barely slower
  // than fused: their difference is inside 2 x 0.01 ms of noise.
  candidate(run, "fused_tf32").latency->mean_ms = 0.70;
  candidate(run, "implicit_gemm_tf32").latency->mean_ms = 0.705;
  BaselineFile baseline = fixture_baseline("rank_drift.json");
  auto verdict = evaluate_gate(run, &baseline, fixture_options(wide));
  EXPECT_TRUE(verdict.drifts.empty());
}

TEST(Gate, CandidateWithoutRecordIsNewAndCarriesItsRecord) {
  auto g = gate("new_candidate.json");
  const auto& three = candidate(g.run, "fused_3xtf32");
  // The reported record of the same id is far faster, but reported records never gate.
  EXPECT_EQ(three.outcome, Outcome::new_record);
  EXPECT_EQ(check(three, kLatencyCheck).outcome, Outcome::new_record);
  EXPECT_EQ(g.exit_code, 0);
  const auto* gate_of_three = g.verdict.find("fused_3xtf32");
  ASSERT_TRUE(gate_of_three->record.has_value());
  const BaselineRecord& record = *gate_of_three->record;
  EXPECT_EQ(record.trust, Trust::measured);
  EXPECT_EQ(record.precision, "fp32");
  EXPECT_DOUBLE_EQ(record.latency.mean_ms, 1.00);
  EXPECT_NEAR(*record.ratio_to_eager, 1.0 / 1.5, 1e-12);
  EXPECT_EQ(record.workload_identity, g.run.identity);
  EXPECT_EQ(record.observed, "2026-03-10T12:00:00Z");
  EXPECT_EQ(record.git_revision, "0123abcd");
}

TEST(Gate, NoBaselineFileMakesEveryCandidateNew) {
  RunResult run = fixture_run("run_h100.json");
  apply_gate(run, evaluate_gate(run, nullptr, fixture_options()));
  for (const auto& c : run.candidates) EXPECT_EQ(c.outcome, Outcome::new_record) << c.id;
  EXPECT_EQ(gate_exit_code(run), 0);
}

// The simulated GPU's key has no stored file: its run gates as a run on a
// new key does (every candidate new, exit 0), with records that say
// simulated and a message that does not ask for a publish.
TEST(Gate, ARunOnTheSimulatedGpuIsNewAndItsRecordsAreSimulated) {
  const auto store = fresh_dir("simulated_gate");
  std::filesystem::create_directories(store / "l1_071_conv_transposed_2d");
  std::filesystem::copy_file(baseline_fixture_dir() / "matching.json",
                             store / "l1_071_conv_transposed_2d" / "h100-sxm.json");
  RunResult run = simulated_run();
  const auto stored = load_stored_baseline(store, run.workload, run.hardware);
  EXPECT_FALSE(stored.has_value()) << "the simulated key read the file of another key";

  RunResult new_key = fixture_run("run_h100.json");
  new_key.hardware = "h100-nvl";
  apply_gate(new_key, evaluate_gate(new_key, nullptr, fixture_options()));
  const GateVerdict verdict = evaluate_gate(run, nullptr, fixture_options());
  apply_gate(run, verdict);
  for (const auto& c : run.candidates) {
    EXPECT_EQ(c.outcome, candidate(new_key, c.id).outcome) << c.id;
    EXPECT_EQ(c.outcome, Outcome::new_record) << c.id;
    EXPECT_THAT(check(c, kLatencyCheck).message, HasSubstr("a run on the simulated GPU is never a measurement"));
    EXPECT_THAT(check(c, kLatencyCheck).message, Not(HasSubstr("publish this report")));
    ASSERT_TRUE(verdict.find(c.id)->record.has_value()) << c.id;
    EXPECT_EQ(verdict.find(c.id)->record->trust, Trust::simulated) << c.id;
  }
  EXPECT_EQ(gate_exit_code(run), gate_exit_code(new_key));
  // Counted or not, a simulated figure is never a modelled one either.
  candidate(run, "fused_tf32").counters = {{"global_load_requests", 32}};
  const BaselineRecord counted = measured_record(run, candidate(run, "fused_tf32"), std::nullopt);
  EXPECT_EQ(counted.trust, Trust::simulated);
  EXPECT_TRUE(counted.counters.empty());
  // The file of the card it simulates is never its baseline.
  BaselineFile h100 = fixture_baseline("matching.json");
  EXPECT_THROW(evaluate_gate(simulated_run(), &h100, fixture_options()), Error);
}

// Baselines are kept per hardware key: a B200's records are never read for
// a run on an H100 (its candidates are new there), never accepted as its
// baseline, and judge a run on a B200 as the H100's judge one on an H100.
TEST(Gate, ARecordOfAnotherKeyNeverJudgesTheRun) {
  const auto store = fresh_dir("other_key_gate");
  const std::filesystem::path folder = store / "l1_071_conv_transposed_2d";
  std::filesystem::create_directories(folder);
  std::ifstream in(baseline_fixture_dir() / "matching.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t at = text.find("\"h100-sxm\""); at != std::string::npos; at = text.find("\"h100-sxm\"", at))
    text.replace(at, 10, "\"b200\"");
  std::ofstream(folder / "b200.json") << text;

  RunResult h100 = fixture_run("run_h100.json");
  ASSERT_EQ(h100.hardware, "h100-sxm");
  EXPECT_FALSE(load_stored_baseline(store, h100.workload, h100.hardware).has_value());
  BaselineFile b200 = *load_stored_baseline(store, h100.workload, "b200");
  EXPECT_THROW(evaluate_gate(h100, &b200, fixture_options()), Error);
  apply_gate(h100, evaluate_gate(h100, nullptr, fixture_options()));
  for (const auto& c : h100.candidates) EXPECT_EQ(c.outcome, Outcome::new_record) << c.id;

  RunResult on_b200 = fixture_run("run_h100.json");
  on_b200.hardware = "b200";
  apply_gate(on_b200, evaluate_gate(on_b200, &b200, fixture_options()));
  for (const auto& c : on_b200.candidates) EXPECT_EQ(c.outcome, Outcome::passed) << c.id << ": " << c.message;
}

TEST(Gate, IncorrectCandidateIsNotGatedAndKeepsItsOutcome) {
  RunResult run = fixture_run("run_h100.json");
  auto& fused = candidate(run, "fused_tf32");
  fused.outcome = Outcome::incorrect;
  fused.checks[0].outcome = Outcome::incorrect;
  fused.checks[0].message = "max abs error 0.3 at index 17";
  BaselineFile baseline = fixture_baseline("matching.json");
  auto verdict = evaluate_gate(run, &baseline, fixture_options());
  EXPECT_FALSE(verdict.find("fused_tf32")->gated);
  EXPECT_FALSE(verdict.find("fused_tf32")->record.has_value());
  apply_gate(run, verdict);
  EXPECT_EQ(fused.outcome, Outcome::incorrect);
  EXPECT_EQ(check(fused, kLatencyCheck).outcome, Outcome::skipped);
  EXPECT_EQ(gate_exit_code(run), 1);
}

TEST(Gate, InterpretModeWallClockIsInformational) {
  RunResult run = fixture_run("run_cpu_interpret.json");
  BaselineFile baseline = fixture_baseline("regressed.json");
  baseline.hardware = "cpu";
  for (auto& record : baseline.records) {
    record.preset = "ci";
    record.latency.clock = "wall";
  }
  apply_gate(run, evaluate_gate(run, &baseline, fixture_options()));
  EXPECT_EQ(candidate(run, "fused_tf32").outcome, Outcome::passed);
  EXPECT_THAT(check(candidate(run, "fused_tf32"), kLatencyCheck).message, HasSubstr("informational"));

  GateOptions gated = fixture_options();
  gated.policy.gate_wall_clock = true;
  RunResult again = fixture_run("run_cpu_interpret.json");
  apply_gate(again, evaluate_gate(again, &baseline, gated));
  EXPECT_EQ(candidate(again, "fused_tf32").outcome, Outcome::regressed);
}

TEST(Gate, BaselineOfOtherHardwareIsRefused) {
  RunResult run = fixture_run("run_h100.json");
  BaselineFile other = fixture_baseline("other_hardware.json");
  EXPECT_THROW(evaluate_gate(run, &other, fixture_options()), Error);
}

TEST(Gate, OverridesReplaceOnlyWhatIsGiven) {
  GatePolicy suite;
  suite.latency_tolerance = 0.1;
  GatePolicyOverrides overrides;
  overrides.max_age_days = 30;
  overrides.win_is_stale = false;
  GatePolicy applied = apply_overrides(suite, overrides);
  EXPECT_DOUBLE_EQ(applied.latency_tolerance, 0.1);
  EXPECT_EQ(applied.max_age_days, 30);
  EXPECT_FALSE(applied.win_is_stale);
  overrides.latency_tolerance = -0.1;
  EXPECT_THROW(apply_overrides(suite, overrides), Error);
}

// One range per field wherever a policy is read (suite.hpp): a suite file
// and apply_overrides refuse the same values, naming the field.
TEST(Gate, PolicyFieldsHaveOneRange) {
  GatePolicyOverrides overrides;
  overrides.max_age_days = kMaxAgeDays;
  EXPECT_EQ(apply_overrides({}, overrides).max_age_days, kMaxAgeDays);
  overrides.max_age_days = kMaxAgeDays + 1;
  EXPECT_EQ(test::error_of([&] { apply_overrides({}, overrides); }),
            "gate policy: max_age_days must be between 0 and 36500, not 36501");
  overrides = {};
  overrides.noise_multiplier = kMaxNoiseMultiplier * 2;
  EXPECT_EQ(test::error_of([&] { apply_overrides({}, overrides); }),
            "gate policy: noise_multiplier must be between 0 and 100, not 200");
}

TEST(Gate, ARecordedFailureOrRefusalWithoutItsCheckStays) {
  // Runner records edited by hand (or from before every outcome had its
  // check): the gate decides from the checks, and must not make these pass.
  RunResult run = fixture_run("run_h100.json");
  for (const auto& [id, outcome, message] :
       {std::tuple{"fused_tf32", Outcome::incorrect, "wrong at [3]"},
        std::tuple{"implicit_gemm_tf32", Outcome::not_supported, "groups > 1"}}) {
    CandidateResult& c = candidate(run, id);
    c.outcome = outcome;
    c.message = message;
    c.checks.clear();
    c.latency.reset();
  }
  const BaselineFile baseline = fixture_baseline("matching.json");
  apply_gate(run, evaluate_gate(run, &baseline, fixture_options()));
  EXPECT_EQ(candidate(run, "fused_tf32").outcome, Outcome::incorrect);
  EXPECT_EQ(candidate(run, "fused_tf32").message, "wrong at [3]");
  EXPECT_EQ(candidate(run, "implicit_gemm_tf32").outcome, Outcome::not_supported);
  EXPECT_EQ(candidate(run, "implicit_gemm_tf32").message, "groups > 1");
}

// ---- the noise guard and records that do not say what they measured --------

BaselineRecord& stored_record(BaselineFile& file, const std::string& id) {
  for (auto& record : file.records)
    if (record.implementation == id && record.trust == Trust::measured) return record;
  throw std::runtime_error("no record " + id);
}

TEST(Gate, ANoisyStoredRecordCannotLetASlowdownPass) {
  // fused_tf32 is 100x slower now; under the old rule a stored std of 40 ms
  // made the allowance 0.63 + 2 x 40 ms and it passed.
  BaselineFile baseline = fixture_baseline("matching.json");
  stored_record(baseline, "fused_tf32").latency.std_ms = 40.0;
  RunResult run = fixture_run("run_h100.json");
  candidate(run, "fused_tf32").latency->mean_ms = 60.0;
  auto g = gate_edited(baseline, run);
  const auto& fused = candidate(g.run, "fused_tf32");
  EXPECT_EQ(fused.outcome, Outcome::unreliable) << fused.message;
  EXPECT_THAT(check(fused, kLatencyCheck).message,
              HasSubstr("the std of the stored record, 40 ms, is 6667% of its mean"));
  EXPECT_EQ(g.exit_code, 1);
}

TEST(Gate, TooFewOrTooNoisySamplesNowAreUnreliable) {
  RunResult few = fixture_run("run_h100.json");
  candidate(few, "fused_tf32").latency->n = 2;
  auto g = gate_edited(fixture_baseline("matching.json"), few);
  EXPECT_EQ(candidate(g.run, "fused_tf32").outcome, Outcome::unreliable);
  EXPECT_THAT(check(candidate(g.run, "fused_tf32"), kLatencyCheck).message,
              HasSubstr("this run has 2 samples (5 needed)"));

  RunResult noisy = fixture_run("run_h100.json");
  candidate(noisy, "implicit_gemm_tf32").latency->std_ms = 0.3;  // cv 0.375
  auto h = gate_edited(fixture_baseline("matching.json"), noisy);
  EXPECT_EQ(candidate(h.run, "implicit_gemm_tf32").outcome, Outcome::unreliable);
  EXPECT_EQ(candidate(h.run, "fused_tf32").outcome, Outcome::passed);
}

TEST(Gate, AMeasuredRecordWithoutIdentityOrAxesIsStale) {
  BaselineFile no_identity = fixture_baseline("matching.json");
  stored_record(no_identity, "fused_tf32").workload_identity.clear();
  auto g = gate_edited(no_identity, fixture_run("run_h100.json"));
  EXPECT_EQ(candidate(g.run, "fused_tf32").outcome, Outcome::stale);
  EXPECT_THAT(candidate(g.run, "fused_tf32").message, HasSubstr("names no workload identity"));

  BaselineFile no_axes = fixture_baseline("matching.json");
  stored_record(no_axes, "fused_tf32").axes.clear();
  auto h = gate_edited(no_axes, fixture_run("run_h100.json"));
  EXPECT_EQ(candidate(h.run, "fused_tf32").outcome, Outcome::stale);
  EXPECT_THAT(candidate(h.run, "fused_tf32").message, HasSubstr("names no axes"));
}

}  // namespace
}  // namespace kg
