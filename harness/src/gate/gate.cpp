// The gate: regression, staleness and rank drift of one run against its
// stored baseline file. Rules and their reasons: docs/baselines.md.
#include "kernelgate/detail/gate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/gpu_identity.hpp"
#include "kernelgate/detail/roofline.hpp"
#include "kernelgate/detail/sample_comparison.hpp"

namespace kg {

namespace {

std::string format(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}
std::string ms(double value) { return format("%.4g ms", value); }
std::string percent(double fraction) { return format("%+.1f%%", fraction * 100.0); }
// The parts of a check's message, "; " between them.
std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? "; " : "") + parts[i];
  return text;
}

// A candidate whose checks all passed and whose latency was measured. The
// outcome is decided from the checks, so a failed check fails it too; the
// checks are still read, for records edited by hand.
bool is_gateable(const CandidateResult& candidate) {
  return judgeable_latency(&candidate) &&
         std::none_of(candidate.checks.begin(), candidate.checks.end(),
                      [](const CheckResult& check) { return is_failure(check.outcome); });
}

// The revision the run was made at: the `git_revision` the runner writes into
// the environment (run_workload.cpp), or one given there with the same name.
std::string git_revision_of(const nlohmann::ordered_json& environment) {
  if (!environment.is_object()) return "";
  const auto found = environment.find("git_revision");
  return found != environment.end() && found->is_string() ? found->get<std::string>() : "";
}

std::string short_hash(const std::string& hash) { return hash.substr(0, 12); }

// Why the samples cannot gate, or "" when they can: too few, or, for the
// mean-and-std rule only (check_spread), a std so large that its noise
// allowance would let a large slowdown pass. The sample comparison needs no
// such guard: outliers barely move it.
std::string noise_problem(const LatencyStats& stored, const LatencyStats& now, const GatePolicy& policy,
                          bool check_spread) {
  auto problem = [&](const LatencyStats& stats, const std::string& whose, const std::string& remedy) -> std::string {
    const double cv = stats.std_ms / stats.mean_ms;
    if (stats.n < policy.min_samples)
      return "cannot gate: " + whose + " has " + std::to_string(stats.n) + " samples (" +
             std::to_string(policy.min_samples) + " needed): " + remedy;
    if (check_spread && !(cv <= policy.max_cv))
      return "cannot gate: the std of " + whose + ", " + ms(stats.std_ms) + ", is " + format("%.0f%%", cv * 100) +
             " of its mean " + ms(stats.mean_ms) + " (at most " + format("%.0f%%", policy.max_cv * 100) +
             "): " + remedy;
    return "";
  };
  std::string why = problem(stored, "the stored record", "re-measure on a quiet runner and publish");
  if (why.empty()) why = problem(now, "this run", "rerun on a quiet runner, or with a longer --budget");
  return why;
}

// The sample comparison (sample_comparison.hpp) of this run's samples with
// the stored record's: the latency verdict, and a win beyond the tolerance
// as a stale reason. eager_stored and eager_now are both set or both null.
void judge_samples(CandidateGate& gate, const RunResult& run, const CandidateResult& candidate,
                   const GatePolicy& policy, const BaselineRecord* eager_stored, const LatencyStats* eager_now) {
  const LatencyStats& now = *candidate.latency;
  const LatencyStats& stored = gate.stored->latency;
  const SampleComparisonPolicy sample_policy = sample_comparison_policy(policy);
  const bool relative = eager_stored && candidate.id != kEagerBaselineId;
  const SampleComparison c =
      compare_samples(stored.samples_ms, now.samples_ms, sample_policy,
                      relative ? eager_stored->latency.samples_ms : std::vector<double>{},
                      relative ? eager_now->samples_ms : std::vector<double>{});
  gate.rule = "samples";
  gate.comparison = c;
  gate.relative_to_eager = relative;
  const std::string figures = describe_ratio(c, "the record's", relative) + "; tolerance " +
                              format("%.3g", policy.latency_tolerance * 100) + "%; " + std::to_string(now.n) +
                              " samples in " + std::to_string(now.rounds) + (now.rounds == 1 ? " round" : " rounds") +
                              " vs " + std::to_string(stored.n) + " stored; means " + ms(now.mean_ms) + " vs " +
                              ms(stored.mean_ms);
  switch (c.verdict) {
    case SampleVerdict::regressed:
      gate.latency = make_check(kLatencyCheck, Outcome::regressed,
                                "regressed on " + run.hardware + ": " + figures +
                                    ". If the slowdown is intended, publish this report.");
      break;
    case SampleVerdict::inconclusive: {
      const std::string why = "inconclusive on " + run.hardware + ": " + figures +
                              ": the samples cannot tell a slowdown beyond the tolerance from none";
      gate.latency = make_check(kLatencyCheck, sample_outcome(c.verdict, policy),
                                policy.inconclusive_fails ? why + "; rerun on a quiet runner or with a longer --budget"
                                                          : why + " (" + kInconclusiveWarning + ")");
      break;
    }
    case SampleVerdict::passed:
      gate.latency = make_check(kLatencyCheck, Outcome::passed, figures);
      if (policy.win_is_stale && c.ratio_high < 1 - policy.latency_tolerance)
        gate.stale_reasons.push_back("faster than its record: " + figures + ": publish this report");
      break;
  }
}

