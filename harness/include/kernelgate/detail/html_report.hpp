#pragma once
// `kernelgate report --html DIR`: a static leaderboard page per workload plus an
// index, made from the JSON reports and the baseline files. No external assets:
// the pages work offline, from a local file. docs/html-report.md shows one.
#include <filesystem>
#include <vector>

namespace kg {

struct HtmlReportOptions {
  std::filesystem::path reports_dir;    // JSON reports of `kernelgate run` (may be empty)
  std::filesystem::path baselines_dir;  // baselines/<workload>/<hardware>.json
  std::filesystem::path suites_dir;     // one page per suite found here
  std::filesystem::path out_dir;        // created if missing
};

// Writes index.html, <workload>.html for every suite, and copies of the JSON
// they were made from (linked from the pages) into out_dir. Returns the pages
// written. Throws kg::Error naming the file or folder at fault.
std::vector<std::filesystem::path> write_html_report(const HtmlReportOptions& options);

}  // namespace kg
