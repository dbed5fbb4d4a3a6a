// The result records as JSON (result.hpp): they cross from the candidate's
// child process to the parent, and go into the reports. Field names are the
// struct field names; optional fields are omitted when empty.
#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <set>
#include <type_traits>
#include <utility>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/enum_names.hpp"
#include "kernelgate/detail/json_reader.hpp"
#include "kernelgate/detail/json_members.hpp"
#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/roofline.hpp"
#include "runner_internal.hpp"

namespace kg {
namespace {

constexpr EnumNames<Outcome, 12> kOutcomeNames{"outcome", {{
    {Outcome::passed, "passed"},
    {Outcome::new_record, "new"},
    {Outcome::incorrect, "incorrect"},
    {Outcome::contract_violation, "contract_violation"},
    {Outcome::crashed, "crashed"},
    {Outcome::timed_out, "timed_out"},
    {Outcome::regressed, "regressed"},
    {Outcome::inconclusive, "inconclusive"},
    {Outcome::unreliable, "unreliable"},
    {Outcome::stale, "stale"},
    {Outcome::not_supported, "not_supported"},
    {Outcome::skipped, "skipped"},
}}};

// One value of a record is read by the type of the member it fills
// (kernelgate/detail/json_reader.hpp's read_value); a single number may be NaN or
// infinite, written as a string (number() below).

// An optional member of a record: absent (or null) keeps the default, so
// older reports load; present, it must have the right type.
template <typename T>
void read_optional(const JsonReader& r, const char* key, T& value) {
  if (r.has(key)) read_value(r.at(key), value);
}

Outcome read_outcome(const JsonReader& r) {
  try {
    return outcome_from_string(r.as_string());
  } catch (const Error& e) {
    if (!r.json().is_string()) throw;
    r.fail(e.what());
  }
}

// JSON has no NaN or Inf; they are written as the strings "NaN", "Infinity",
// "-Infinity" (as Python's json module does) so a NaN output stays visible.
nlohmann::ordered_json number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

}  // namespace

std::string utc_timestamp_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

const CandidateResult* find_candidate(const RunResult& run, std::string_view id) {
  for (const auto& candidate : run.candidates)
    if (candidate.id == id) return &candidate;
  return nullptr;
}

std::string_view to_string(Outcome outcome) { return kOutcomeNames.name(outcome); }

Outcome outcome_from_string(std::string_view text) { return kOutcomeNames.parse(text); }

namespace {

// The members of the two statistics records, in the order they are written:
// one list serves the writer, the strict reader and the keys it allows.
KG_JSON_MEMBERS(ErrorStats, checked, sampled, max_abs, max_rel, rel_l2, mismatches, first_mismatch_index,
                first_mismatch_got, first_mismatch_want, non_finite, kernelbench_1e2, kernelbench_1e4,
                elementwise_fraction, rel_l2_fraction)
KG_JSON_MEMBERS(LatencyStats, protocol, clock, warmups, n, mean_ms, std_ms, min_ms, median_ms, max_ms, cv,
                checked_samples, check_ms, overhead_ms, busy_after_ms, rounds, samples_ms, throttled_samples,
                sm_clock_mhz, clock_event_reasons, hold_expired_samples)

template <typename Stats>
nlohmann::ordered_json write_members(const Stats& v) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for_each_member(v, [&](const char* name, const auto& value) {
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, double>) j[name] = number(value);
    else j[name] = value;
  });
  return j;
}

template <typename Stats>
Stats read_members(const JsonReader& r, const std::set<std::string>& also_allowed = {}) {
  Stats v;
  std::set<std::string> keys = also_allowed;
  for_each_member(v, [&](const char* name, auto&) { keys.insert(name); });
  r.expect_keys({}, keys);
  for_each_member(v, [&](const char* name, auto& value) { read_optional(r, name, value); });
  return v;
}

}  // namespace

void to_json(nlohmann::ordered_json& j, const ErrorStats& v) {
  j = write_members(v);
  j["headroom"] = number(v.headroom());  // derived from the fractions: written, never read back
}

ErrorStats read_error_stats(const JsonReader& r) { return read_members<ErrorStats>(r, {"headroom"}); }

void to_json(nlohmann::ordered_json& j, const LatencyStats& v) {
  j = write_members(v);
  if (v.sm_clock_mhz.empty()) j.erase("sm_clock_mhz");
  if (!(v.busy_after_ms > 0)) j.erase("busy_after_ms");  // measured on a GPU only
  if (v.clock_event_reasons.empty()) j.erase("clock_event_reasons");
  if (v.hold_expired_samples == 0) j.erase("hold_expired_samples");
}

LatencyStats read_latency_stats(const JsonReader& r) { return read_members<LatencyStats>(r); }

void to_json(nlohmann::ordered_json& j, const CheckResult& v) {
  j = nlohmann::ordered_json{{"name", v.name}, {"outcome", std::string(to_string(v.outcome))}};
  if (!v.message.empty()) j["message"] = v.message;
  if (!v.rule.empty()) j["rule"] = v.rule;
}

CheckResult read_check_result(const JsonReader& r) {
  r.expect_keys({"name", "outcome"}, {"message", "rule"});
  CheckResult v;
  v.name = r.at("name").as_string();
  v.outcome = read_outcome(r.at("outcome"));
  read_optional(r, "message", v.message);
  read_optional(r, "rule", v.rule);
  return v;
}