// Whether a stored record measured (or counted) what this run did: the same
// workload identity, axes and precision. Each difference is a stale reason.
bool is_comparable(const BaselineRecord& stored, const RunResult& run, const CandidateResult& candidate,
                   std::vector<std::string>& stale_reasons) {
  bool comparable = true;
  // A measured record that does not say what it measured cannot be compared.
  if (stored.workload_identity.empty()) {
    stale_reasons.push_back("the record names no workload identity, so what it measured is unknown: "
                            "re-measure and publish");
    comparable = false;
  } else if (stored.workload_identity != run.identity) {
    stale_reasons.push_back("the record was measured against workload identity " +
                            short_hash(stored.workload_identity) + ", this suite is " +
                            short_hash(run.identity) + ": the workload changed, re-measure and publish");
    comparable = false;
  }
  if (stored.axes.empty()) {
    stale_reasons.push_back("the record names no axes, so the shape it measured is unknown: re-measure and "
                            "publish");
    comparable = false;
  } else if (stored.preset != run.preset || stored.axes != run.axes) {
    stale_reasons.push_back("the record was measured at other axes (preset '" + stored.preset + "', " +
                            format_axes(stored.axes) + "; this run: preset '" + run.preset + "', " +
                            format_axes(run.axes) + ")");
    comparable = false;
  }
  if (stored.precision != candidate.precision) {
    stale_reasons.push_back("the record is " + stored.precision + " but the candidate now declares " +
                            candidate.precision + ": re-measure and publish");
    comparable = false;
  }
  return comparable;
}

// The counters the cpu key gates, each "lower is better": what the roofline
// reads (roofline.hpp: footprint, sectors, wavefronts, tensor FLOPs, waits)
// and the ratios that show an access pattern getting worse while the totals
// stay. With the latency term (below), which also reads the occupancy, the
// modelled time cannot rise unless one of them does.
struct GatedCounter {
  const char* name;
  const char* numerator;
  const char* denominator;  // nullptr: the counter itself
};
constexpr GatedCounter kGatedCounters[] = {
    {"dram_bytes", "dram_bytes", nullptr},
    {"global_requests", "global_requests", nullptr},
    {"global_load_sectors", "global_load_sectors", nullptr},
    {"global_store_sectors", "global_store_sectors", nullptr},
    {"sectors per load request", "global_load_sectors", "global_load_requests"},
    {"sectors per store request", "global_store_sectors", "global_store_requests"},
    {"shared_wavefronts", "shared_wavefronts", nullptr},
    {"wavefronts per ideal", "shared_wavefronts", "shared_wavefronts_ideal"},
    {"tensor_flops", "tensor_flops", nullptr},
    {"barriers", "barriers", nullptr},
    {"global_load_waits", "global_load_waits", nullptr},
};

bool has_counter(const NamedCounters& counters, const char* name) {
  for (const auto& [key, value] : counters)
    if (key == name) return true;
  return false;
}

