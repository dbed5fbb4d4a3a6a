// Baseline files: reading (strict, errors name the file and JSON path),
// writing, ranking. Format: docs/baseline.schema.json.
#include "kernelgate/detail/baseline.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/gpu_identity.hpp"
#include "kernelgate/detail/hardware.hpp"
#include "kernelgate/detail/enum_names.hpp"
#include "kernelgate/detail/json_reader.hpp"
#include "kernelgate/detail/roofline.hpp"
#include "kernelgate/detail/runner.hpp"
#include "kernelgate/detail/sample_comparison.hpp"

namespace kg {

using nlohmann::ordered_json;

namespace {

constexpr EnumNames<Trust, 4> kTrustNames{"trust",
                                          {{{Trust::reported, "reported"},
                                            {Trust::measured, "measured"},
                                            {Trust::modelled, "modelled"},
                                            {Trust::simulated, "simulated"}}}};

}  // namespace

std::string_view to_string(Trust trust) { return kTrustNames.name(trust); }

Trust trust_from_string(std::string_view text) { return kTrustNames.parse(text); }

std::optional<long> iso_date_days(std::string_view text) {
  if (text.size() < 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  auto digits = [&](std::size_t from, std::size_t count) -> std::optional<int> {
    int value = 0;
    for (std::size_t i = from; i < from + count; ++i) {
      if (text[i] < '0' || text[i] > '9') return std::nullopt;
      value = value * 10 + (text[i] - '0');
    }
    return value;
  };
  auto year = digits(0, 4), month = digits(5, 2), day = digits(8, 2);
  if (!year || !month || !day) return std::nullopt;
  if (text.size() > 10 && text[10] != 'T' && text[10] != ' ') return std::nullopt;
  std::chrono::year_month_day date{std::chrono::year{*year}, std::chrono::month{unsigned(*month)},
                                   std::chrono::day{unsigned(*day)}};
  if (!date.ok()) return std::nullopt;
  return std::chrono::sys_days{date}.time_since_epoch().count();
}

// ---- writing ---------------------------------------------------------------

namespace {

ordered_json number_or_null(double value) {
  return std::isfinite(value) ? ordered_json(value) : ordered_json(nullptr);
}

ordered_json latency_json(const LatencyStats& v) {
  ordered_json j;
  j["protocol"] = v.protocol;
  j["clock"] = v.clock;
  j["warmups"] = v.warmups;
  j["n"] = v.n;
  j["mean_ms"] = v.mean_ms;
  j["std_ms"] = v.std_ms;
  j["min_ms"] = number_or_null(v.min_ms);
  j["median_ms"] = number_or_null(v.median_ms);
  j["max_ms"] = number_or_null(v.max_ms);
  j["cv"] = v.cv;
  if (!v.samples_ms.empty()) {
    j["rounds"] = v.rounds;
    j["samples_ms"] = v.samples_ms;
  }
  return j;
}

// Version 1 records have no samples; version 2 ones may keep up to
// kStoredSamples, sorted (the order statistics the comparison uses).
// The summary of a stored record must be its samples': the page and the
// ranking show the summary, the gate judges the samples, and a hand edit of
// one must not make them tell two stories. With all n samples stored the
// statistics are recomputed; thinned to the order statistics the comparison
// keeps (stored_samples), the bounds those still give must hold.
void check_summary_against_samples(const LatencyStats& v, const JsonReader& r) {
  const std::vector<double>& samples = v.samples_ms;
  if (samples.empty()) return;
  const std::string count = std::to_string(samples.size()) + " stored samples";
  auto fail = [&](const char* key, double stated, const std::string& samples_give) {
    r.at(key).fail("says " + std::to_string(stated) + " ms, but its " + count + " give " + samples_give);
  };
  auto ms = [](double value) { return std::to_string(value) + " ms"; };
  auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); };
  auto given = [&](const char* key) { return r.has(key); };
  if (std::int64_t(samples.size()) == v.n) {
    const LatencyStats recomputed = latency_statistics(samples, v.protocol, v.clock, v.warmups);
    if (!close(v.mean_ms, recomputed.mean_ms)) fail("mean_ms", v.mean_ms, ms(recomputed.mean_ms));
    if (!close(v.std_ms, recomputed.std_ms)) fail("std_ms", v.std_ms, ms(recomputed.std_ms));
    if (given("min_ms") && !close(v.min_ms, recomputed.min_ms)) fail("min_ms", v.min_ms, ms(recomputed.min_ms));
    if (given("median_ms") && !close(v.median_ms, recomputed.median_ms))
      fail("median_ms", v.median_ms, ms(recomputed.median_ms));
    if (given("max_ms") && !close(v.max_ms, recomputed.max_ms)) fail("max_ms", v.max_ms, ms(recomputed.max_ms));
    return;
  }
  if (given("min_ms") && v.min_ms > samples.front()) fail("min_ms", v.min_ms, "a smaller one, " + ms(samples.front()));
  if (given("max_ms") && v.max_ms < samples.back()) fail("max_ms", v.max_ms, "a larger one, " + ms(samples.back()));
  const double low = given("min_ms") ? v.min_ms : 0.0;
  const double high = given("max_ms") ? v.max_ms : std::numeric_limits<double>::infinity();
  if (v.mean_ms < low || v.mean_ms > high)
    fail("mean_ms", v.mean_ms, "a range of " + ms(low) + " to " + ms(high) + " with the stored minimum and maximum");
  // Thinned to kStoredSamples, the middle two kept samples bracket the median.
  const std::size_t middle = samples.size() / 2;
  if (given("median_ms") && samples.size() == kStoredSamples &&
      (v.median_ms < samples[middle - 1] || v.median_ms > samples[middle]))
    fail("median_ms", v.median_ms, "a median between " + ms(samples[middle - 1]) + " and " + ms(samples[middle]));
}

LatencyStats parse_latency(const JsonReader& r, int schema_version) {
  if (schema_version >= 2)
    r.expect_keys({"protocol", "clock", "n", "mean_ms", "std_ms"},
                  {"warmups", "min_ms", "median_ms", "max_ms", "cv", "rounds", "samples_ms"});
  else
    r.expect_keys({"protocol", "clock", "n", "mean_ms", "std_ms"}, {"warmups", "min_ms", "median_ms", "max_ms", "cv"});
  LatencyStats v;
  v.protocol = r.at("protocol").as_string();
  v.clock = r.at("clock").as_string();
  v.warmups = r.has("warmups") ? int(r.at("warmups").as_integer_in(0, 1 << 30)) : 0;
  v.n = r.at("n").as_integer_in(1, std::int64_t{1} << 40);
  v.mean_ms = r.at("mean_ms").as_non_negative();
  if (v.mean_ms <= 0) r.at("mean_ms").fail("expected a latency > 0");
  v.std_ms = r.at("std_ms").as_non_negative();
  // Publications do not always give every statistic: absent is NaN, never 0.
  auto optional_stat = [&](const char* key) {
    return r.has(key) ? r.at(key).as_non_negative() : std::nan("");
  };
  v.min_ms = optional_stat("min_ms");
  v.median_ms = optional_stat("median_ms");
  v.max_ms = optional_stat("max_ms");
  v.cv = r.has("cv") ? r.at("cv").as_non_negative() : v.std_ms / v.mean_ms;
  if (r.has("samples_ms")) {
    const auto samples = r.at("samples_ms");
    samples.expect_array();
    if (samples.size() > kStoredSamples)
      samples.fail("holds " + std::to_string(samples.size()) + " samples; a stored record keeps at most " +
                   std::to_string(kStoredSamples));
    if (std::int64_t(samples.size()) > v.n)
      samples.fail("holds " + std::to_string(samples.size()) + " samples, more than n = " + std::to_string(v.n));
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const double sample = samples.at(i).as_non_negative();
      if (!(sample > 0)) samples.at(i).fail("expected a latency > 0");
      if (!v.samples_ms.empty() && sample < v.samples_ms.back()) samples.at(i).fail("samples must be sorted, smallest first");
      v.samples_ms.push_back(sample);
    }
    v.rounds = r.has("rounds") ? int(r.at("rounds").as_integer_in(1, 1000)) : 1;
    check_summary_against_samples(v, r);
  }
  return v;
}

}  // namespace

