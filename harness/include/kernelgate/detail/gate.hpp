#pragma once
// The gate: the verdicts of one run against its stored baseline file, as pure
// functions of (run, baseline file, policy, today). The rules are in
// docs/baselines.md; every verdict is unit-tested in tests/gate on the
// fixtures of tests/report.
#include <optional>
#include <string>
#include <vector>

#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/sample_comparison.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

// Command-line overrides of the suite's GatePolicy; unset fields keep the suite's.
struct GatePolicyOverrides {
  std::optional<double> latency_tolerance;
  std::optional<double> noise_multiplier;
  std::optional<int> max_age_days;
  std::optional<bool> win_is_stale;
  bool gate_wall_clock = false;  // GatePolicy::gate_wall_clock
};
// The sample comparison the gate makes under a policy: a slowdown up to the
// tolerance passes, one confidently above half of it regresses.
SampleComparisonPolicy sample_comparison_policy(const GatePolicy& policy);

// The outcome of a comparison's verdict under a policy: an inconclusive one
// fails, unless the suite's gate.inconclusive is "warn": then it passes, and
// its message says so with kInconclusiveWarning.
Outcome sample_outcome(SampleVerdict verdict, const GatePolicy& policy);
inline constexpr const char* kInconclusiveWarning = "a warning: the suite's gate.inconclusive is \"warn\"";

// Throws kg::Error for a negative tolerance, multiplier or age.
GatePolicy apply_overrides(GatePolicy policy, const GatePolicyOverrides& overrides);

struct GateOptions {
  GatePolicy policy;
  long today_days = 0;  // days since 1970-01-01 (UTC) the age is measured at
};

// Two candidates whose measured order contradicts the stored ranking.
struct RankDrift {
  std::string faster_stored;  // ranked ahead in the baseline file
  std::string faster_now;     // but measured faster now, by more than noise
  int stored_rank_of_faster_stored = 0;
  int stored_rank_of_faster_now = 0;
  double mean_ms_faster_stored = 0;  // measured now
  double mean_ms_faster_now = 0;     // measured now
  std::string describe() const;
};

// The gate's view of one candidate: its latency and staleness checks plus the
// figures behind them (reported as JUnit properties and in the JSON report).
struct CandidateGate {
  std::string implementation;
  bool gated = false;  // correct, contract-clean and timed: the gate looked at it
  CheckResult latency;
  CheckResult staleness;
  std::vector<std::string> stale_reasons;
  const BaselineRecord* stored = nullptr;  // its measured record, if any (points into the file)
  std::optional<double> baseline_mean_ms;  // the stored measured mean
  std::optional<double> threshold_ms;      // slower than this regresses
  std::optional<double> change;            // measured / stored mean - 1
  std::optional<double> ratio_to_eager;    // measured / cudnn_eager measured in this run
  std::optional<double> stored_ratio_to_eager;
  std::optional<double> ratio_threshold;   // a ratio above this regresses
  // How the latency was judged: "samples" (compare_samples on this run's and
  // the record's samples), "mean_std" (a record without samples, version 1),
  // "counters" (interpret mode's counters against a modelled record), or ""
  // (not judged: then `unjudged` says why, in a few words).
  std::string rule;
  std::string unjudged;
  std::optional<SampleComparison> comparison;  // with rule "samples"
  bool relative_to_eager = false;              // the comparison is of ratios to cudnn_eager
  // This run's measurement as a record, ready for `kernelgate publish`.
  std::optional<BaselineRecord> record;
};

struct GateVerdict {
  std::vector<CandidateGate> candidates;  // in the run's candidate order
  std::vector<RankDrift> drifts;
  const CandidateGate* find(const std::string& implementation) const;
};

// baseline may be null (no file for this hardware key: every candidate is new).
// Throws kg::Error when the baseline file belongs to another workload/hardware.
GateVerdict evaluate_gate(const RunResult& run, const BaselineFile* baseline,
                          const GateOptions& options);

// Puts the verdicts into run.candidates[i].checks (replacing a latency or
// staleness check the runner left unless that one already failed) and
// decides each candidate's outcome and message again from its checks
// (decide_outcome, result.hpp).
void apply_gate(RunResult& run, const GateVerdict& verdict);

// The measured record of one candidate of a run; eager_mean_ms is the
// cudnn_eager mean of the same run when there is one.
BaselineRecord measured_record(const RunResult& run, const CandidateResult& candidate,
                               std::optional<double> eager_mean_ms);

// 0 when every candidate passed, is new, not_supported or skipped; 1 otherwise.
int gate_exit_code(const RunResult& run);

}  // namespace kg