double gated_value(const GatedCounter& gated, const NamedCounters& counters) {
  const double value = double(counter(counters, gated.numerator));
  if (!gated.denominator) return value;
  const double per = double(counter(counters, gated.denominator));
  return per > 0 ? value / per : 0;
}

std::string count_text(double value) { return format(value == std::floor(value) ? "%.0f" : "%.3f", value); }

// The roofline's latency term on one GPU key, in ms: the one term that reads
// the launch configuration and the registers (the occupancy), which no
// counter above gates. 0 without waits.
double latency_term_ms(const NamedCounters& counters, const std::string& precision, const HardwareSpec& key) {
  for (const ModelTerm& term : modelled_time(counters, precision, 0, key).terms)
    if (term.name == "latency") return term.ms;
  return 0;
}

// The cpu key: this run's counters against the modelled record's. Exact
// counts need no statistics: a rise beyond the tolerance regresses, naming
// every counter that rose; a fall beyond it asks for a publish.
void judge_counters(CandidateGate& gate, const CandidateResult& candidate, const GatePolicy& policy) {
  const NamedCounters& stored = gate.stored->counters;
  std::vector<std::string> rose, fell, missing;
  // One gated figure against its record: beyond the tolerance up it rose,
  // down it fell. `text` writes a value as the message shows it.
  auto judge = [&](const std::string& name, double before, double now, auto text) {
    const std::string change = name + " " + text(now) + " vs " + text(before) +
                               (before > 0 ? " (" + percent(now / before - 1) + ")" : "");
    if (now > before * (1 + policy.counter_tolerance)) rose.push_back(change);
    else if (now < before * (1 - policy.counter_tolerance)) fell.push_back(change);
  };
  for (const GatedCounter& gated : kGatedCounters) {
    // A record published before kernelgate counted this cannot judge it.
    if (!has_counter(stored, gated.numerator)) {
      missing.push_back(gated.numerator);
      continue;
    }
    judge(gated.name, gated_value(gated, stored), gated_value(gated, candidate.counters), count_text);
  }
  // On every GPU key: their SM counts differ, so a grid that fills one key's
  // resident warps may not fill another's. A key with the same figures as one
  // before it (h200 and h100-sxm) is not named twice.
  if (has_counter(stored, "global_load_waits")) {
    std::vector<std::pair<double, double>> judged;
    for (const HardwareSpec* key : roofline_hardware()) {
      const double before = latency_term_ms(stored, candidate.precision, *key);
      const double now = latency_term_ms(candidate.counters, candidate.precision, *key);
      if (std::find(judged.begin(), judged.end(), std::pair{before, now}) != judged.end()) continue;
      judged.emplace_back(before, now);
      judge("latency term on " + key->key, before, now, [](double ms) { return format("%.4g", ms) + " ms"; });
    }
  }
  gate.rule = "counters";
  const std::string tolerance = format("%.3g", policy.counter_tolerance * 100) + "% tolerance";
  // Not stale: the record is current for what it holds, and a kernelgate
  // upgrade must not fail every team's gate until it publishes.
  const std::string not_compared =
      missing.empty() ? "" : "; not compared, the modelled record predates them (publish to gate them): " + joined(missing);
  if (!rose.empty()) {
    gate.latency = make_check(kLatencyCheck, Outcome::regressed,
                              "regressed on cpu (interpret mode's counters, " + tolerance + "): " + joined(rose) +
                                  not_compared + ". If the change is intended, publish this report.");
    return;
  }
  gate.latency = make_check(kLatencyCheck, Outcome::passed,
                            "interpret mode's counters within " + tolerance + " of the modelled record" +
                                (fell.empty() ? "" : "; lower: " + joined(fell)) + not_compared +
                                "; wall-clock time is informational");
  if (policy.win_is_stale && !fell.empty())
    gate.stale_reasons.push_back("counters below the modelled record beyond the tolerance (" + joined(fell) +
                                 "): publish this report");
}

