// The JSON report of one gated run: everything, in the shape of
// docs/report.schema.json. The Markdown and `summarize` read this JSON.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/report.hpp"
#include "kernelgate/detail/roofline.hpp"

namespace kg {

using nlohmann::ordered_json;

namespace {

ordered_json optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? ordered_json(*value) : ordered_json(nullptr);
}

std::string date_of(const std::string& iso) { return iso.substr(0, 10); }

ordered_json gate_json(const CandidateGate& gate) {
  ordered_json j;
  j["gated"] = gate.gated;
  j["has_measured_record"] = gate.stored != nullptr;
  j["baseline_mean_ms"] = optional_number(gate.baseline_mean_ms);
  j["threshold_ms"] = optional_number(gate.threshold_ms);
  j["change"] = optional_number(gate.change);
  j["ratio_to_eager"] = optional_number(gate.ratio_to_eager);
  j["stored_ratio_to_eager"] = optional_number(gate.stored_ratio_to_eager);
  j["ratio_threshold"] = optional_number(gate.ratio_threshold);
  j["rule"] = gate.rule;
  j["unjudged"] = gate.unjudged;
  j["comparison"] = comparison_json(gate.comparison, gate.relative_to_eager);
  j["stale_reasons"] = gate.stale_reasons;
  return j;
}

// How the gate judged a candidate's speed, in the words a reviewer of a pull
// request reads beside its time: by which rule against which record, or
// why it was not judged.
std::string speed_judgement(const CandidateGate& gate) {
  if (gate.rule == "samples")
    return gate.relative_to_eager ? "samples vs measured record, as ratio to cudnn_eager"
                                  : "samples vs measured record";
  if (gate.rule == "mean_std") return "mean and spread vs measured record";
  if (gate.rule == "counters") return "counters vs modelled record";
  return "not judged: " + (gate.unjudged.empty() ? std::string("no rule applied") : gate.unjudged);
}

// A candidate of this run more than this many times faster than
// cudnn_eager in the same run is listed for review: a custom kernel rarely
// beats the library by that much on these workloads, and one that skips
// work in a way the checks do not see would. Not a failure.
constexpr double kReviewSpeedupOverEager = 5.0;

std::string format_speedup(double times) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g×", times);
  return text;
}

// One row of the ranking: a candidate timed in this run, or a reported record.
struct RankingRow {
  std::string implementation;
  std::string precision;
  std::string trust;   // "measured" or "simulated" (this run) | "reported"
  std::string origin;  // "this run" | the record's source
  double mean_ms = 0;
  double std_ms = 0;
  std::optional<double> eager_mean_ms;  // eager of the same origin
  std::string observed;
  bool stale = false;
  std::string outcome;
  std::string judged;  // speed_judgement; a reported record is not judged
};

// This run's gated candidates, each as its record says it is (a run on the
// simulated GPU as simulated, never as measured).
std::vector<RankingRow> rows_of_this_run(const ReportInput& input) {
  const RunResult& run = *input.run;
  std::optional<double> run_eager;
  if (const auto* eager = find_candidate(run, kEagerBaselineId); eager && eager->latency && eager->latency->n > 0 &&
                                                                 !is_failure(eager->outcome))
    run_eager = eager->latency->mean_ms;
  std::vector<RankingRow> rows;
  for (const auto& candidate : run.candidates) {
    const CandidateGate* gate = input.verdict ? input.verdict->find(candidate.id) : nullptr;
    if (!gate || !gate->gated) continue;
    RankingRow row;
    row.implementation = candidate.id;
    row.precision = candidate.precision;
    row.trust = gate->record && gate->record->trust == Trust::simulated ? "simulated" : "measured";
    row.origin = "this run";
    row.mean_ms = candidate.latency->mean_ms;
    row.std_ms = candidate.latency->std_ms;
    row.eager_mean_ms = run_eager;
    row.observed = date_of(run.started_at);
    row.stale = gate->staleness.outcome == Outcome::stale;
    row.outcome = std::string(to_string(candidate.outcome));
    row.judged = speed_judgement(*gate);
    rows.push_back(std::move(row));
  }
  return rows;
}

