#pragma once
// What happens after the runner: the gate against the stored baselines, the
// reports, the table, and the exit code of `kernelgate run`.
#include <filesystem>
#include <optional>
#include <vector>

#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

// CTest's SKIP_RETURN_CODE for the workload tests: no GPU, or a GPU of another
// class than the test's label (unless KERNELGATE_REQUIRE_GPU=1).
inline constexpr int kSkipExitCode = 77;

struct ConcludeOptions {
  std::filesystem::path baselines_dir;  // holds <workload>/<hardware>.json
  // The stored file of this workload and hardware key, loaded (and so
  // validated) by the caller before the run: none means every candidate is new.
  std::optional<BaselineFile> baseline;
  std::filesystem::path report_dir;     // created if missing
  GatePolicy policy;                    // the suite's, with CLI overrides applied
  bool quiet = false;                   // no table
  bool json_stdout = false;             // the JSON report on stdout instead of the table
};

// Throws kg::Error when the folder cannot be created or written. Called before
// any candidate runs, so a bad --report-dir costs nothing.
void ensure_report_dir_writable(const std::filesystem::path& report_dir);

// Writes <workload>.<hardware>.junit.xml into report_dir for a run that
// stopped before any candidate ran, with one error testcase saying why
// (best effort: a folder that cannot be written is already the error).
void write_setup_error(const std::filesystem::path& report_dir, const std::string& workload,
                       const std::string& hardware, const std::string& message);

// The runs of a `kernelgate run --results FILE` file (a JSON array of runs,
// or one run), for `kernelgate gate`. Throws kg::Error naming the file and
// the problem: unreadable, not JSON, not runner results, or latency figures
// that disagree with their own samples.
std::vector<RunResult> load_run_results(const std::filesystem::path& file);

// Gates `run` against options.baseline (verdicts are
// added to run.candidates[i].checks), writes <workload>.<hardware>.junit.xml,
// .json and .md into report_dir, prints the table, and returns the exit code:
// 0 when every candidate passed (or is new / not_supported), 1 otherwise.
int conclude_run(const Suite& suite, RunResult& run, const ConcludeOptions& options);

}  // namespace kg