// What this run's figure of a candidate is. A run on the simulated GPU is
// never a measurement, whatever it counted. A counted run (interpret mode,
// --counters) is modelled: the cpu key gates its counters (judge_counters).
Trust record_trust(const RunResult& run, const CandidateResult& candidate) {
  if (is_simulated_hardware(run.hardware)) return Trust::simulated;
  return candidate.counters.empty() ? Trust::measured : Trust::modelled;
}

}  // namespace

Outcome sample_outcome(SampleVerdict verdict, const GatePolicy& policy) {
  switch (verdict) {
    case SampleVerdict::passed: return Outcome::passed;
    case SampleVerdict::regressed: return Outcome::regressed;
    case SampleVerdict::inconclusive: break;
  }
  return policy.inconclusive_fails ? Outcome::inconclusive : Outcome::passed;
}

SampleComparisonPolicy sample_comparison_policy(const GatePolicy& policy) {
  SampleComparisonPolicy sample_policy;
  sample_policy.tolerance = policy.latency_tolerance;
  sample_policy.detection_margin = policy.latency_tolerance / 2;
  return sample_policy;
}

GatePolicy apply_overrides(GatePolicy policy, const GatePolicyOverrides& overrides) {
  // The suite file's ranges (suite.hpp); the command line checks the same
  // before it gets here, so this names the policy field, not an option.
  auto check = [](double value, double max, const char* field) {
    if (!(value >= 0 && value <= max))
      throw Error(std::string("gate policy: ") + field + " must be between 0 and " + format("%g", max) + ", not " +
                  format("%g", value));
  };
  policy.gate_wall_clock = overrides.gate_wall_clock;
  if (overrides.latency_tolerance) {
    check(*overrides.latency_tolerance, kMaxLatencyTolerance, "latency_tolerance");
    policy.latency_tolerance = *overrides.latency_tolerance;
  }
  if (overrides.noise_multiplier) {
    check(*overrides.noise_multiplier, kMaxNoiseMultiplier, "noise_multiplier");
    policy.noise_multiplier = *overrides.noise_multiplier;
  }
  if (overrides.max_age_days) {
    check(*overrides.max_age_days, kMaxAgeDays, "max_age_days");
    policy.max_age_days = *overrides.max_age_days;
  }
  if (overrides.win_is_stale) policy.win_is_stale = *overrides.win_is_stale;
  return policy;
}

std::string RankDrift::describe() const {
  return "the stored ranking puts " + faster_stored + " (#" + std::to_string(stored_rank_of_faster_stored) +
         ") ahead of " + faster_now + " (#" + std::to_string(stored_rank_of_faster_now) + "), but now " +
         faster_now + " takes " + ms(mean_ms_faster_now) + " and " + faster_stored + " " +
         ms(mean_ms_faster_stored);
}

const CandidateGate* GateVerdict::find(const std::string& implementation) const {
  for (const auto& gate : candidates)
    if (gate.implementation == implementation) return &gate;
  return nullptr;
}

BaselineRecord measured_record(const RunResult& run, const CandidateResult& candidate,
                               std::optional<double> eager_mean_ms) {
  BaselineRecord record;
  record.implementation = candidate.id;
  record.kind = candidate.kind.empty() ? "candidate" : candidate.kind;
  record.precision = candidate.precision;
  record.trust = record_trust(run, candidate);
  if (record.trust == Trust::modelled) record.counters = candidate.counters;
  if (candidate.latency) {
    record.latency = *candidate.latency;
    record.latency.samples_ms = stored_samples(candidate.latency->samples_ms);
  }
  if (eager_mean_ms && *eager_mean_ms > 0 && candidate.id != kEagerBaselineId && candidate.latency)
    record.ratio_to_eager = candidate.latency->mean_ms / *eager_mean_ms;
  record.source = "kernelgate run on " + (run.device.empty() ? run.hardware : run.device);
  if (iso_date_days(run.started_at)) {
    record.observed = run.started_at;
  } else {  // a run without a start time is observed today
    auto today = std::chrono::year_month_day{std::chrono::sys_days{std::chrono::days{today_utc_days()}}};
    char date[16];
    std::snprintf(date, sizeof date, "%04d-%02u-%02u", int(today.year()), unsigned(today.month()),
                  unsigned(today.day()));
    record.observed = date;
  }
  record.environment = run.environment.is_object() ? run.environment : nlohmann::ordered_json::object();
  record.workload_identity = run.identity;
  record.preset = run.preset;
  record.axes = run.axes;
  record.git_revision = git_revision_of(run.environment);
  return record;
}

