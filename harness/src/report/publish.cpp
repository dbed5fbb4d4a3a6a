// `kernelgate publish`: measured records from reports into the baseline files.
// Nothing is dropped silently (a replaced record goes into the file's
// history), nothing is partial (every file of a publish changes or none
// does), nothing is trusted blindly (keys, hardware and dates are checked),
// and a lock on the baselines folder serialises concurrent publishes.
// Policy: docs/baselines.md.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/publish.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/floor_rule.hpp"
#include "kernelgate/detail/gpu_identity.hpp"
#include "kernelgate/detail/hardware.hpp"
#include "kernelgate/detail/json_reader.hpp"
#include "kernelgate/detail/report.hpp"

namespace kg {

namespace {

std::string ms(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g ms", value);
  return buffer;
}

std::string describe(const BaselineRecord& record) {
  return record.implementation + " (" + record.precision + ") " + ms(record.latency.mean_ms) +
         (record.trust == Trust::modelled ? " wall clock, modelled from its counters" : "") + ", observed " +
         record.observed.substr(0, 10);
}

std::string ranking_line(const std::vector<RankEntry>& ranking) {
  std::string line;
  for (const auto& entry : ranking)
    line += (line.empty() ? "" : ", ") + std::to_string(entry.rank) + ". " + entry.implementation +
            (entry.trust == Trust::reported ? " (reported)" : "");
  return line.empty() ? "(empty)" : line;
}

std::string default_publisher() {
  for (const char* variable : {"KERNELGATE_PUBLISHER", "GITHUB_ACTOR", "USER", "LOGNAME"})
    if (const char* value = std::getenv(variable); value && *value) return value;
  return "unknown";
}

// An exclusive flock on a folder, released when this goes out of scope. flock
// locks belong to the open file description, so two publishes (processes or
// threads) each opening the folder exclude each other.
class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& folder) {
    fd_ = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) throw Error(folder.string() + ": cannot be opened to lock it: " + std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const std::string reason = std::strerror(errno);
      ::close(fd_);
      throw Error(folder.string() + ": cannot be locked: " + reason);
    }
  }
  ~FolderLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

struct ReportRecords {
  std::filesystem::path file;
  std::string workload;
  std::string hardware;
  std::string origin;
  std::vector<BaselineRecord> records;
};

// A text field of a record's environment; "" when absent or not a string.
std::string environment_text(const BaselineRecord& record, const char* key) {
  const auto& environment = record.environment;
  return environment.contains(key) && environment.at(key).is_string() ? environment.at(key).get<std::string>()
                                                                        : std::string();
}