std::vector<std::pair<std::string, std::uint64_t>> detail::counters_from_json(const JsonReader& object) {
  object.expect_object();
  std::vector<std::pair<std::string, std::uint64_t>> counters;
  for (const auto& [name, value] : object.json().items()) counters.emplace_back(name, object.at(name).as_unsigned());
  return counters;
}

void to_json(nlohmann::ordered_json& j, const CandidateResult& v) {
  j = nlohmann::ordered_json{{"id", v.id},
                             {"precision", v.precision},
                             {"kind", v.kind},
                             {"outcome", std::string(to_string(v.outcome))},
                             {"message", v.message}};
  j["checks"] = nlohmann::ordered_json::array();
  for (const auto& check : v.checks) j["checks"].push_back(check);
  if (v.error) j["error"] = *v.error;
  if (v.latency) j["latency"] = *v.latency;
  if (v.bitwise_deterministic) j["bitwise_deterministic"] = *v.bitwise_deterministic;
  if (!v.thread_orders.empty()) j["thread_orders"] = v.thread_orders;
  if (!v.source_lint.empty()) j["source_lint"] = v.source_lint;
  if (!v.counters.empty()) {
    j["model"]["counters"] = counters_json(v.counters);
  } else if (!v.counters_unavailable.empty()) {
    j["model"]["unavailable"] = v.counters_unavailable;
  }
}

// A report's candidate carries the gate's verdict and the roofline of its
// counters beside the runner's record ("gate", "record", model.hardware):
// allowed, not read back.
CandidateResult read_candidate_result(const JsonReader& r) {
  r.expect_keys({"id", "outcome"}, {"precision", "kind", "message", "checks", "error", "latency",
                                    "bitwise_deterministic", "thread_orders", "source_lint", "model", "gate",
                                    "record"});
  CandidateResult v;
  v.id = r.at("id").as_string();
  read_optional(r, "precision", v.precision);
  read_optional(r, "kind", v.kind);
  v.outcome = read_outcome(r.at("outcome"));
  read_optional(r, "message", v.message);
  if (r.has("checks")) {
    const JsonReader checks = r.at("checks").expect_array();
    for (std::size_t i = 0; i < checks.size(); ++i) v.checks.push_back(read_check_result(checks.at(i)));
  }
  if (r.has("error")) v.error = read_error_stats(r.at("error"));
  if (r.has("latency")) v.latency = read_latency_stats(r.at("latency"));
  if (r.has("bitwise_deterministic")) v.bitwise_deterministic = r.at("bitwise_deterministic").as_bool();
  read_optional(r, "thread_orders", v.thread_orders);
  read_optional(r, "source_lint", v.source_lint);
  if (r.has("model")) {
    const JsonReader model = r.at("model").expect_keys({}, {"counters", "unavailable", "hardware"});
    if (model.has("counters")) v.counters = detail::counters_from_json(model.at("counters"));
    read_optional(model, "unavailable", v.counters_unavailable);
  }
  return v;
}

void to_json(nlohmann::ordered_json& j, const RunResult& v) {
  j = nlohmann::ordered_json{
      {"workload", v.workload}, {"identity", v.identity}, {"preset", v.preset},
  };
  j["axes"] = nlohmann::ordered_json(v.axes);  // an object, keys in the map's (sorted) order
  j["device"] = v.device;
  j["hardware"] = v.hardware;
  j["environment"] = v.environment;
  j["seed"] = v.seed;
  j["started_at"] = v.started_at;
  j["candidates"] = nlohmann::ordered_json::array();
  for (const auto& candidate : v.candidates) j["candidates"].push_back(candidate);
}

RunResult read_run_result(const JsonReader& r) {
  r.expect_keys({"workload"}, {"identity", "preset", "axes", "device", "hardware", "environment", "seed", "started_at",
                               "candidates"});
  RunResult v;
  v.workload = r.at("workload").as_string();
  read_optional(r, "identity", v.identity);
  read_optional(r, "preset", v.preset);
  if (r.has("axes")) v.axes = r.at("axes").as_integer_map();
  read_optional(r, "device", v.device);
  read_optional(r, "hardware", v.hardware);
  v.environment = r.has("environment") ? r.at("environment").expect_object().json() : nlohmann::ordered_json::object();
  if (r.has("seed")) v.seed = r.at("seed").as_unsigned();
  read_optional(r, "started_at", v.started_at);
  if (r.has("candidates")) {
    const JsonReader candidates = r.at("candidates").expect_array();
    for (std::size_t i = 0; i < candidates.size(); ++i) v.candidates.push_back(read_candidate_result(candidates.at(i)));
  }
  return v;
}

// nlohmann's conversions, for code that holds a record in memory (the
// round-trip tests): the strict readers, naming no file.
void from_json(const nlohmann::ordered_json& j, ErrorStats& v) { v = read_error_stats(JsonReader(j, "JSON")); }
void from_json(const nlohmann::ordered_json& j, LatencyStats& v) { v = read_latency_stats(JsonReader(j, "JSON")); }
void from_json(const nlohmann::ordered_json& j, CheckResult& v) { v = read_check_result(JsonReader(j, "JSON")); }
void from_json(const nlohmann::ordered_json& j, CandidateResult& v) {
  v = read_candidate_result(JsonReader(j, "JSON"));
}
void from_json(const nlohmann::ordered_json& j, RunResult& v) { v = read_run_result(JsonReader(j, "JSON")); }

}  // namespace kg
