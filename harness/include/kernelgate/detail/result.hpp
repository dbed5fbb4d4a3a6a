#pragma once
// The records that flow from the runner (one per candidate, decided in the
// parent from what the candidate's child process observed) to the gate and
// the reports.
// JSON field names are the struct field names; units are in the names (_ms).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/detail/json_reader.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

// Every verdict is one of these, never a bare bool (docs/runner.md).
enum class Outcome {
  passed,
  new_record,  // "new": passed, no stored record yet
  incorrect,
  contract_violation,
  crashed,
  timed_out,
  regressed,
  inconclusive,  // the samples cannot tell a slowdown beyond the tolerance from none, after every re-timing
  unreliable,  // the samples (stored or this run's) are too few or too noisy to gate
  stale,
  not_supported,
  skipped,  // last: the names are tested by counting up to it
};
std::string_view to_string(Outcome outcome);
Outcome outcome_from_string(std::string_view text);  // throws kg::Error
// incorrect, contract_violation, crashed, timed_out, regressed, inconclusive,
// unreliable, stale
bool is_failure(Outcome outcome);
// How bad a failure is, so that a candidate's outcome names its worst
// problem: crashed (10) down to stale (3); 0 for an outcome that is none.
int outcome_severity(Outcome outcome);

// Now, as ISO 8601 UTC ("2026-03-05T12:00:00Z"): when a run started, when a
// report was written, when a publish was made.
std::string utc_timestamp_now();

// Equivalence of a candidate's output against the float64 reference.
struct ErrorStats {
  std::int64_t checked = 0;  // number of output points compared
  bool sampled = false;      // true: sampled points at full shape
  double max_abs = 0;
  double max_rel = 0;
  double rel_l2 = 0;
  std::int64_t mismatches = 0;  // points outside atol + rtol * |want|
  std::int64_t first_mismatch_index = -1;  // flat index, -1 when none
  double first_mismatch_got = 0;
  double first_mismatch_want = 0;
  // The flat indices of the mismatches, the first kMaxLocatedMismatches of
  // them, where locate_mismatches looks for a pattern; not reported, and not
  // read back from a reply.
  std::vector<std::int64_t> mismatch_indices;
  bool non_finite = false;  // NaN or Inf where the reference is finite
  bool kernelbench_1e2 = false;  // would pass atol = rtol = 1e-2
  bool kernelbench_1e4 = false;  // would pass atol = rtol = 1e-4 (fp32 since late 2025)
  // How much of its precision's bounds the error uses (1 = at the bound):
  // the largest |got - want| / (atol + rtol |want|) over the points, and
  // rel_l2 / the rel_l2 bound (0 when the precision has none). The headroom
  // is the inverse of the larger: 3 means the error could triple and pass.
  double elementwise_fraction = 0;
  double rel_l2_fraction = 0;
  double headroom() const;  // infinity for an exact result
};

struct LatencyStats {
  std::string protocol;  // "kernelbench" or "adaptive"
  std::string clock;     // "wall" (interpret mode) or "cuda_event"
  int warmups = 0;
  std::int64_t n = 0;
  double mean_ms = 0;
  double std_ms = 0;
  double min_ms = 0;
  double median_ms = 0;
  double max_ms = 0;
  double cv = 0;  // std / mean
  // Every timed sample's output is checked outside the timed region: how
  // many were, and the milliseconds per sample the checks (poisoning,
  // loading the input set, scans, spot checks) added to the run's wall time.
  std::int64_t checked_samples = 0;
  double check_ms = 0;
  // The median of an empty kernel timed the same way (flush, then the
  // device's timer around the launch): the floor of any sample, which the
  // candidate's own time includes. Reported by the child; information only.
  double overhead_ms = 0;
  // On a GPU: the median, over the timed samples, of how long the device
  // stayed busy after the timed region (TimedLaunch::busy_after_ms), which
  // kg::judge_busy_after_timing judges. 0 where not measured (the cpu device),
  // and then not written. Reported by the child; the rule decides.
  double busy_after_ms = 0;
  // Every timed sample, in the order taken: the gate compares these
  // (sample_comparison.hpp), not the mean and std above. A stored record
  // keeps at most kStoredSamples of them, sorted (baseline.hpp). Empty in
  // records written before version 2 and in reported ones.
  std::vector<double> samples_ms;
  // Timing rounds these samples came from: the first, and each re-timing of
  // a candidate whose comparison was inconclusive.
  int rounds = 1;
  // On a GPU, the SM clock (MHz) each of samples_ms ran at, in the same
  // order; empty where the device cannot read its clock.
  std::vector<int> sm_clock_mhz;
  // Samples the throttle rule found throttled (kernelgate/detail/throttle_rule.hpp:
  // below TimingOptions' throttle_fraction of the clock the GPU is set to run
  // at, for a throttling reason): discarded, not in samples_ms.
  std::int64_t throttled_samples = 0;
  // On a GPU whose driver says why its clock is where it is: the clocks-event
  // reasons seen while timing, kept and discarded samples alike
  // ("applications_clocks_setting" for a locked clock, "sw_power_cap", ...;
  // clock_event_reason_names). Empty where none was seen or none is known.
  std::vector<std::string> clock_event_reasons;
  // On a GPU: timed samples whose launch took longer to enqueue than the
  // harness held the stream, so host time may be inside them (TimedLaunch::hold_expired).
  std::int64_t hold_expired_samples = 0;
};