void to_json(ordered_json& j, const BaselineRecord& v) {
  j = ordered_json::object();
  j["implementation"] = v.implementation;
  j["kind"] = v.kind;
  j["precision"] = v.precision;
  j["trust"] = to_string(v.trust);
  j["latency"] = latency_json(v.latency);
  j["ratio_to_eager"] = v.ratio_to_eager ? ordered_json(*v.ratio_to_eager) : ordered_json(nullptr);
  j["source"] = v.source;
  j["observed"] = v.observed;
  j["environment"] = v.environment;
  j["workload_identity"] = v.workload_identity;
  j["preset"] = v.preset;
  j["axes"] = ordered_json(v.axes);  // an object, keys in the map's (sorted) order
  j["git_revision"] = v.git_revision;
  if (!v.notes.empty()) j["notes"] = v.notes;
  if (!v.counters.empty()) j["counters"] = counters_json(v.counters);
}

void to_json(ordered_json& j, const RankEntry& v) {
  j = ordered_json{{"rank", v.rank},
                   {"implementation", v.implementation},
                   {"trust", to_string(v.trust)},
                   {"mean_ms", v.mean_ms}};
}

void to_json(ordered_json& j, const HistoryEntry& v) {
  j = ordered_json{{"at", v.at},
                   {"by", v.by},
                   {"action", v.action},
                   {"implementation", v.implementation},
                   {"origin", v.origin}};
  if (v.previous) j["previous"] = *v.previous;
}

