// `kernelgate compare --base BASE.json --head HEAD.json`: same-job A/B. The
// --results files of two runs on the same machine (the pull request's merge
// base and its head, built and run one after the other) are compared
// candidate by candidate with the gate's statistics (ab_comparison.hpp).
// --base and --head may each be given once per round (ci/gate-ab.sh runs
// base and head in turn): the rounds of a side are judged together, as
// `kernelgate run` judges its own re-timings.
// Exit 1 when head regressed, failed or stayed inconclusive.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "command.hpp"
#include "gate_options.hpp"
#include "kernelgate/detail/ab_comparison.hpp"
#include "kernelgate/detail/conclude.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/gate.hpp"
#include "kernelgate/detail/report.hpp"
#include "kernelgate/detail/runner.hpp"

namespace kg::cli {
namespace {

struct CompareCommandOptions {
  std::vector<std::string> base_files;
  std::vector<std::string> head_files;
  bool json = false;
  OptionErrors option_errors;
  GatePolicyOverrides gate;
};

nlohmann::ordered_json to_json(const std::vector<RunAB>& comparisons) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const RunAB& run : comparisons) {
    nlohmann::ordered_json candidates = nlohmann::ordered_json::array();
    for (const CandidateAB& c : run.candidates) {
      candidates.push_back({{"implementation", c.implementation},
                            {"outcome", std::string(to_string(c.outcome))},
                            {"message", c.message},
                            {"comparison", comparison_json(c.comparison, c.relative_to_eager)}});
    }
    runs.push_back({{"workload", run.workload}, {"hardware", run.hardware}, {"candidates", candidates}});
  }
  return runs;
}

// The runs of every file of one side, a workload's later rounds merged into
// its first: each candidate's samples of every round together.
std::vector<RunResult> load_rounds(const std::vector<std::string>& files) {
  std::vector<RunResult> rounds = load_run_results(files.front());
  for (std::size_t f = 1; f < files.size(); ++f)
    for (RunResult& again : load_run_results(files[f])) {
      auto run = std::find_if(rounds.begin(), rounds.end(), [&](const RunResult& r) {
        return r.workload == again.workload && r.hardware == again.hardware;
      });
      if (run == rounds.end()) {
        rounds.push_back(std::move(again));
        continue;
      }
      if (run->identity != again.identity || run->axes != again.axes)
        throw Error(files[f] + ": its run of " + again.workload + " has another workload identity or axes than " +
                    files.front() + "'s: rounds of one side must time the same thing");
      add_timing_round(*run, std::move(again));
    }
  return rounds;
}

int compare_command(const CompareCommandOptions& options, const CommonOptions& common) {
  if (!options.option_errors.empty()) throw Error(options.option_errors.front());
  const std::vector<RunResult> base = load_rounds(options.base_files);
  const std::vector<RunResult> head = load_rounds(options.head_files);
  if (head.empty()) throw Error(options.head_files.front() + ": holds no runs");
  const std::filesystem::path suites_dir = suites_dir_of(common);
  std::vector<RunAB> comparisons;
  for (const RunResult& run : head) {
    const RunResult* before = nullptr;
    for (const RunResult& candidate : base)
      if (candidate.workload == run.workload && candidate.hardware == run.hardware) before = &candidate;
    if (!before)
      throw Error(options.base_files.front() + ": has no run of " + run.workload + " on " + run.hardware +
                  ", which " + options.head_files.front() + " has");
    const Suite suite = find_suite(suites_dir, run.workload);
    comparisons.push_back(compare_runs(suite, *before, run, apply_overrides(suite.gate, options.gate)));
  }
  if (options.json)
    std::printf("%s\n", to_json(comparisons).dump(2).c_str());
  else
    std::printf("%s", ab_markdown(comparisons).c_str());
  return ab_exit_code(comparisons);
}

}  // namespace

Work add_compare_command(CLI::App& compare, CommonOptions& common) {
  auto options = std::make_shared<CompareCommandOptions>();
  compare.add_option("--base", options->base_files, "the --results file of the base build (once per round)")
      ->required()
      ->take_all();
  compare.add_option("--head", options->head_files, "the --results file of the head build (once per round)")
      ->required()
      ->take_all();
  compare.add_flag("--json", options->json, "the comparison as JSON instead of a Markdown table");
  add_suites_option(compare, common);
  add_gate_override(compare, "--latency-tolerance", options->gate.latency_tolerance, "relative slowdown allowed")
      ->check(number_in(0, kMaxLatencyTolerance, "a fraction", &options->option_errors, "--latency-tolerance"));
  compare.add_flag("--gate-interpret-latency", options->gate.gate_wall_clock,
                   "also judge interpret-mode (wall clock) samples, which are informational by default");
  return [options, &common] { return compare_command(*options, common); };
}

}  // namespace kg::cli
