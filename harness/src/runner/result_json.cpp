// The result records as JSON (result.hpp): they cross from the candidate's
// child process to the parent, and go into the reports. Field names are the
// struct field names; optional fields are omitted when empty.
#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <utility>

#include "kernelgate/error.hpp"
#include "kernelgate/result.hpp"
#include "kernelgate/roofline.hpp"
#include "runner_internal.hpp"

namespace kg {
namespace {

constexpr std::array<std::pair<Outcome, std::string_view>, 12> kOutcomeNames{{
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
}};

// Reads an optional field: absent keeps the default, so older reports load.
template <typename T>
void read_if_present(const nlohmann::ordered_json& j, const char* key, T& value) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) value = it->template get<T>();
}

// JSON has no NaN or Inf; they are written as the strings "NaN", "Infinity",
// "-Infinity" (as Python's json module does) so a NaN output stays visible.
nlohmann::ordered_json number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

double read_number(const nlohmann::ordered_json& j) {
  if (j.is_string()) {
    const auto text = j.get<std::string>();
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    throw Error("expected a number, got '" + text + "'");
  }
  return j.get<double>();
}

void read_number_if_present(const nlohmann::ordered_json& j, const char* key, double& value) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) value = read_number(*it);
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

std::string_view to_string(Outcome outcome) {
  for (const auto& [value, name] : kOutcomeNames)
    if (value == outcome) return name;
  return "unknown";
}

Outcome outcome_from_string(std::string_view text) {
  for (const auto& [value, name] : kOutcomeNames)
    if (name == text) return value;
  std::string known;
  for (const auto& [value, name] : kOutcomeNames) known += (known.empty() ? "" : ", ") + std::string(name);
  throw Error("unknown outcome '" + std::string(text) + "' (known: " + known + ")");
}

void to_json(nlohmann::ordered_json& j, const ErrorStats& v) {
  j = nlohmann::ordered_json{
      {"checked", v.checked},
      {"sampled", v.sampled},
      {"max_abs", number(v.max_abs)},
      {"max_rel", number(v.max_rel)},
      {"rel_l2", number(v.rel_l2)},
      {"mismatches", v.mismatches},
      {"first_mismatch_index", v.first_mismatch_index},
      {"first_mismatch_got", number(v.first_mismatch_got)},
      {"first_mismatch_want", number(v.first_mismatch_want)},
      {"non_finite", v.non_finite},
      {"kernelbench_1e2", v.kernelbench_1e2},
      {"kernelbench_1e4", v.kernelbench_1e4},
      {"elementwise_fraction", number(v.elementwise_fraction)},
      {"rel_l2_fraction", number(v.rel_l2_fraction)},
      {"headroom", number(v.headroom())},
  };
}

void from_json(const nlohmann::ordered_json& j, ErrorStats& v) {
  read_if_present(j, "checked", v.checked);
  read_if_present(j, "sampled", v.sampled);
  read_number_if_present(j, "max_abs", v.max_abs);
  read_number_if_present(j, "max_rel", v.max_rel);
  read_number_if_present(j, "rel_l2", v.rel_l2);
  read_if_present(j, "mismatches", v.mismatches);
  read_if_present(j, "first_mismatch_index", v.first_mismatch_index);
  read_number_if_present(j, "first_mismatch_got", v.first_mismatch_got);
  read_number_if_present(j, "first_mismatch_want", v.first_mismatch_want);
  read_if_present(j, "non_finite", v.non_finite);
  read_if_present(j, "kernelbench_1e2", v.kernelbench_1e2);
  read_if_present(j, "kernelbench_1e4", v.kernelbench_1e4);
  read_number_if_present(j, "elementwise_fraction", v.elementwise_fraction);
  read_number_if_present(j, "rel_l2_fraction", v.rel_l2_fraction);
}

void to_json(nlohmann::ordered_json& j, const LatencyStats& v) {
  j = nlohmann::ordered_json{
      {"protocol", v.protocol}, {"clock", v.clock},   {"warmups", v.warmups},
      {"n", v.n},               {"mean_ms", v.mean_ms}, {"std_ms", v.std_ms},
      {"min_ms", v.min_ms},     {"median_ms", v.median_ms}, {"max_ms", v.max_ms},
      {"cv", v.cv},             {"checked_samples", v.checked_samples}, {"check_ms", v.check_ms},
      {"overhead_ms", v.overhead_ms}, {"rounds", v.rounds}, {"samples_ms", v.samples_ms},
      {"throttled_samples", v.throttled_samples},
  };
  if (!v.sm_clock_mhz.empty()) j["sm_clock_mhz"] = v.sm_clock_mhz;
}

