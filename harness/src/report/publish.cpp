// `kernelgate publish`: measured records from reports into the baseline files.
// Nothing is dropped silently (a replaced record goes into the file's
// history), writes are atomic, and a lock on the baseline folder serialises
// concurrent publishes. Policy: docs/baselines.md.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "kernelgate/baseline.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/report.hpp"

namespace kg {

namespace {

std::string ms(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g ms", value);
  return buffer;
}

std::string describe(const BaselineRecord& record) {
  return record.implementation + " (" + record.precision + ") " + ms(record.latency.mean_ms) + ", observed " +
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

ReportRecords read_report_records(const std::filesystem::path& file) {
  const auto report = load_report(file);
  ReportRecords result;
  result.file = file;
  try {
    result.workload = report.at("workload").at("id").get<std::string>();
    result.hardware = report.at("hardware").get<std::string>();
    result.origin = file.filename().string() + " (run " + report.value("started_at", "") + ")";
    const auto& candidates = report.at("candidates");
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (!candidates[i].contains("record") || candidates[i]["record"].is_null()) continue;
      result.records.push_back(parse_baseline_record(candidates[i]["record"], file.string() + ": /candidates/" +
                                                                                 std::to_string(i) + "/record"));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(file.string() + ": does not follow the report schema (" + e.what() + ")");
  }
  for (const auto& record : result.records)
    if (record.trust != Trust::measured)
      throw Error(file.string() + ": record of " + record.implementation + " is not a measured record");
  return result;
}

}  // namespace

bool merge_records(BaselineFile& file, const std::vector<BaselineRecord>& records, const std::string& origin,
                   const std::string& by, const std::string& at, std::vector<std::string>& diff) {
  bool changed = false;
  for (const auto& record : records) {
    auto existing = std::find_if(file.records.begin(), file.records.end(), [&](const BaselineRecord& r) {
      return r.implementation == record.implementation && r.trust == record.trust;
    });
    HistoryEntry entry{at, by, "added", record.implementation, origin, std::nullopt};
    if (existing == file.records.end()) {
      file.records.push_back(record);
      diff.push_back("+ " + describe(record));
    } else {
      if (nlohmann::ordered_json(*existing) == nlohmann::ordered_json(record)) continue;  // already published
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

std::vector<PublishedFile> publish_reports(const PublishOptions& options) {
  const auto files = report_files(options.reports_dir);
  if (files.empty())
    throw Error(options.reports_dir.string() + ": no kernelgate reports (<workload>.<hardware>.json) in it");
  // Read every report first: a broken one stops the publish before any write.
  std::vector<ReportRecords> reports;
  for (const auto& file : files) reports.push_back(read_report_records(file));

  const std::string by = options.by.empty() ? default_publisher() : options.by;
  const std::string at = utc_timestamp_now();
  std::vector<PublishedFile> published;
  for (const auto& report : reports) {
    PublishedFile result;
    result.file = baseline_path(options.baselines_dir, report.workload, report.hardware);
    if (report.records.empty()) {
      result.diff.push_back("  nothing to publish from " + report.file.filename().string() +
                            " (no candidate passed with a latency)");
      published.push_back(std::move(result));
      continue;
    }
    const auto folder = result.file.parent_path();
    std::error_code ec;
    if (!options.dry_run) {
      std::filesystem::create_directories(folder, ec);
      if (ec) throw Error(folder.string() + ": cannot be created: " + ec.message());
    }
    std::optional<FolderLock> lock;
    if (std::filesystem::is_directory(folder, ec)) lock.emplace(folder);

    std::optional<BaselineFile> existing = load_baseline_if_present(result.file);
    BaselineFile file;
    if (existing) {
      file = std::move(*existing);
      if (file.workload != report.workload || file.hardware != report.hardware)
        throw Error(result.file.string() + ": holds " + file.workload + " on " + file.hardware + ", not " +
                    report.workload + " on " + report.hardware);
    } else {
      result.created = true;
      file.workload = report.workload;
      file.hardware = report.hardware;
      result.diff.push_back("+ new file");
    }
    result.changed = merge_records(file, report.records, report.origin, by, at, result.diff);
    if (!result.changed) result.diff.push_back("  unchanged: the records of " + report.origin + " are published");
    if (result.changed && !options.dry_run) {
      nlohmann::ordered_json json = file;
      write_file_atomically(result.file, json.dump(2) + "\n");
    }
    published.push_back(std::move(result));
  }
  return published;
}

}  // namespace kg