void to_json(ordered_json& j, const BaselineFile& v) {
  j = ordered_json::object();
  j["kind"] = kBaselineKind;
  j["schema_version"] = kBaselineSchemaVersion;  // what is written is always the current version
  j["workload"] = v.workload;
  j["hardware"] = v.hardware;
  j["ranking"] = v.ranking;
  j["records"] = v.records;
  j["history"] = v.history;
}

// ---- reading ---------------------------------------------------------------

namespace {

BaselineRecord parse_record(const JsonReader& r, int schema_version) {
  r.expect_keys({"implementation", "precision", "trust", "latency", "observed"},
                {"kind", "ratio_to_eager", "source", "environment", "workload_identity", "preset", "axes",
                 "git_revision", "notes", "counters"});
  BaselineRecord v;
  v.implementation = r.at("implementation").as_string();
  if (v.implementation.empty()) r.at("implementation").fail("must not be empty");
  v.kind = r.string_or("kind", "candidate");
  if (v.kind != "candidate" && v.kind != "source_baseline" && v.kind != "reference")
    r.at("kind").fail("expected candidate, source_baseline or reference");
  v.precision = r.at("precision").as_string();
  try {
    v.trust = trust_from_string(r.at("trust").as_string());
  } catch (const Error& e) {
    r.at("trust").fail(e.what());
  }
  v.latency = parse_latency(r.at("latency"), schema_version);
  v.ratio_to_eager = r.optional_number("ratio_to_eager");
  if (v.ratio_to_eager && !(*v.ratio_to_eager > 0 && std::isfinite(*v.ratio_to_eager)))
    r.at("ratio_to_eager").fail("expected a finite ratio > 0");
  v.source = r.string_or("source", "");
  v.observed = r.at("observed").as_string();
  const auto observed_days = iso_date_days(v.observed);
  if (!observed_days) r.at("observed").fail("expected an ISO 8601 date, e.g. 2026-03-05");
  // A date to come would never be stale: the file was edited or the clock
  // that wrote it was wrong.
  if (*observed_days > today_utc_days()) r.at("observed").fail("the date " + v.observed + " is in the future");
  if (r.has("environment")) {
    r.at("environment").expect_object();
    v.environment = r.at("environment").json();
  }
  v.workload_identity = r.string_or("workload_identity", "");
  v.preset = r.string_or("preset", "");
  if (r.has("axes")) v.axes = r.at("axes").as_integer_map();
  v.git_revision = r.string_or("git_revision", "");
  v.notes = r.string_or("notes", "");
  // What a modelled record gates on; no other record has counters.
  if (v.trust == Trust::modelled && !r.has("counters")) r.at("trust").fail("a modelled record needs its counters");
  if (r.has("counters")) {
    if (v.trust != Trust::modelled) r.at("counters").fail("only a modelled record has counters");
    auto counters = r.at("counters");
    counters.expect_object();
    if (counters.json().empty()) counters.fail("expected at least one counter");
    for (const auto& [name, value] : counters.json().items())
      v.counters.emplace_back(name, std::uint64_t(counters.at(name).as_integer_in(0, std::numeric_limits<std::int64_t>::max())));
  }
  return v;
}

// A stored figure gates or is shown as published; a simulated one is
// neither, so a file holding one was edited by hand. `at` is the trust
// field of the record or ranking entry it was read from.
void refuse_simulated(Trust trust, const JsonReader& at) {
  if (trust == Trust::simulated)
    at.fail("a simulated record is never stored: a run on the simulated GPU is not a measurement");
}

// The stored ranking must describe the records: every record ranked once,
// ranks 1..n, no entry without its record, each entry's mean its record's. A
// hand edit that breaks this would make rank drift judge a ranking nobody
// measured.
void check_ranking(const BaselineFile& file, const JsonReader& ranking) {
  std::vector<bool> rank_taken(file.ranking.size() + 1, false);
  std::vector<bool> record_ranked(file.records.size(), false);
  for (std::size_t i = 0; i < file.ranking.size(); ++i) {
    const RankEntry& entry = file.ranking[i];
    const auto at = ranking.at(i);
    if (entry.rank < 1 || std::size_t(entry.rank) > file.ranking.size())
      at.at("rank").fail("rank " + std::to_string(entry.rank) + " is outside 1.." +
                         std::to_string(file.ranking.size()));
    if (rank_taken[std::size_t(entry.rank)]) at.at("rank").fail("rank " + std::to_string(entry.rank) + " is given twice");
    rank_taken[std::size_t(entry.rank)] = true;
    const BaselineRecord* record = file.find(entry.implementation, entry.trust);
    if (!record)
      at.fail("ranks " + entry.implementation + " (" + std::string(to_string(entry.trust)) +
              "), which has no record in the file");
    const std::size_t index = std::size_t(record - file.records.data());
    if (record_ranked[index]) at.fail("ranks " + entry.implementation + " a second time");
    record_ranked[index] = true;
    if (entry.mean_ms != record->latency.mean_ms)
      at.at("mean_ms").fail("says " + std::to_string(entry.mean_ms) + " ms, its record " +
                            std::to_string(record->latency.mean_ms) + " ms");
  }
  for (std::size_t i = 0; i < file.records.size(); ++i)
    if (!record_ranked[i])
      ranking.fail("does not rank " + file.records[i].implementation + " (" +
                   std::string(to_string(file.records[i].trust)) + "), which has a record");
}

}  // namespace