void from_json(const nlohmann::ordered_json& j, LatencyStats& v) {
  read_if_present(j, "protocol", v.protocol);
  read_if_present(j, "clock", v.clock);
  read_if_present(j, "warmups", v.warmups);
  read_if_present(j, "n", v.n);
  read_if_present(j, "mean_ms", v.mean_ms);
  read_if_present(j, "std_ms", v.std_ms);
  read_if_present(j, "min_ms", v.min_ms);
  read_if_present(j, "median_ms", v.median_ms);
  read_if_present(j, "max_ms", v.max_ms);
  read_if_present(j, "cv", v.cv);
  read_if_present(j, "checked_samples", v.checked_samples);
  read_if_present(j, "check_ms", v.check_ms);
  read_if_present(j, "overhead_ms", v.overhead_ms);
  read_if_present(j, "rounds", v.rounds);
  read_if_present(j, "samples_ms", v.samples_ms);
  read_if_present(j, "sm_clock_mhz", v.sm_clock_mhz);
  read_if_present(j, "throttled_samples", v.throttled_samples);
}

void to_json(nlohmann::ordered_json& j, const CheckResult& v) {
  j = nlohmann::ordered_json{{"name", v.name}, {"outcome", std::string(to_string(v.outcome))}};
  if (!v.message.empty()) j["message"] = v.message;
  if (!v.rule.empty()) j["rule"] = v.rule;
}

void from_json(const nlohmann::ordered_json& j, CheckResult& v) {
  v.name = j.at("name").get<std::string>();
  v.outcome = outcome_from_string(j.at("outcome").get<std::string>());
  read_if_present(j, "message", v.message);
  read_if_present(j, "rule", v.rule);
}

std::vector<std::pair<std::string, std::uint64_t>> detail::counters_from_json(const nlohmann::ordered_json& object) {
  std::vector<std::pair<std::string, std::uint64_t>> counters;
  for (const auto& [name, value] : object.items()) counters.emplace_back(name, value.get<std::uint64_t>());
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
  if (!v.counters.empty()) {
    j["model"]["counters"] = counters_json(v.counters);
  } else if (!v.counters_unavailable.empty()) {
    j["model"]["unavailable"] = v.counters_unavailable;
  }
}

void from_json(const nlohmann::ordered_json& j, CandidateResult& v) {
  v.id = j.at("id").get<std::string>();
  read_if_present(j, "precision", v.precision);
  read_if_present(j, "kind", v.kind);
  v.outcome = outcome_from_string(j.at("outcome").get<std::string>());
  read_if_present(j, "message", v.message);
  v.checks.clear();
  if (auto it = j.find("checks"); it != j.end())
    for (const auto& check : *it) v.checks.push_back(check.get<CheckResult>());
  v.error.reset();
  if (auto it = j.find("error"); it != j.end() && !it->is_null()) v.error = it->get<ErrorStats>();
  v.latency.reset();
  if (auto it = j.find("latency"); it != j.end() && !it->is_null())
    v.latency = it->get<LatencyStats>();
  v.bitwise_deterministic.reset();
  if (auto it = j.find("bitwise_deterministic"); it != j.end() && !it->is_null())
    v.bitwise_deterministic = it->get<bool>();
  v.thread_orders.clear();
  read_if_present(j, "thread_orders", v.thread_orders);
  v.counters.clear();
  v.counters_unavailable.clear();
  if (auto model = j.find("model"); model != j.end()) {
    if (model->contains("counters")) v.counters = detail::counters_from_json(model->at("counters"));
    read_if_present(*model, "unavailable", v.counters_unavailable);
  }
}

void to_json(nlohmann::ordered_json& j, const RunResult& v) {
  j = nlohmann::ordered_json{
      {"workload", v.workload}, {"identity", v.identity}, {"preset", v.preset},
  };
  j["axes"] = nlohmann::ordered_json::object();
  for (const auto& [name, value] : v.axes) j["axes"][name] = value;
  j["device"] = v.device;
  j["hardware"] = v.hardware;
  j["environment"] = v.environment;
  j["seed"] = v.seed;
  j["started_at"] = v.started_at;
  j["candidates"] = nlohmann::ordered_json::array();
  for (const auto& candidate : v.candidates) j["candidates"].push_back(candidate);
}

void from_json(const nlohmann::ordered_json& j, RunResult& v) {
  v.workload = j.at("workload").get<std::string>();
  read_if_present(j, "identity", v.identity);
  read_if_present(j, "preset", v.preset);
  v.axes.clear();
  if (auto it = j.find("axes"); it != j.end())
    for (const auto& [name, value] : it->items()) v.axes[name] = value.get<std::int64_t>();
  read_if_present(j, "device", v.device);
  read_if_present(j, "hardware", v.hardware);
  v.environment = nlohmann::ordered_json::object();
  if (auto it = j.find("environment"); it != j.end()) v.environment = *it;
  read_if_present(j, "seed", v.seed);
  read_if_present(j, "started_at", v.started_at);
  v.candidates.clear();
  if (auto it = j.find("candidates"); it != j.end())
    for (const auto& candidate : *it) v.candidates.push_back(candidate.get<CandidateResult>());
}

}  // namespace kg