// The stored file's reported records (published figures), each with the
// eager figure of the same publication and GPU.
std::vector<RankingRow> reported_rows(const ReportInput& input) {
  std::vector<RankingRow> rows;
  if (!input.baseline) return rows;
  for (const auto& record : input.baseline->records) {
    if (record.trust != Trust::reported) continue;
    RankingRow row;
    row.implementation = record.implementation;
    row.precision = record.precision;
    row.trust = "reported";
    row.origin = record.source;
    row.mean_ms = record.latency.mean_ms;
    row.std_ms = record.latency.std_ms;
    for (const auto& other : input.baseline->records)
      if (other.trust == Trust::reported && other.implementation == "torch_eager" && other.source == record.source &&
          other.environment.value("gpu", "") == record.environment.value("gpu", ""))
        row.eager_mean_ms = other.latency.mean_ms;
    row.observed = date_of(record.observed);
    auto observed = iso_date_days(record.observed);
    row.stale = observed && input.today_days - *observed > input.policy.max_age_days;
    row.outcome = "reported";
    row.judged = "not judged: a published figure";
    rows.push_back(std::move(row));
  }
  return rows;
}

ordered_json ranking_row_json(const RankingRow& row, std::size_t rank, double first_ms, const ReportInput& input) {
  ordered_json j;
  j["rank"] = rank;
  j["implementation"] = row.implementation;
  j["precision"] = row.precision;
  j["trust"] = row.trust;
  j["origin"] = row.origin;
  j["mean_ms"] = row.mean_ms;
  j["std_ms"] = row.std_ms;
  j["vs_first"] = row.mean_ms / first_ms;
  j["speedup_over_eager"] = row.eager_mean_ms ? ordered_json(*row.eager_mean_ms / row.mean_ms) : ordered_json(nullptr);
  j["observed"] = row.observed;
  j["stale"] = row.stale;
  j["outcome"] = row.outcome;
  j["judged"] = row.judged;
  const bool suspect = row.origin == "this run" && row.implementation != kEagerBaselineId && row.eager_mean_ms &&
                       *row.eager_mean_ms / row.mean_ms > kReviewSpeedupOverEager;
  j["review"] = suspect ? ordered_json(format_speedup(*row.eager_mean_ms / row.mean_ms) +
                                       " faster than cudnn_eager in this run (more than " +
                                       format_speedup(kReviewSpeedupOverEager) +
                                       "): check that it computes the whole problem")
                        : ordered_json(nullptr);
  double floor = input.floors ? input.floors->floor_ms(row.precision) : 0;
  j["floor_ms"] = floor > 0 ? ordered_json(floor) : ordered_json(nullptr);
  j["above_floor"] = floor > 0 ? ordered_json(row.mean_ms / floor) : ordered_json(nullptr);
  return j;
}

ordered_json ranking_json(const ReportInput& input) {
  std::vector<RankingRow> rows = rows_of_this_run(input);
  for (RankingRow& row : reported_rows(input)) rows.push_back(std::move(row));
  std::stable_sort(rows.begin(), rows.end(), [](const RankingRow& a, const RankingRow& b) { return a.mean_ms < b.mean_ms; });
  ordered_json ranking = ordered_json::array();
  for (std::size_t i = 0; i < rows.size(); ++i)
    ranking.push_back(ranking_row_json(rows[i], i + 1, rows.front().mean_ms, input));
  return ranking;
}

}  // namespace

double LatencyFloors::floor_ms(const std::string& precision) const {
  // As hardware.hpp: a precision without a figure of its own counts as fp32.
  auto compute = compute_ms.find(precision);
  if (compute == compute_ms.end()) compute = compute_ms.find("fp32");
  if (compute == compute_ms.end()) return 0;
  return std::max(memory_ms, compute->second);
}

std::string report_stem(const RunResult& run) {
  // The stem names files: a key from an edited result must not leave the folder.
  if (auto why = store_key_problem(run.workload)) throw Error("workload id " + *why + ": not a report name");
  if (auto why = store_key_problem(run.hardware)) throw Error("hardware key " + *why + ": not a report name");
  return run.workload + "." + run.hardware;
}

ordered_json comparison_json(const std::optional<SampleComparison>& comparison, bool relative_to_eager) {
  if (!comparison) return nullptr;
  return {{"verdict", std::string(to_string(comparison->verdict))},
          {"ratio", comparison->ratio},
          {"ratio_low", comparison->ratio_low},
          {"ratio_high", comparison->ratio_high},
          {"relative_to_eager", relative_to_eager}};
}