BaselineRecord parse_baseline_record(const ordered_json& j, const std::string& where, const std::string& path) {
  return parse_record(JsonReader(j, where, path), kBaselineSchemaVersion);
}

BaselineFile parse_baseline_file(const ordered_json& j, const std::string& where) {
  JsonReader r(j, where);
  r.expect_keys({"schema_version", "workload", "hardware", "records"}, {"kind", "ranking", "history"});
  BaselineFile file;
  file.schema_version = read_file_kind(r, {.kind = kBaselineKind,
                                           .oldest_version = kOldestBaselineSchemaVersion,
                                           .version = kBaselineSchemaVersion,
                                           .last_version_without_kind = 2});
  file.workload = r.at("workload").as_string();
  if (auto why = store_key_problem(file.workload)) r.at("workload").fail(*why);
  file.hardware = r.at("hardware").as_string();
  if (auto why = store_key_problem(file.hardware)) r.at("hardware").fail(*why);
  if (is_simulated_hardware(file.hardware))
    r.at("hardware").fail("'" + file.hardware + "' is the simulated GPU's key: its runs are never measurements, so "
                          "no baseline file is kept for it");
  auto records = r.at("records");
  records.expect_array();
  for (std::size_t i = 0; i < records.size(); ++i) {
    auto record = parse_record(records.at(i), file.schema_version);
    refuse_simulated(record.trust, records.at(i).at("trust"));
    if (record.trust == Trust::modelled && file.hardware != kCpuHardwareKey)
      records.at(i).at("trust").fail("a modelled record belongs in the cpu key's file, not " + file.hardware + "'s");
    if (file.find(record.implementation, record.trust))
      records.at(i).fail("a second " + std::string(to_string(record.trust)) + " record for '" +
                         record.implementation + "'");
    file.records.push_back(std::move(record));
  }
  if (r.has("ranking")) {
    auto ranking = r.at("ranking");
    ranking.expect_array();
    for (std::size_t i = 0; i < ranking.size(); ++i) {
      auto entry = ranking.at(i);
      entry.expect_keys({"rank", "implementation", "trust", "mean_ms"});
      RankEntry rank;
      rank.rank = int(entry.at("rank").as_integer_in(1, 1 << 30));
      rank.implementation = entry.at("implementation").as_string();
      try {
        rank.trust = trust_from_string(entry.at("trust").as_string());
      } catch (const Error& e) {
        entry.at("trust").fail(e.what());
      }
      refuse_simulated(rank.trust, entry.at("trust"));
      rank.mean_ms = entry.at("mean_ms").as_non_negative();
      file.ranking.push_back(std::move(rank));
    }
    check_ranking(file, ranking);
  } else {
    file.ranking = rank_records(file.records);
  }
  if (r.has("history")) {
    auto history = r.at("history");
    history.expect_array();
    for (std::size_t i = 0; i < history.size(); ++i) {
      auto entry = history.at(i);
      entry.expect_keys({"at", "action", "implementation"}, {"by", "origin", "previous"});
      HistoryEntry h;
      h.at = entry.at("at").as_string();
      if (!iso_date_days(h.at)) entry.at("at").fail("expected an ISO 8601 date-time");
      h.by = entry.string_or("by", "");
      h.action = entry.at("action").as_string();
      if (h.action != "added" && h.action != "replaced") entry.at("action").fail("expected added or replaced");
      h.implementation = entry.at("implementation").as_string();
      h.origin = entry.string_or("origin", "");
      if (entry.has("previous")) {
        h.previous = parse_record(entry.at("previous"), file.schema_version);
        refuse_simulated(h.previous->trust, entry.at("previous").at("trust"));
      }
      file.history.push_back(std::move(h));
    }
  }
  return file;
}

