#pragma once
// Stored baselines: baselines/<workload>/<hardware>.json. One file holds the
// records of every implementation timed on one hardware key, the published
// ranking, and the history of replaced records. The format is
// docs/baseline.schema.json; the policy is docs/baselines.md.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

// Version 2 adds latency.samples_ms and latency.rounds; version 3 adds the
// top-level "kind" every kernelgate file has. Versions 1 and 2 still load
// (version 1 records compare by mean and std: docs/baselines.md).
inline constexpr int kBaselineSchemaVersion = 3;
inline constexpr int kOldestBaselineSchemaVersion = 1;
inline constexpr const char* kBaselineKind = "kernelgate-baseline";

// The implementation whose latency every candidate is also compared to as a
// ratio, timed in the same run (robust to a machine that got faster or slower).
inline constexpr std::string_view kEagerBaselineId = "cudnn_eager";

// `reported`: a figure from a publication, shown and ranked but never gating.
// `measured`: a figure this suite measured; it gates.
// `modelled`: interpret mode's counters of a cpu run (docs/roofline.md); it
// gates the cpu key on its counters and lives in no GPU key's file.
// `simulated`: a run on the simulated GPU (is_simulated_hardware); shown in
// its report, never a measurement, so no baseline file ever holds one.
enum class Trust { reported, measured, modelled, simulated };
std::string_view to_string(Trust trust);
Trust trust_from_string(std::string_view text);  // throws kg::Error

struct BaselineRecord {
  std::string implementation;        // candidate id, e.g. "fused_tf32", or "torch_eager"
  std::string kind = "candidate";    // candidate | source_baseline | reference
  std::string precision;             // fp32, tf32, bf16...
  Trust trust = Trust::measured;
  LatencyStats latency;              // milliseconds
  // latency.mean_ms / the cudnn_eager mean of the same run; absent when that
  // run had no cudnn_eager timing (and for reported records).
  std::optional<double> ratio_to_eager;
  std::string source;                // where the figure comes from
  std::string observed;              // ISO 8601 date or date-time (UTC) of the measurement
  nlohmann::ordered_json environment = nlohmann::ordered_json::object();
  std::string workload_identity;     // sha256 of the suite; "" when unknown (reported)
  std::string preset;                // axes preset it was measured at
  Axes axes;                         // the axes it was measured at; empty when unknown
  std::string git_revision;
  std::string notes;
  // A modelled record's counters by name (kernelgate/interpret/counters.hpp);
  // empty for the others.
  std::vector<std::pair<std::string, std::uint64_t>> counters;
};

// One place of the published ranking, fastest first.
struct RankEntry {
  int rank = 0;  // 1-based
  std::string implementation;
  Trust trust = Trust::measured;
  double mean_ms = 0;
};

// A change made by `kernelgate publish`; replaced records stay here, so no
// record is ever dropped silently.
struct HistoryEntry {
  std::string at;              // ISO 8601 UTC
  std::string by;              // who published (user name)
  std::string action;          // "added" | "replaced"
  std::string implementation;
  std::string origin;          // the report the new record came from
  std::optional<BaselineRecord> previous;  // the replaced record
};

struct BaselineFile {
  int schema_version = kBaselineSchemaVersion;
  std::string workload;
  std::string hardware;
  std::vector<BaselineRecord> records;
  std::vector<RankEntry> ranking;
  std::vector<HistoryEntry> history;

  const BaselineRecord* find(std::string_view implementation, Trust trust) const;
  // Position (1-based) in the stored ranking, or 0 when not ranked.
  int stored_rank(std::string_view implementation, Trust trust) const;
};

// Sorted by mean latency (ties by implementation id), every record ranked.
std::vector<RankEntry> rank_records(const std::vector<BaselineRecord>& records);

void to_json(nlohmann::ordered_json& j, const BaselineRecord& v);
void to_json(nlohmann::ordered_json& j, const RankEntry& v);
void to_json(nlohmann::ordered_json& j, const HistoryEntry& v);
void to_json(nlohmann::ordered_json& j, const BaselineFile& v);

// Throws kg::Error naming `where` (a file) and the JSON path of the problem.
// `path` is the JSON pointer of j inside the file (a report's
// "/candidates/3/record"), so errors name the full path.
BaselineRecord parse_baseline_record(const nlohmann::ordered_json& j, const std::string& where,
                                     const std::string& path = "");
BaselineFile parse_baseline_file(const nlohmann::ordered_json& j, const std::string& where);

// Why a workload id or hardware key cannot name a baseline file (empty, a
// character outside [a-z0-9_.-], a leading dot), or std::nullopt.
std::optional<std::string> store_key_problem(std::string_view key);
// baselines_dir/workload/hardware.json. Throws kg::Error for a key that
// store_key_problem refuses, so no key names a file outside the folder.
std::filesystem::path baseline_path(const std::filesystem::path& baselines_dir,
                                    const std::string& workload, const std::string& hardware);
// The baseline files of a workload (baselines_dir/workload/*.json, hidden
// ones left out), sorted; empty when the workload has no folder.
std::vector<std::filesystem::path> workload_baseline_files(const std::filesystem::path& baselines_dir,
                                                           const std::string& workload);
// Throws kg::Error naming the file when it cannot be read, is not JSON, or does
// not follow the schema.
BaselineFile load_baseline_file(const std::filesystem::path& file);
// std::nullopt when the file does not exist; otherwise load_baseline_file
// (a file that exists but cannot be read is an error, never "absent").
std::optional<BaselineFile> load_baseline_if_present(const std::filesystem::path& file);
// The stored file of a workload on a hardware key, if there is one; throws
// kg::Error naming the file when it holds another workload or hardware key.
std::optional<BaselineFile> load_stored_baseline(const std::filesystem::path& baselines_dir,
                                                 const std::string& workload, const std::string& hardware);
// The --baselines folder of a run must exist and be readable: a misspelt
// folder would make every candidate new and switch the gate off. A missing
// folder passes only with allow_empty (a first run). Throws kg::Error.
void check_baselines_dir(const std::filesystem::path& baselines_dir, bool allow_empty);

// Days since 1970-01-01 of an ISO 8601 date or date-time ("2026-03-05",
// "2026-03-05T12:00:00Z"); std::nullopt when it does not start with a valid date.
std::optional<long> iso_date_days(std::string_view text);
// Today (UTC) in days since 1970-01-01.
long today_utc_days();

}  // namespace kg