namespace {

// cudnn_eager in this run and in the store: candidates are judged relative
// to it when both runs timed it at the same workload and axes, with samples
// on both sides.
struct EagerTiming {
  std::optional<double> mean_ms;        // this run's, for each record's ratio to eager
  const LatencyStats* now = nullptr;    // this run's, when it gates
  const BaselineRecord* stored = nullptr;
  bool comparable = false;
};

EagerTiming eager_timing(const RunResult& run, const BaselineFile* baseline) {
  EagerTiming eager;
  for (const auto& candidate : run.candidates)
    if (candidate.id == kEagerBaselineId && is_gateable(candidate)) {
      eager.mean_ms = candidate.latency->mean_ms;
      eager.now = &*candidate.latency;
    }
  eager.stored = baseline ? baseline->find(kEagerBaselineId, Trust::measured) : nullptr;
  eager.comparable = eager.now && eager.stored && !eager.stored->workload_identity.empty() &&
                     eager.stored->workload_identity == run.identity && eager.stored->preset == run.preset &&
                     eager.stored->axes == run.axes && !eager.stored->latency.samples_ms.empty() &&
                     !eager.now->samples_ms.empty();
  return eager;
}

// A candidate the gate does not look at: failed, unsupported or untimed.
CandidateGate not_gated(const CandidateResult& candidate) {
  CandidateGate gate;
  gate.implementation = candidate.id;
  std::string why = "not gated: the candidate is " + std::string(to_string(candidate.outcome));
  if (!candidate.latency && !is_failure(candidate.outcome)) why = "not gated: no latency was measured";
  gate.latency = make_check(kLatencyCheck, Outcome::skipped, why);
  gate.staleness = make_check(kStalenessCheck, Outcome::skipped, why);
  gate.unjudged = "not gated";
  return gate;
}

// The cpu key: interpret mode's counters against the modelled record.
void judge_on_the_cpu_key(CandidateGate& gate, const RunResult& run, const CandidateResult& candidate,
                          const BaselineRecord* modelled, const GatePolicy& policy) {
  gate.stored = modelled;
  if (candidate.counters.empty()) {
    gate.unjudged = candidate.counters_unavailable.empty() ? "this run counted nothing" : "could not count";
    gate.latency = candidate.counters_unavailable.empty()
                       ? make_check(kLatencyCheck, Outcome::passed,
                                    "not compared: the modelled record has counters, this run counted none "
                                    "(kernelgate run --counters)")
                       : make_check(kLatencyCheck, Outcome::unreliable,
                                    "cannot gate: the modelled record has counters, but this run could not count: " +
                                        candidate.counters_unavailable);
  } else if (!modelled) {
    gate.unjudged = "no modelled record yet";
    gate.latency = make_check(kLatencyCheck, Outcome::new_record,
                              "no modelled record for " + candidate.id +
                                  " on cpu: publish this report to store its counters");
    gate.staleness = make_check(kStalenessCheck, Outcome::passed, "");
  } else if (is_comparable(*modelled, run, candidate, gate.stale_reasons)) {
    judge_counters(gate, candidate, policy);
  } else {
    gate.unjudged = "the modelled record is stale";
    gate.latency =
        make_check(kLatencyCheck, Outcome::passed, "not compared: the modelled record is stale (see staleness)");
  }
}

// No measured record yet: new. The simulated GPU's key has no file and
// never gets one (publish refuses its reports): new, but nothing to publish.
void judge_new(CandidateGate& gate, const RunResult& run, const CandidateResult& candidate) {
  gate.unjudged = "no measured record yet";
  const std::string next = gate.record->trust == Trust::simulated
                               ? "a run on the simulated GPU is never a measurement, so none is stored"
                               : "publish this report to store it";
  gate.latency = make_check(kLatencyCheck, Outcome::new_record,
                            "no measured record for " + candidate.id + " on " + run.hardware + " (" +
                                ms(candidate.latency->mean_ms) + " now): " + next);
  gate.staleness = make_check(kStalenessCheck, Outcome::passed, "");
}

// A record without samples (version 1): the mean against the record's mean
// with a tolerance and a noise allowance, and the ratio to cudnn_eager.
void judge_by_mean_and_std(CandidateGate& gate, const RunResult& run, const LatencyStats& now,
                           const BaselineRecord& stored, const GatePolicy& policy, const LatencyStats* eager_now) {
  const double noise_ms = policy.noise_multiplier * std::max(now.std_ms, stored.latency.std_ms);
  gate.rule = "mean_std";
  gate.threshold_ms = stored.latency.mean_ms * (1.0 + policy.latency_tolerance) + noise_ms;
  std::vector<std::string> regressions;
  if (now.mean_ms > *gate.threshold_ms)
    regressions.push_back(ms(now.mean_ms) + " vs measured record " + ms(stored.latency.mean_ms) + " (" +
                          percent(*gate.change) + "; allowed up to " + ms(*gate.threshold_ms) + " = " +
                          format("%.3g", policy.latency_tolerance * 100) + "% tolerance + " +
                          format("%.3g", policy.noise_multiplier) + " x " +
                          ms(std::max(now.std_ms, stored.latency.std_ms)) + " noise)");
  if (gate.ratio_to_eager && gate.stored_ratio_to_eager && eager_now) {
    // Relative noise of a ratio: the two coefficients of variation add (bound).
    const double ratio_noise = policy.noise_multiplier * (now.cv + eager_now->cv);
    gate.ratio_threshold = *gate.stored_ratio_to_eager * (1.0 + policy.latency_tolerance + ratio_noise);
    if (*gate.ratio_to_eager > *gate.ratio_threshold)
      regressions.push_back("ratio to cudnn_eager " + format("%.3f", *gate.ratio_to_eager) + " vs stored " +
                            format("%.3f", *gate.stored_ratio_to_eager) + " (allowed up to " +
                            format("%.3f", *gate.ratio_threshold) + ")");
  }
  if (!regressions.empty()) {
    gate.latency = make_check(kLatencyCheck, Outcome::regressed,
                              "regressed on " + run.hardware + ": " + joined(regressions) +
                                  ". If the slowdown is intended, publish this report.");
    return;
  }
  gate.latency = make_check(kLatencyCheck, Outcome::passed,
                            ms(now.mean_ms) + " vs record " + ms(stored.latency.mean_ms) + " (" +
                                percent(*gate.change) + ", threshold " + ms(*gate.threshold_ms) +
                                (stored.latency.samples_ms.empty() ? "; the record has no samples"
                                                                   : "; this run has no samples") +
                                ": mean-and-std rule)");
  const double win_threshold_ms = stored.latency.mean_ms * (1.0 - policy.latency_tolerance) - noise_ms;
  if (policy.win_is_stale && now.mean_ms < win_threshold_ms)
    gate.stale_reasons.push_back("faster than its record by " + percent(-*gate.change).substr(1) + " (" +
                                 ms(now.mean_ms) + " vs " + ms(stored.latency.mean_ms) +
                                 ", beyond tolerance and noise): publish this report");
}

// A GPU key's measured record. Returns whether the latency was judged
// against it (then the pair takes part in the rank drift check).
bool judge_measured(CandidateGate& gate, const RunResult& run, const CandidateResult& candidate,
                    const GateOptions& options, const EagerTiming& eager) {
  const GatePolicy& policy = options.policy;
  const LatencyStats& now = *candidate.latency;
  const BaselineRecord& stored = *gate.stored;
  gate.baseline_mean_ms = stored.latency.mean_ms;
  gate.stored_ratio_to_eager = stored.ratio_to_eager;
  gate.change = now.mean_ms / stored.latency.mean_ms - 1.0;

  // Staleness that makes the record incomparable: then the latency is not judged.
  const bool comparable = is_comparable(stored, run, candidate, gate.stale_reasons);
  if (auto observed = iso_date_days(stored.observed)) {
    long age = options.today_days - *observed;
    if (age > policy.max_age_days)
      gate.stale_reasons.push_back("the record observed " + stored.observed.substr(0, 10) + " is " +
                                   std::to_string(age) + " days old (max " + std::to_string(policy.max_age_days) +
                                   "): re-measure and publish");
  }
  const bool wall_clock = now.clock == "wall" && !policy.gate_wall_clock;
  // Records of version 1 have no samples: they are judged by their mean and std.
  const bool by_samples = !stored.latency.samples_ms.empty() && !now.samples_ms.empty();
  const std::string unreliable =
      comparable && !wall_clock ? noise_problem(stored.latency, now, policy, !by_samples) : "";
  if (!comparable) {
    gate.unjudged = "the measured record is stale";
    gate.latency =
        make_check(kLatencyCheck, Outcome::passed, "not compared: the stored record is stale (see staleness)");
  } else if (wall_clock) {
    gate.unjudged = "interpret-mode wall clock is informational";
    gate.latency = make_check(kLatencyCheck, Outcome::passed,
                              ms(now.mean_ms) + " vs record " + ms(stored.latency.mean_ms) +
                                  ": interpret-mode wall-clock time is informational, not gated");
  } else if (!unreliable.empty()) {
    gate.unjudged = "too noisy to compare";
    gate.latency = make_check(kLatencyCheck, Outcome::unreliable, unreliable);
  } else if (by_samples) {
    judge_samples(gate, run, candidate, policy, eager.comparable ? eager.stored : nullptr,
                  eager.comparable ? eager.now : nullptr);
    return true;
  } else {
    judge_by_mean_and_std(gate, run, now, stored, policy, eager.now);
    return true;
  }
  return false;
}

// Whether b, ranked behind a in the store, measured faster than a now: with
// samples on both sides, b confidently faster by more than half the
// tolerance (the sample comparison of b against a in this run); without,
// the means apart by more than the noise.
bool drifted(const LatencyStats& a, const LatencyStats& b, const GatePolicy& policy) {
  if (!a.samples_ms.empty() && !b.samples_ms.empty()) {
    const SampleComparison c = compare_samples(a.samples_ms, b.samples_ms, sample_comparison_policy(policy));
    return c.ratio_high < 1 - policy.latency_tolerance / 2;
  }
  return a.mean_ms - b.mean_ms > policy.noise_multiplier * std::max(a.std_ms, b.std_ms);
}

// Rank drift: a pair of judged candidates whose measured order contradicts
// the stored ranking. Only measured records take part: reported ones never
// gate.
void find_rank_drifts(GateVerdict& verdict, const std::vector<std::size_t>& rankable, const RunResult& run,
                      const BaselineFile& baseline, const GatePolicy& policy) {
  auto measured_rank = [&](const std::string& id) { return baseline.stored_rank(id, Trust::measured); };
  auto latency_of = [&](const std::string& id) -> const LatencyStats& { return *find_candidate(run, id)->latency; };
  for (std::size_t x = 0; x < rankable.size(); ++x) {
    for (std::size_t y = x + 1; y < rankable.size(); ++y) {
      CandidateGate* a = &verdict.candidates[rankable[x]];
      CandidateGate* b = &verdict.candidates[rankable[y]];
      if (measured_rank(a->implementation) > measured_rank(b->implementation)) std::swap(a, b);
      const LatencyStats& la = latency_of(a->implementation);
      const LatencyStats& lb = latency_of(b->implementation);
      if (!drifted(la, lb, policy)) continue;
      RankDrift drift{a->implementation, b->implementation, measured_rank(a->implementation),
                      measured_rank(b->implementation), la.mean_ms, lb.mean_ms};
      a->stale_reasons.push_back("rank drift: " + drift.describe() + ": publish this report");
      b->stale_reasons.push_back("rank drift: " + drift.describe() + ": publish this report");
      verdict.drifts.push_back(std::move(drift));
    }
  }
}

// One gateable candidate against the baseline file. Returns whether its
// latency was judged against a ranked measured record.
bool judge_candidate(CandidateGate& gate, const RunResult& run, const CandidateResult& candidate,
                     const BaselineFile* baseline, const GateOptions& options, const EagerTiming& eager) {
  gate.record = measured_record(run, candidate, eager.mean_ms);
  gate.ratio_to_eager = gate.record->ratio_to_eager;
  const BaselineRecord* modelled = baseline ? baseline->find(candidate.id, Trust::modelled) : nullptr;
  if (run.hardware == kCpuHardwareKey && (!candidate.counters.empty() || modelled)) {
    judge_on_the_cpu_key(gate, run, candidate, modelled, options.policy);
    return false;
  }
  gate.stored = baseline ? baseline->find(candidate.id, Trust::measured) : nullptr;
  if (!gate.stored) {
    judge_new(gate, run, candidate);
    return false;
  }
  return judge_measured(gate, run, candidate, options, eager) &&
         baseline->stored_rank(candidate.id, Trust::measured) > 0;
}

}  // namespace