// Why a record cannot go into the file of this hardware key: the key must be
// the one the measurement's own environment and clock name. An interpret-mode
// report edited to say h100-sxm would otherwise put CPU wall-clock figures
// into the H100 file.
std::optional<std::string> hardware_disagreement(const BaselineRecord& record, const std::string& hardware) {
  auto text = [&](const char* key) { return environment_text(record, key); };
  const std::string mode = text("mode");
  const std::string device = text("device");
  if (hardware == "cpu") {
    if (mode != "interpret" || record.latency.clock != "wall")
      return "the cpu key holds interpret-mode wall-clock records only; this one has mode '" + mode + "', clock '" +
             record.latency.clock + "'";
    return std::nullopt;
  }
  if (mode == "interpret" || device == "cpu" || record.latency.clock == "wall")
    return "an interpret-mode (cpu, wall-clock) record cannot go into the GPU key " + hardware;
  if (record.latency.clock != "cuda_event")
    return "a GPU record must be timed with cuda_event, this one with '" + record.latency.clock + "'";
  const std::string gpu = text("gpu");
  if (gpu.empty()) return "the record's environment names no GPU, so its key " + hardware + " cannot be checked";
  std::string derived;
  try {
    derived = hardware_key_from_gpu_name(gpu);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  if (derived != hardware) return "the record was measured on " + gpu + " (key " + derived + "), not " + hardware;
  if (const std::string recorded = text("hardware"); !recorded.empty() && recorded != hardware)
    return "the record's environment says hardware " + recorded + ", not " + hardware;
  return std::nullopt;
}

// Why a record is the simulated GPU's (its trust, or the hardware key or
// device its environment names: "sim:h100-sxm" is the simulated GPU's device
// spec), or std::nullopt. A report whose key was edited away from sim-... is
// still caught by its records.
std::optional<std::string> simulated_origin(const BaselineRecord& record) {
  if (record.trust == Trust::simulated) return "trust simulated";
  const std::string hardware = environment_text(record, "hardware");
  if (is_simulated_hardware(hardware)) return "environment hardware " + hardware;
  const std::string device = environment_text(record, "device");
  if (is_simulated_device(device)) return "environment device " + device;
  return std::nullopt;
}

// Why a measured record's time is one no hardware reaches, or std::nullopt
// (floor_rule.hpp): the gate of its run failed it, and an edited report
// must not bring it into the store either.
std::optional<std::string> under_its_floor(const Suite& suite, const BaselineRecord& record,
                                           const std::string& hardware) {
  if (record.trust != Trust::measured) return std::nullopt;
  if (record.axes.empty()) return "a measured record without its axes: its floor cannot be checked";
  try {
    const std::string finding = below_floor(suite, record.axes, hardware, record.precision, record.latency);
    if (finding.empty()) return std::nullopt;
    return finding + "; not published";
  } catch (const Error& e) {
    return std::string(e.what());
  }
}

constexpr const char* kNeverPublished = "a simulated run is never a measurement, so it is not published";

ReportRecords read_report_records(const std::filesystem::path& file, const std::vector<Suite>& suites) {
  const auto report = load_report(file);
  const JsonReader r(report, file.string());
  ReportRecords result;
  result.file = file;
  result.workload = r.at("workload").at("id").as_string();
  const auto suite = std::find_if(suites.begin(), suites.end(),
                                  [&](const Suite& loaded) { return loaded.id == result.workload; });
  if (suite == suites.end())
    r.at("workload").at("id").fail("'" + result.workload + "' is not a workload of the loaded suites (--suites)");
  result.hardware = r.at("hardware").as_string();
  if (auto why = store_key_problem(result.hardware)) r.at("hardware").fail(*why);
  if (is_simulated_hardware(result.hardware))
    throw Error("publish: " + file.string() + " is a run on the simulated GPU (" + result.hardware + "): " +
                kNeverPublished);
  result.origin = file.filename().string() + " (run " + r.string_or("started_at", "") + ")";
  const auto candidates = r.at("candidates");
  candidates.expect_array();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto candidate = candidates.at(i);
    if (!candidate.has("record")) continue;
    const auto at = candidate.at("record");
    BaselineRecord record = parse_baseline_record(at.json(), file.string(), at.path());
    if (auto simulated = simulated_origin(record))
      at.fail("a record of the simulated GPU (" + *simulated + "): " + kNeverPublished);
    if (record.trust == Trust::reported) at.at("trust").fail("only measured and modelled records are published");
    if (record.trust == Trust::modelled && result.hardware != kCpuHardwareKey)
      at.at("trust").fail("a modelled record is published only from a cpu report, not " + result.hardware + "'s");
    if (auto why = hardware_disagreement(record, result.hardware)) at.fail(*why);
    if (auto why = under_its_floor(*suite, record, result.hardware)) at.fail(*why);
    result.records.push_back(std::move(record));
  }
  return result;
}

