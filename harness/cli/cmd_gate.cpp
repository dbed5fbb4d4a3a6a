// `kernelgate gate --results FILE`: the gate of `kernelgate run`, without
// running anything. It judges the runner records a run wrote with --results
// (samples included) against the stored baselines and writes the same
// reports, through the same code (conclude_run), so it gives the verdicts
// the run gave, or those a changed store or policy would give.
#include <algorithm>
#include <memory>

#include "command.hpp"
#include "gate_options.hpp"
#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/conclude.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/gate.hpp"

namespace kg::cli {
namespace {

struct GateCommandOptions {
  std::string results_file;
  std::filesystem::path baselines_dir;
  std::string report_dir = "kernelgate-reports";
  bool allow_empty_baselines = false;
  OptionErrors option_errors;
  bool quiet = false;
  bool json = false;
  GatePolicyOverrides gate;
};

int gate_command(const GateCommandOptions& options, const CommonOptions& common) {
  if (!options.option_errors.empty()) throw Error(options.option_errors.front());
  const std::vector<RunResult> runs = load_run_results(options.results_file);
  if (runs.empty()) throw Error(options.results_file + ": holds no runs");
  check_baselines_dir(options.baselines_dir, options.allow_empty_baselines);
  ensure_report_dir_writable(options.report_dir);

  // Every run is matched with its suite and stored file before any report is
  // written: one that cannot be gated stops them all.
  const std::filesystem::path suites_dir = suites_dir_of(common);
  std::vector<Suite> suites;
  std::vector<ConcludeOptions> concludes;
  for (const RunResult& run : runs) {
    Suite suite = find_suite(suites_dir, run.workload);
    if (!run.identity.empty() && run.identity != suite.identity)
      throw Error(options.results_file + ": the run of " + run.workload + " measured workload identity " +
                  run.identity.substr(0, 12) + ", the suite in " + suites_dir.string() + " is " +
                  suite.identity.substr(0, 12) + ": gate it with the suites it was run with");
    ConcludeOptions conclude;
    conclude.baselines_dir = options.baselines_dir;
    conclude.baseline = load_stored_baseline(options.baselines_dir, run.workload, run.hardware);
    conclude.report_dir = options.report_dir;
    conclude.policy = apply_overrides(suite.gate, options.gate);
    conclude.quiet = options.quiet;
    conclude.json_stdout = options.json;
    suites.push_back(std::move(suite));
    concludes.push_back(std::move(conclude));
  }
  int exit_code = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    RunResult run = runs[i];
    exit_code = std::max(exit_code, conclude_run(suites[i], run, concludes[i]));
  }
  return exit_code;
}

}  // namespace

Work add_gate_command(CLI::App& gate, CommonOptions& common) {
  auto options = std::make_shared<GateCommandOptions>();
  gate.add_option("--results", options->results_file, "the --results file of kernelgate run")->required();
  add_baselines_option(gate, options->baselines_dir, "folder of <workload>/<hardware>.json; it must exist");
  gate.add_flag("--allow-empty-baselines", options->allow_empty_baselines,
                "a missing --baselines folder means no records (every candidate new)");
  gate.add_option("--report-dir", options->report_dir, "where the reports go")->capture_default_str();
  add_suites_option(gate, common);
  gate.add_flag("--quiet,-q", options->quiet, "no table");
  gate.add_flag("--json", options->json, "the JSON report on stdout instead of the table");
  add_gate_options(gate, options->gate, &options->option_errors);
  return [options, &common] { return gate_command(*options, common); };
}

}  // namespace kg::cli