// Names of the checks a candidate reports (one JUnit testcase each), for the
// runner and the gate alike.
inline constexpr const char* kEquivalenceCheck = "equivalence";
inline constexpr const char* kContractCheck = "contract";
inline constexpr const char* kLatencyCheck = "latency";
inline constexpr const char* kStalenessCheck = "staleness";
// Only under RunOptions::lint_fails: the candidate's source file has a
// finding of `kernelgate lint` (docs/lint.md).
inline constexpr const char* kSourceLintCheck = "source_lint";
// The runner's own: the candidate's process (a crash, a hang, a reply that
// cannot be read), its refusal of the axes, and `kernelgate model`'s count.
inline constexpr const char* kIsolationCheck = "isolation";
inline constexpr const char* kSupportCheck = "support";
inline constexpr const char* kModelCheck = "model";

// One named check: "equivalence", "contract", "latency", "staleness".
struct CheckResult {
  std::string name;
  Outcome outcome = Outcome::skipped;
  std::string message;  // what a reviewer can act on; empty when passed
  std::string rule;     // for contract violations: which rule, e.g. "inputs_unchanged"
};

inline CheckResult make_check(std::string name, Outcome outcome, std::string message = {},
                              std::string rule = {}) {
  return CheckResult{.name = std::move(name), .outcome = outcome, .message = std::move(message),
                     .rule = std::move(rule)};
}

// A candidate's outcome and message, decided from its checks alone: the
// worst failure (by outcome_severity) with the message of the first check
// that has it; else not_supported, with the support check's message; else
// new_record when the latency check says so; else passed. No checks at all:
// skipped. The runner, its re-timings and the gate all decide through it.
struct OutcomeDecision {
  Outcome outcome = Outcome::skipped;
  std::string message;
};
OutcomeDecision decide_outcome(const std::vector<CheckResult>& checks);

struct CandidateResult {
  std::string id;
  std::string precision;
  std::string kind = "candidate";  // candidate | source_baseline | reference
  Outcome outcome = Outcome::skipped;  // the worst of the checks
  std::string message;
  std::vector<CheckResult> checks;
  std::optional<ErrorStats> error;
  std::optional<LatencyStats> latency;
  std::optional<bool> bitwise_deterministic;
  std::vector<std::string> thread_orders;  // interpret mode: orders it ran under
  // Interpret mode: the counters of its first checked run (input set A), by
  // name (kernelgate/interpret/counters.hpp); empty elsewhere.
  std::vector<std::pair<std::string, std::uint64_t>> counters;
  std::string counters_unavailable;  // why there are none, where they were asked for
  // `kernelgate lint` of its source file, a line per finding
  // ("<workload>/<id>.cu:12: state-between-calls: static local 'calls'");
  // empty when clean. Listed for review; a failure only under
  // RunOptions::lint_fails.
  std::vector<std::string> source_lint;
};

// Sets result.outcome and result.message from result.checks (decide_outcome).
void decide(CandidateResult& result);
// The latency of a candidate that was timed and has not failed (nor was
// refused or skipped): what a gate or a comparison may judge. nullptr
// otherwise, and for no candidate.
const LatencyStats* judgeable_latency(const CandidateResult* candidate);

// One `kernelgate run` of one workload on one device.
struct RunResult {
  std::string workload;
  std::string identity;  // sha256 of the suite's canonical JSON
  std::string preset;    // axes preset, "" for the defaults
  Axes axes;
  std::string device;    // "cpu", "cuda:0"
  std::string hardware;  // hardware key: cpu, h100-sxm, h100-pcie, h200, ...
  nlohmann::ordered_json environment;  // GPU, driver, CUDA, cuDNN, compiler, clocks, git
  std::uint64_t seed = 0;
  std::string started_at;  // ISO 8601 UTC
  std::vector<CandidateResult> candidates;
};

// The candidate of that id in the run, or null.
const CandidateResult* find_candidate(const RunResult& run, std::string_view id);

// Strict readers of the records (kernelgate/detail/json_reader.hpp): every member's
// type is checked and unknown members are refused; optional ones may be
// absent, so older files load. Errors name the file and the JSON path.
ErrorStats read_error_stats(const JsonReader& json);
LatencyStats read_latency_stats(const JsonReader& json);
CheckResult read_check_result(const JsonReader& json);
CandidateResult read_candidate_result(const JsonReader& json);
RunResult read_run_result(const JsonReader& json);

void to_json(nlohmann::ordered_json& j, const ErrorStats& v);
void from_json(const nlohmann::ordered_json& j, ErrorStats& v);
void to_json(nlohmann::ordered_json& j, const LatencyStats& v);
void from_json(const nlohmann::ordered_json& j, LatencyStats& v);
void to_json(nlohmann::ordered_json& j, const CheckResult& v);
void from_json(const nlohmann::ordered_json& j, CheckResult& v);
void to_json(nlohmann::ordered_json& j, const CandidateResult& v);
void from_json(const nlohmann::ordered_json& j, CandidateResult& v);
void to_json(nlohmann::ordered_json& j, const RunResult& v);
void from_json(const nlohmann::ordered_json& j, RunResult& v);

}  // namespace kg