// Seconds since the epoch of an ISO 8601 date or date-time; a date alone is
// its midnight. Only ever compared on the same day when one side lacks a time.
struct Instant {
  long days = 0;
  std::optional<long> seconds;  // within the day, when a time is given
};
Instant instant_of(const std::string& text) {
  Instant instant;
  instant.days = iso_date_days(text).value_or(0);
  int hour = 0, minute = 0, second = 0;
  if (text.size() >= 19 && std::sscanf(text.c_str() + 11, "%2d:%2d:%2d", &hour, &minute, &second) == 3)
    instant.seconds = hour * 3600L + minute * 60L + second;
  return instant;
}
bool observed_before(const std::string& a, const std::string& b) {
  const Instant x = instant_of(a), y = instant_of(b);
  if (x.days != y.days) return x.days < y.days;
  return x.seconds && y.seconds && *x.seconds < *y.seconds;
}

// The signals CI and a user stop a publish with: the temporary files of the
// publish are removed before the process dies of the signal. Only while
// temporary files exist; unlink is async-signal-safe.
class RemoveOnSignal {
 public:
  explicit RemoveOnSignal(const std::vector<std::string>& paths) {
    paths_.store(&paths);
    for (std::size_t i = 0; i < kSignals.size(); ++i) {
      struct sigaction action {};
      action.sa_handler = &RemoveOnSignal::handle;
      sigemptyset(&action.sa_mask);
      ::sigaction(kSignals[i], &action, &previous_[i]);
    }
  }
  ~RemoveOnSignal() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
    paths_.store(nullptr);
  }
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;

 private:
  static constexpr std::array<int, 4> kSignals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  static void handle(int signal) {
    if (const auto* paths = paths_.load())
      for (const auto& path : *paths)
        if (!path.empty()) ::unlink(path.c_str());
    ::signal(signal, SIG_DFL);
    ::raise(signal);
  }
  static inline std::atomic<const std::vector<std::string>*> paths_{nullptr};
  std::array<struct sigaction, 4> previous_{};
};

// What one baseline file becomes: checked, merged, ready to write.
struct PlannedFile {
  PublishedFile result;
  BaselineFile file;
  unsigned mode = 0644;
};

// The file the store writes must be a plain, writable file inside the store:
// a symbolic link is refused (writing through it could leave the store and
// replacing it would silently break it), a read-only file too (someone froze
// it). Returns its permission bits to keep.
unsigned check_writable_target(const std::filesystem::path& file, const std::filesystem::path& baselines_dir) {
  struct stat info {};
  const auto folder = file.parent_path();
  if (::lstat(folder.c_str(), &info) == 0 && S_ISLNK(info.st_mode))
    throw Error(folder.string() + ": is a symbolic link; publish writes only inside " + baselines_dir.string() +
                ": replace the link by a folder");
  if (::lstat(file.c_str(), &info) != 0) return 0644;
  if (S_ISLNK(info.st_mode))
    throw Error(file.string() + ": is a symbolic link; publish replaces files atomically and does not write "
                "through links: replace the link by the file it points to");
  if (!S_ISREG(info.st_mode)) throw Error(file.string() + ": is not a plain file");
  if (!(info.st_mode & S_IWUSR))
    throw Error(file.string() + ": is read-only; make it writable (chmod u+w) to publish into it");
  return unsigned(info.st_mode & 07777);
}

}  // namespace

