#pragma once
// `kernelgate publish`: the measured records of reports merged into the
// baseline files (docs/baselines.md, "Publishing"). The files themselves,
// their records and the gate that reads them are baseline.hpp's.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

struct MergeOptions {
  std::string origin;  // the report the records come from, for the history
  std::string by;      // who publishes
  std::string at;      // when (ISO 8601 UTC)
  bool force = false;  // replace a stored record even with an older one
};

// Merges records into a file (a simulated record is refused with kg::Error:
// none is ever stored; a measured record replaces the measured record of
// the same implementation, which goes into the history; an identical one is
// left alone; an older one is refused unless options.force, with a line in
// `refused`; on the cpu key a modelled record also replaces a measured one,
// and a measured one is refused beside a modelled one unless options.force)
// and recomputes the ranking. Appends one human-readable line per
// change to `diff`. Returns whether the file changed.
bool merge_records(BaselineFile& file, const std::vector<BaselineRecord>& records, const MergeOptions& options,
                   std::vector<std::string>& diff, std::vector<std::string>& refused);

struct PublishOptions {
  std::filesystem::path reports_dir;    // holds <workload>.<hardware>.json reports
  std::filesystem::path baselines_dir;  // holds <workload>/<hardware>.json; must exist
  // The loaded suites: a report of another workload is refused, and so is a
  // record under its floor there (floor_rule.hpp).
  std::vector<Suite> suites;
  bool dry_run = false;                 // only say what would change
  bool force = false;                   // see MergeOptions
  std::string by;                       // who publishes; "" = $KERNELGATE_PUBLISHER, $GITHUB_ACTOR, $USER
  // Called after every temporary file is written and before the first one
  // replaces its baseline file (tests stop the publish there).
  std::function<void()> before_replace;
};

struct PublishedFile {
  std::filesystem::path file;
  bool created = false;
  bool changed = false;
  std::vector<std::string> diff;
};

struct PublishResult {
  std::vector<PublishedFile> files;  // what changes (or would have changed), per baseline file
  std::vector<std::string> refused;  // older records that did not replace newer ones
  std::vector<std::string> errors;   // when not empty, nothing was written
  bool written = false;              // the changed files were replaced
};

// All or nothing, under one lock on the baselines folder (flock, so
// concurrent publishes serialise and lose nothing): reads and checks every
// report (keys, workload among options.suites, each record's hardware
// against its environment) and every baseline file it touches (a corrupt
// one is an error naming it, and is left as it is), merges, and unless
// dry_run or any error writes every changed file through a temporary file
// and then renames them all. Throws kg::Error when a folder is missing or the
// reports folder holds no report; every other problem is in `errors`.
PublishResult publish_reports(const PublishOptions& options);

}  // namespace kg