const BaselineRecord* BaselineFile::find(std::string_view implementation, Trust trust) const {
  for (const auto& record : records)
    if (record.implementation == implementation && record.trust == trust) return &record;
  return nullptr;
}

int BaselineFile::stored_rank(std::string_view implementation, Trust trust) const {
  for (const auto& entry : ranking)
    if (entry.implementation == implementation && entry.trust == trust) return entry.rank;
  return 0;
}

std::vector<RankEntry> rank_records(const std::vector<BaselineRecord>& records) {
  std::vector<RankEntry> ranking;
  for (const auto& record : records)
    ranking.push_back({0, record.implementation, record.trust, record.latency.mean_ms});
  std::stable_sort(ranking.begin(), ranking.end(), [](const RankEntry& a, const RankEntry& b) {
    if (a.mean_ms != b.mean_ms) return a.mean_ms < b.mean_ms;
    if (a.implementation != b.implementation) return a.implementation < b.implementation;
    return a.trust == Trust::measured && b.trust == Trust::reported;
  });
  for (std::size_t i = 0; i < ranking.size(); ++i) ranking[i].rank = int(i + 1);
  return ranking;
}

std::optional<std::string> store_key_problem(std::string_view key) {
  if (key.empty()) return "is empty";
  for (char c : key)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
      return "'" + std::string(key) + "' has a character outside [a-z0-9_.-]";
  if (key.front() == '.') return "'" + std::string(key) + "' starts with a dot";
  return std::nullopt;
}