bool merge_records(BaselineFile& file, const std::vector<BaselineRecord>& records, const MergeOptions& options,
                   std::vector<std::string>& diff, std::vector<std::string>& refused) {
  // Publish refuses simulated reports and records before this; here the
  // store itself makes sure that none is ever stored, under any key, and
  // refuses before it changes anything.
  for (const auto& record : records)
    if (record.trust == Trust::simulated)
      throw Error(file.workload + " on " + file.hardware + ": " + record.implementation +
                  " is a simulated record, and none is ever stored: a run on the simulated GPU is not a measurement");
  bool changed = false;
  for (const auto& record : records) {
    // On the cpu key a measured and a modelled record are the same interpret-
    // mode wall clock, the modelled one with its counters: one stands for the
    // implementation. A counted record replaces an uncounted one; the reverse
    // would drop the counters the cpu gate judges, so it needs --force.
    const bool one_per_implementation = file.hardware == kCpuHardwareKey && record.trust != Trust::reported;
    auto existing = std::find_if(file.records.begin(), file.records.end(), [&](const BaselineRecord& r) {
      return r.implementation == record.implementation &&
             (r.trust == record.trust || (one_per_implementation && r.trust != Trust::reported));
    });
    HistoryEntry entry{options.at, options.by, "added", record.implementation, options.origin, std::nullopt};
    if (existing != file.records.end() && existing->trust == Trust::modelled && record.trust == Trust::measured &&
        !options.force) {
      refused.push_back(file.workload + " on " + file.hardware + ": " + record.implementation +
                        " has a record with counters; one without them does not replace it (publish a run with "
                        "--counters, or --force replaces it)");
      continue;
    }
    if (existing == file.records.end()) {
      file.records.push_back(record);
      diff.push_back("+ " + describe(record));
    } else {
      if (nlohmann::ordered_json(*existing) == nlohmann::ordered_json(record)) continue;  // already published
      if (!options.force && observed_before(record.observed, existing->observed)) {
        refused.push_back(file.workload + " on " + file.hardware + ": " + record.implementation + " observed " +
                          record.observed + " is older than the stored record observed " + existing->observed +
                          " (--force replaces it)");
        continue;
      }
      entry.action = "replaced";
      entry.previous = *existing;
      const double change = record.latency.mean_ms / existing->latency.mean_ms - 1.0;
      char percent[32];
      std::snprintf(percent, sizeof percent, "%+.1f%%", change * 100);
      diff.push_back("~ " + record.implementation + ": " + describe(*existing) + " -> " + ms(record.latency.mean_ms) +
                     " (" + percent + "), observed " + record.observed.substr(0, 10) +
                     (existing->precision != record.precision ? ", precision " + existing->precision + " -> " +
                                                                    record.precision
                                                              : std::string()));
      *existing = record;
    }
    file.history.push_back(std::move(entry));
    changed = true;
  }
  auto ranking = rank_records(file.records);
  auto same_order = [](const std::vector<RankEntry>& a, const std::vector<RankEntry>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].implementation != b[i].implementation || a[i].trust != b[i].trust) return false;
    return true;
  };
  if (!same_order(ranking, file.ranking))
    diff.push_back("  ranking: " + ranking_line(file.ranking) + "  ->  " + ranking_line(ranking));
  if (changed || !same_order(ranking, file.ranking)) changed = true;
  file.ranking = std::move(ranking);
  return changed;
}