namespace {

ordered_json workload_json(const ReportInput& input) {
  const RunResult& run = *input.run;
  ordered_json workload;
  workload["id"] = run.workload;
  workload["title"] = input.title;
  workload["identity"] = run.identity;
  workload["preset"] = run.preset;
  workload["axes"] = ordered_json(run.axes);  // an object, keys in the map's (sorted) order
  workload["flops"] = input.flops;
  workload["bytes"] = input.bytes;
  return workload;
}

ordered_json counts_json(const RunResult& run) {
  int failed = 0, passed = 0, fresh = 0, other = 0;
  for (const auto& candidate : run.candidates) {
    if (is_failure(candidate.outcome)) ++failed;
    else if (candidate.outcome == Outcome::passed) ++passed;
    else if (candidate.outcome == Outcome::new_record) ++fresh;
    else ++other;
  }
  return {{"candidates", run.candidates.size()}, {"passed", passed}, {"new", fresh},
          {"failed", failed}, {"other", other}};
}

ordered_json floors_json(const ReportInput& input) {
  if (!input.floors) return nullptr;
  ordered_json floors;
  floors["hardware"] = input.floors->hardware;
  floors["memory_ms"] = input.floors->memory_ms;
  floors["compute_ms"] = ordered_json::object();
  for (const auto& [precision, ms] : input.floors->compute_ms) floors["compute_ms"][precision] = ms;
  return floors;
}

// Each candidate: the runner's record (checks, error, latency, counters),
// the roofline of its counters on every GPU key at the run's axes, and the
// gate's verdict with the record it would publish.
ordered_json candidates_json(const ReportInput& input) {
  ordered_json candidates = ordered_json::array();
  for (const auto& candidate : input.run->candidates) {
    ordered_json c = candidate;
    if (!candidate.counters.empty())
      c["model"]["hardware"] =
          modelled_json(candidate.counters, candidate.precision, input.flops, input.bytes, roofline_hardware());
    const CandidateGate* gate = input.verdict ? input.verdict->find(candidate.id) : nullptr;
    c["gate"] = gate ? gate_json(*gate) : ordered_json(nullptr);
    c["record"] = gate && gate->record ? ordered_json(*gate->record) : ordered_json(nullptr);
    candidates.push_back(std::move(c));
  }
  return candidates;
}

ordered_json drifts_json(const ReportInput& input) {
  ordered_json drifts = ordered_json::array();
  if (input.verdict)
    for (const auto& drift : input.verdict->drifts)
      drifts.push_back({{"faster_stored", drift.faster_stored},
                        {"faster_now", drift.faster_now},
                        {"stored_rank_of_faster_stored", drift.stored_rank_of_faster_stored},
                        {"stored_rank_of_faster_now", drift.stored_rank_of_faster_now},
                        {"mean_ms_faster_stored", drift.mean_ms_faster_stored},
                        {"mean_ms_faster_now", drift.mean_ms_faster_now},
                        {"message", drift.describe()}});
  return drifts;
}

}  // namespace

ordered_json report_json(const ReportInput& input) {
  const RunResult& run = *input.run;
  ordered_json j;
  j["schema_version"] = kReportSchemaVersion;
  j["kind"] = kReportKind;
  j["generator"] = "kernelgate";
  j["workload"] = workload_json(input);
  j["hardware"] = run.hardware;
  j["device"] = run.device;
  j["environment"] = run.environment.is_object() ? run.environment : ordered_json::object();
  j["seed"] = run.seed;
  j["started_at"] = run.started_at;
  j["finished_at"] = input.finished_at;
  j["outcome"] = input.exit_code == 0 ? "passed" : "failed";
  j["exit_code"] = input.exit_code;
  j["counts"] = counts_json(run);
  j["policy"] = {{"latency_tolerance", input.policy.latency_tolerance},
                 {"noise_multiplier", input.policy.noise_multiplier},
                 {"max_age_days", input.policy.max_age_days},
                 {"win_is_stale", input.policy.win_is_stale},
                 {"max_rounds", input.policy.max_rounds},
                 {"inconclusive", input.policy.inconclusive_fails ? "fail" : "warn"},
                 {"gate_wall_clock", input.policy.gate_wall_clock}};
  j["baseline"] = {{"file", input.baseline_file},
                   {"present", input.baseline != nullptr},
                   {"records", input.baseline ? input.baseline->records.size() : 0}};
  j["floors"] = floors_json(input);
  j["candidates"] = candidates_json(input);
  j["ranking"] = ranking_json(input);
  j["rank_drifts"] = drifts_json(input);
  return j;
}

}  // namespace kg