std::filesystem::path baseline_path(const std::filesystem::path& baselines_dir,
                                    const std::string& workload, const std::string& hardware) {
  // Keys come from reports and files a user can edit: a key such as "../.."
  // must never name a file outside the store.
  if (auto why = store_key_problem(workload)) throw Error("workload id " + *why + ": not a baseline key");
  if (auto why = store_key_problem(hardware)) throw Error("hardware key " + *why + ": not a baseline key");
  const auto path = baselines_dir / workload / (hardware + ".json");
  const auto relative = path.lexically_normal().lexically_relative(baselines_dir.lexically_normal());
  if (relative.empty() || *relative.begin() == "..")
    throw Error(path.string() + ": outside the baselines folder " + baselines_dir.string());
  return path;
}

std::vector<std::filesystem::path> workload_baseline_files(const std::filesystem::path& baselines_dir,
                                                           const std::string& workload) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  if (!std::filesystem::is_directory(baselines_dir / workload, error)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(baselines_dir / workload))
    if (entry.path().extension() == ".json" && entry.path().filename().string().front() != '.')
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

BaselineFile load_baseline_file(const std::filesystem::path& file) {
  return parse_baseline_file(read_json_file(file), file.string());
}

std::optional<BaselineFile> load_baseline_if_present(const std::filesystem::path& file) {
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (status.type() == std::filesystem::file_type::not_found) return std::nullopt;
  // Anything but "absent" is read: unreadable is an error, never "no baseline".
  if (ec) throw Error(file.string() + ": cannot be read: " + ec.message());
  return load_baseline_file(file);
}

std::optional<BaselineFile> load_stored_baseline(const std::filesystem::path& baselines_dir,
                                                 const std::string& workload, const std::string& hardware) {
  const auto file = baseline_path(baselines_dir, workload, hardware);
  auto baseline = load_baseline_if_present(file);
  if (baseline && (baseline->workload != workload || baseline->hardware != hardware))
    throw Error(file.string() + ": holds " + baseline->workload + " on " + baseline->hardware + ", but its path says " +
                workload + " on " + hardware);
  return baseline;
}

void check_baselines_dir(const std::filesystem::path& baselines_dir, bool allow_empty) {
  const std::string name = baselines_dir.string();
  std::error_code ec;
  const auto status = std::filesystem::status(baselines_dir, ec);
  if (status.type() == std::filesystem::file_type::not_found) {
    if (allow_empty) return;
    throw Error("--baselines " + name +
                ": no such folder. Every candidate would be new and the gate would judge nothing; on a first "
                "run give --allow-empty-baselines, or create the folder");
  }
  if (ec) throw Error("--baselines " + name + ": cannot be read: " + ec.message());
  if (status.type() != std::filesystem::file_type::directory) throw Error("--baselines " + name + ": is not a folder");
  // Readable means listable: an unreadable store would look empty.
  std::filesystem::directory_iterator listing(baselines_dir, ec);
  if (ec) throw Error("--baselines " + name + ": cannot be read: " + ec.message());
  for (; listing != std::filesystem::directory_iterator(); listing.increment(ec)) {
    if (ec) throw Error("--baselines " + name + ": cannot be read: " + ec.message());
    if (!listing->is_directory()) continue;
    std::error_code inner;
    std::filesystem::directory_iterator workload(listing->path(), inner);
    if (inner) throw Error("--baselines " + name + ": " + listing->path().string() + " cannot be read: " + inner.message());
  }
}

long today_utc_days() {
  auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  return today.time_since_epoch().count();
}

}  // namespace kg