namespace {

void require_store_folder(const std::filesystem::path& baselines_dir) {
  std::error_code ec;
  if (std::filesystem::is_directory(baselines_dir, ec)) return;
  const bool exists = std::filesystem::exists(baselines_dir, ec);
  throw Error("--baselines " + baselines_dir.string() +
              (exists ? ": is a file, not a folder (the store is a folder of <workload>/<hardware>.json)"
                      : ": no such folder (create it to start a store)"));
}

// Every report read and checked first: a broken one stops the publish
// before any write (its error is in outcome.errors).
std::vector<ReportRecords> read_reports(const PublishOptions& options, PublishResult& outcome) {
  const auto files = report_files(options.reports_dir);
  if (files.empty())
    throw Error(options.reports_dir.string() + ": no kernelgate reports (<workload>.<hardware>.json) in it");
  std::vector<ReportRecords> reports;
  for (const auto& file : files) {
    try {
      reports.push_back(read_report_records(file, options.suites));
    } catch (const Error& e) {
      outcome.errors.push_back(e.what());
    }
  }
  return reports;
}

// The stored file a report's records go to, loaded (or a new one) once per
// publish.
PlannedFile& planned_file(std::vector<PlannedFile>& plan, const ReportRecords& report,
                          const std::filesystem::path& baselines_dir) {
  const auto path = baseline_path(baselines_dir, report.workload, report.hardware);
  auto planned = std::find_if(plan.begin(), plan.end(), [&](const PlannedFile& p) { return p.result.file == path; });
  if (planned != plan.end()) return *planned;
  PlannedFile fresh;
  fresh.result.file = path;
  fresh.mode = check_writable_target(path, baselines_dir);
  if (auto existing = load_stored_baseline(baselines_dir, report.workload, report.hardware)) {
    fresh.file = std::move(*existing);
  } else {
    fresh.result.created = true;
    fresh.file.workload = report.workload;
    fresh.file.hardware = report.hardware;
    fresh.result.diff.push_back("+ new file");
  }
  plan.push_back(std::move(fresh));
  return plan.back();
}

// Every report's records merged into its file, in memory, with the diff.
std::vector<PlannedFile> plan_publish(const std::vector<ReportRecords>& reports, const PublishOptions& options,
                                      PublishResult& outcome) {
  MergeOptions merge;
  merge.by = options.by.empty() ? default_publisher() : options.by;
  merge.at = utc_timestamp_now();
  merge.force = options.force;
  std::vector<PlannedFile> plan;
  for (const auto& report : reports) {
    try {
      PlannedFile& planned = planned_file(plan, report, options.baselines_dir);
      if (report.records.empty()) {
        planned.result.diff.push_back("  nothing to publish from " + report.file.filename().string() +
                                      " (no candidate passed with a latency)");
        continue;
      }
      merge.origin = report.origin;
      std::vector<std::string> diff;
      const bool changed = merge_records(planned.file, report.records, merge, diff, outcome.refused);
      planned.result.changed = planned.result.changed || changed;
      if (!changed) diff.push_back("  unchanged: the records of " + report.origin + " are published");
      planned.result.diff.insert(planned.result.diff.end(), diff.begin(), diff.end());
    } catch (const Error& e) {
      outcome.errors.push_back(e.what());
    }
  }
  for (auto& planned : plan) {
    // A file that would hold nothing is not created.
    if (planned.result.created && !planned.result.changed) {
      planned.result.created = false;
      planned.result.diff.erase(planned.result.diff.begin());
    }
    outcome.files.push_back(planned.result);
  }
  return plan;
}

// Every temporary file first, then the renames: an error or a signal before
// the first rename leaves every baseline file as it was.
void write_plan(std::vector<PlannedFile>& plan, const PublishOptions& options, PublishResult& outcome) {
  std::vector<std::string> temporaries;
  temporaries.reserve(plan.size());
  RemoveOnSignal cleanup(temporaries);
  try {
    for (auto& planned : plan) {
      if (!planned.result.changed) continue;
      std::error_code ec;
      std::filesystem::create_directories(planned.result.file.parent_path(), ec);
      if (ec) throw Error(planned.result.file.parent_path().string() + ": cannot be created: " + ec.message());
      const nlohmann::ordered_json json = planned.file;
      temporaries.push_back(write_temporary_beside(planned.result.file, json.dump(2) + "\n", planned.mode).string());
    }
    if (options.before_replace) options.before_replace();
    std::size_t next = 0;
    for (auto& planned : plan) {
      if (!planned.result.changed) continue;
      replace_with_temporary(temporaries[next], planned.result.file);
      temporaries[next++].clear();
    }
  } catch (const Error& e) {
    for (const auto& temporary : temporaries)
      if (!temporary.empty()) ::unlink(temporary.c_str());
    outcome.errors.push_back(e.what());
    return;
  }
  outcome.written = true;
}

}  // namespace

PublishResult publish_reports(const PublishOptions& options) {
  PublishResult outcome;
  require_store_folder(options.baselines_dir);
  const std::vector<ReportRecords> reports = read_reports(options, outcome);
  // One lock on the whole store for the whole publish: concurrent publishes
  // serialise, and every file of one publish changes together or not at all.
  FolderLock lock(options.baselines_dir);
  std::vector<PlannedFile> plan = plan_publish(reports, options, outcome);
  if (options.dry_run || !outcome.errors.empty()) return outcome;
  write_plan(plan, options, outcome);
  return outcome;
}

}  // namespace kg
