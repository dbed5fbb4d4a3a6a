#pragma once
// The reports of one gated run, written into --report-dir:
//   <workload>.<hardware>.json        everything (docs/report.schema.json)
//   <workload>.<hardware>.junit.xml   one testsuite, a testcase per candidate and check
//   <workload>.<hardware>.md          the Markdown table ($GITHUB_STEP_SUMMARY)
// How to read them: docs/reports.md.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/detail/ab_comparison.hpp"
#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/gate.hpp"
#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

// Version 2 adds each candidate's latency samples and the sample comparison
// of its gate; version 1 reports still load (kernelgate publish).
inline constexpr int kReportSchemaVersion = 2;
inline constexpr int kOldestReportSchemaVersion = 1;
inline constexpr const char* kReportKind = "kernelgate-report";
// GitHub refuses step summaries above 1 MiB; ours stay below this.
inline constexpr std::size_t kMaxSummaryBytes = 1000 * 1024;

// Lower bounds on the latency of a workload on one hardware key, from its
// bytes and flops and the hardware's peaks. Absent for the cpu key.
struct LatencyFloors {
  std::string hardware;
  double memory_ms = 0;                        // every tensor crossing memory once
  std::map<std::string, double> compute_ms;    // by precision: fp32 (SIMT), tf32, bf16...
  // The floor of a candidate of that precision: max(memory, compute); 0 when unknown.
  double floor_ms(const std::string& precision) const;
};

// Everything a report is made from.
struct ReportInput {
  const RunResult* run = nullptr;        // gated (apply_gate done)
  const GateVerdict* verdict = nullptr;
  const BaselineFile* baseline = nullptr;  // null when there was no file
  std::string baseline_file;             // where it was looked for
  GatePolicy policy;
  long today_days = 0;                   // for the age of reported records
  std::string title;                     // the suite's title
  double flops = 0;                      // of the run's axes; 0 when unknown
  double bytes = 0;
  std::optional<LatencyFloors> floors;
  std::string finished_at;               // ISO 8601 UTC
  int exit_code = 0;
};

// A sample comparison as the JSON report and `kernelgate compare --json`
// give it (report.schema.json, gate.comparison); null without one.
nlohmann::ordered_json comparison_json(const std::optional<SampleComparison>& comparison, bool relative_to_eager);
// The JSON report (docs/report.schema.json).
nlohmann::ordered_json report_json(const ReportInput& input);
// The JUnit XML report (validates against the junit-10 XSD).
std::string junit_xml(const ReportInput& input);
// The JUnit file of a run stopped before any candidate ran (bad baselines or
// options): one testcase "setup" with an <error> saying why.
std::string junit_setup_error_xml(const std::string& workload, const std::string& hardware,
                                  const std::string& message);
// The Markdown summary of one report, made from its JSON so that `kernelgate
// summarize` can remake it from the files alone.
std::string markdown_summary(const nlohmann::ordered_json& report);
// `text` made safe for one cell of a Markdown table: line breaks become
// spaces, `|` is escaped, and beyond `limit` characters it is cut with "…".
std::string markdown_cell(std::string text, std::size_t limit = 400);

// The same-job A/B of `kernelgate compare` (ab_comparison.hpp) as Markdown:
// a table per workload of candidate, verdict, ratio and interval.
std::string ab_markdown(const std::vector<RunAB>& comparisons);

// Joins the Markdown of every JSON report in report_dir (sorted by workload,
// then hardware) into one summary, kept under kMaxSummaryBytes. Throws
// kg::Error when the folder holds no report or a report cannot be read.
std::string summarize_reports(const std::filesystem::path& report_dir);

// Reads one JSON report; throws kg::Error naming the file.
nlohmann::ordered_json load_report(const std::filesystem::path& file);
// Every <workload>.<hardware>.json report in the folder, sorted by file name.
std::vector<std::filesystem::path> report_files(const std::filesystem::path& report_dir);

// Creates the folder if missing and checks that a file can be written in it;
// throws kg::Error naming the option ("--report-dir DIR: cannot be written").
void ensure_writable_folder(const std::string& option, const std::filesystem::path& folder);

// Writes text to path through a temporary file and a rename, so a reader never
// sees half a file. Throws kg::Error naming the file.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);
// The two halves of write_file_atomically, for a writer that must prepare
// several files before it replaces any (publish): the temporary file holds
// text with the given permission bits, under a hidden name ending in
// kTemporarySuffix + 6 characters; the second call renames it over path.
inline constexpr const char* kTemporarySuffix = ".kernelgate-tmp.";
std::filesystem::path write_temporary_beside(const std::filesystem::path& path, const std::string& text,
                                             unsigned mode);
void replace_with_temporary(const std::filesystem::path& temporary, const std::filesystem::path& path);

// The name stem of the reports of one run: "<workload>.<hardware>".
std::string report_stem(const RunResult& run);


}  // namespace kg