GateVerdict evaluate_gate(const RunResult& run, const BaselineFile* baseline, const GateOptions& options) {
  if (baseline && (baseline->workload != run.workload || baseline->hardware != run.hardware))
    throw Error("baseline file for " + baseline->workload + " on " + baseline->hardware +
                " given to the gate of " + run.workload + " on " + run.hardware);
  const EagerTiming eager = eager_timing(run, baseline);
  GateVerdict verdict;
  std::vector<std::size_t> rankable;  // judged against a ranked measured record: the rank drift pairs
  for (const auto& candidate : run.candidates) {
    if (!is_gateable(candidate)) {
      verdict.candidates.push_back(not_gated(candidate));
      continue;
    }
    CandidateGate gate;
    gate.implementation = candidate.id;
    gate.gated = true;
    if (judge_candidate(gate, run, candidate, baseline, options, eager)) rankable.push_back(verdict.candidates.size());
    verdict.candidates.push_back(std::move(gate));
  }
  if (baseline) find_rank_drifts(verdict, rankable, run, *baseline, options.policy);
  for (auto& gate : verdict.candidates) {
    if (!gate.gated || !gate.stored) continue;
    const bool stale = !gate.stale_reasons.empty();
    gate.staleness = make_check(kStalenessCheck, stale ? Outcome::stale : Outcome::passed,
                                stale ? joined(gate.stale_reasons) : "");
  }
  return verdict;
}

void apply_gate(RunResult& run, const GateVerdict& verdict) {
  for (auto& candidate : run.candidates) {
    const CandidateGate* gate = verdict.find(candidate.id);
    if (!gate) continue;
    for (const CheckResult* verdict_check : {&gate->latency, &gate->staleness}) {
      auto existing = std::find_if(candidate.checks.begin(), candidate.checks.end(),
                                   [&](const CheckResult& c) { return c.name == verdict_check->name; });
      // The runner writes neither check; results of an earlier version carry
      // a provisional latency check, which the verdict replaces. A failed one
      // (a file edited by hand) stays failed.
      if (existing == candidate.checks.end()) {
        candidate.checks.push_back(*verdict_check);
      } else if (!is_failure(existing->outcome)) {
        *existing = *verdict_check;
      }
    }
    // A record whose failure (or refusal) no check carries, written by hand
    // or by a version before the checks said everything: it stays, as a
    // check of its own, so deciding from the checks cannot make it a pass.
    const bool refused = candidate.outcome == Outcome::not_supported;
    if ((is_failure(candidate.outcome) || refused) &&
        std::none_of(candidate.checks.begin(), candidate.checks.end(), [&](const CheckResult& check) {
          return refused ? check.outcome == Outcome::not_supported : is_failure(check.outcome);
        }))
      candidate.checks.push_back(make_check(refused ? "support" : "run", candidate.outcome, candidate.message));
    decide(candidate);
  }
}

int gate_exit_code(const RunResult& run) {
  for (const auto& candidate : run.candidates)
    if (is_failure(candidate.outcome)) return 1;
  return 0;
}

}  // namespace kg
