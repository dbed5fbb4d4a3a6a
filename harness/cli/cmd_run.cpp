// `kernelgate run`: every candidate of a workload (or of all of them) in its
// own child process, checked and timed on a device, then gated and reported
// (kg::conclude_run). Also answers the hidden child subcommand the runner
// starts each candidate with (runner.hpp).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include "command.hpp"
#include "gate_options.hpp"
#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/conclude.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/gate.hpp"
#include "kernelgate/detail/gate_rounds.hpp"
#include "kernelgate/detail/gpu_identity.hpp"
#include "kernelgate/detail/report.hpp"
#include "kernelgate/detail/runner.hpp"

namespace kg::cli {
namespace {

// A run without --seed draws its own, so that its inputs are known to no one
// before it starts; the results record it, and --seed replays the run.
std::uint64_t drawn_seed() {
  std::random_device source;
  return (std::uint64_t{source()} << 32) ^ source();
}

struct RunCommandOptions {
  std::string workload;
  bool all = false;
  std::string device = "auto";
  std::string preset;
  std::string axes;
  std::uint64_t seed = drawn_seed();  // --seed replaces it
  std::filesystem::path baselines_dir;
  std::string report_dir = "kernelgate-reports";
  std::string protocol;
  double timeout_s = 0;
  double budget_s = -1;
  int min_samples = -1;
  std::string orders = "forward,reverse";
  std::string candidates;
  std::string results_file;
  std::int64_t compare_whole_max = std::int64_t{1} << 21;
  std::int64_t sample_points = 4096;
  bool allow_empty_baselines = false;
  bool allow_slow = false;
  bool counters = false;
  bool lint_fails = false;
  std::string shard;  // --shard I/N, with --all
  OptionErrors option_errors;  // bad option values, reported with a JUnit file
  bool quiet = false;
  bool json = false;
  GatePolicyOverrides gate;
};

bool gpu_required() {
  const char* value = std::getenv("KERNELGATE_REQUIRE_GPU");
  return value && std::string(value) == "1";
}

// One line per candidate as it finishes: id, outcome, latency, error.
void print_progress(std::FILE* out, const std::string& workload, const CandidateResult& result) {
  std::ostringstream line;
  line << workload << "  " << result.id << "  " << to_string(result.outcome);
  if (result.latency && result.latency->n > 0)
    line << "  " << result.latency->mean_ms << " ms (n=" << result.latency->n << ", cv "
         << result.latency->cv << ")";
  if (result.error)
    line << "  max abs err " << result.error->max_abs << ", rel L2 " << result.error->rel_l2;
  if (is_failure(result.outcome) || result.outcome == Outcome::not_supported)
    line << "  -- " << result.message;
  std::fprintf(out, "%s\n", line.str().c_str());
  std::fflush(out);
}

// What a workload's run needs that is checked before any candidate runs.
struct Prepared {
  GatePolicy policy;                  // the suite's, with the command line's overrides
  std::optional<BaselineFile> baseline;  // its stored file on this hardware key, if any
};

void write_results(const std::string& file, const nlohmann::ordered_json& results) {
  std::ofstream out(file);
  out << results.dump(2) << "\n";
  if (!out) throw Error("cannot write --results file " + file);
}

// The suites of --workload or --all, this runner's shard of them; empty
// when the shard has none (said on stderr).
std::vector<Suite> selected_suites(const RunCommandOptions& options, const CommonOptions& common) {
  if (options.all == !options.workload.empty())
    throw Error("give exactly one of --workload W or --all");
  const std::filesystem::path suites_dir = suites_dir_of(common);
  if (!options.shard.empty() && !options.all) throw Error("--shard splits --all over runners: give --all with it");
  std::vector<Suite> suites;
  if (options.all)
    suites = load_suites(suites_dir);
  else
    suites.push_back(find_suite(suites_dir, options.workload));
  if (options.shard.empty()) return suites;
  const std::size_t all = suites.size();
  suites = shard_of(std::move(suites), parse_shard(options.shard));
  if (suites.empty())
    std::fprintf(stderr, "kernelgate: shard %s has no workload (the folder has %zu): nothing to run\n",
                 options.shard.c_str(), all);
  return suites;
}

// The device described, not held (each candidate's child opens it); nothing
// when this run is to be skipped: no GPU, or a GPU test of another class than
// the label's (an h100 test on an H200), unless KERNELGATE_REQUIRE_GPU=1.
std::optional<DeviceDescription> device_to_run_on(const RunCommandOptions& options) {
  DeviceDescription device;
  try {
    device = describe_device(options.device);
  } catch (const NoDeviceError& e) {
    // No device names no JUnit file, but a bad option is still the answer.
    if (!options.option_errors.empty()) throw Error(options.option_errors.front());
    if (gpu_required()) throw Error(std::string(e.what()) + " (KERNELGATE_REQUIRE_GPU=1)");
    std::fprintf(stderr, "kernelgate: skipped: %s\n", e.what());
    return std::nullopt;
  }
  if (const char* expected = std::getenv("KERNELGATE_EXPECT_HARDWARE_LABEL"); expected && *expected) {
    const std::string label = hardware_label(device.hardware_key);
    if (label != expected) {
      const std::string why = "this test is for " + std::string(expected) + " GPUs, the device is " +
                              device.name + " (" + device.hardware_key + ")";
      if (gpu_required()) throw Error(why + " (KERNELGATE_REQUIRE_GPU=1)");
      std::fprintf(stderr, "kernelgate: skipped: %s\n", why.c_str());
      return std::nullopt;
    }
  }
  return device;
}

RunOptions run_options_of(const RunCommandOptions& options) {
  RunOptions run_options;
  run_options.preset = options.preset;
  run_options.seed = options.seed;
  run_options.candidate_ids = split_list(options.candidates);
  run_options.timing.protocol = options.protocol;
  run_options.timing.budget_s = options.budget_s;
  run_options.timing.min_samples = options.min_samples;
  run_options.timeout_s = options.timeout_s;
  run_options.thread_orders = split_list(options.orders);
  run_options.full_reference_max_elements = options.compare_whole_max;
  run_options.sample_points = options.sample_points;
  run_options.allow_slow = options.allow_slow;
  run_options.count_accesses = options.counters;
  run_options.lint_fails = options.lint_fails;
  return run_options;
}

// Everything that can be wrong with the inputs is found before the first
// candidate runs: the baselines (folder and every file this run gates
// against), the gate policy, the axes against the device. A problem stops
// the run with exit 2 and a JUnit file per workload that says why, so CI
// shows the reason and not a missing report.
std::vector<Prepared> prepare_runs(const std::vector<Suite>& suites, const RunCommandOptions& options,
                                   const DeviceDescription& device, RunOptions& run_options) {
  std::vector<Prepared> prepared;
  try {
    if (!options.option_errors.empty()) throw Error(options.option_errors.front());
    run_options.axis_overrides = options.axes.empty() ? Axes{} : parse_axes_list(options.axes);
    check_baselines_dir(options.baselines_dir, options.allow_empty_baselines);
    for (const Suite& suite : suites) {
      Prepared p;
      p.policy = apply_overrides(suite.gate, options.gate);
      p.baseline = load_stored_baseline(options.baselines_dir, suite.id, device.hardware_key);
      note_renamed_axes(suite, run_options.axis_overrides);
      const Axes axes = suite.resolve_axes(run_options.preset, run_options.axis_overrides);
      check_run_fits(suite, axes, device, run_options.timeout_s, run_options.allow_slow);
      prepared.push_back(std::move(p));
    }
  } catch (const Error& e) {
    for (const Suite& suite : suites)
      write_setup_error(options.report_dir, suite.id, device.hardware_key, e.what());
    throw;
  }
  return prepared;
}

int run_command(const RunCommandOptions& options, const CommonOptions& common) {
  const std::vector<Suite> suites = selected_suites(options, common);
  if (suites.empty()) return 0;
  // A bad --report-dir costs nothing: it fails before any candidate runs.
  ensure_report_dir_writable(options.report_dir);
  const std::optional<DeviceDescription> device = device_to_run_on(options);
  if (!device) return kSkipExitCode;
  RunOptions run_options = run_options_of(options);
  std::vector<Prepared> prepared = prepare_runs(suites, options, *device, run_options);

  // Progress goes to stderr when stdout carries the JSON report.
  std::FILE* progress = options.json ? stderr : stdout;
  int exit_code = 0;
  nlohmann::ordered_json raw_results = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < suites.size(); ++i) {
    const Suite& suite = suites[i];
    run_options.on_result = [&](const CandidateResult& result) {
      if (!options.quiet) print_progress(progress, suite.id, result);
    };
    RunResult run = run_workload(suite, *device, run_options);
    retime_inconclusive(suite, *device, run_options, prepared[i].policy,
                        prepared[i].baseline ? &*prepared[i].baseline : nullptr, run);
    if (!options.results_file.empty()) {
      raw_results.push_back(run);
      write_results(options.results_file, raw_results);  // after each workload: a crash keeps the rest
    }
    ConcludeOptions conclude;
    conclude.baselines_dir = options.baselines_dir;
    conclude.baseline = std::move(prepared[i].baseline);
    conclude.report_dir = options.report_dir;
    conclude.policy = prepared[i].policy;
    conclude.quiet = options.quiet;
    conclude.json_stdout = options.json;
    exit_code = std::max(exit_code, conclude_run(suite, run, conclude));
  }
  return exit_code;
}

}  // namespace

Work add_run_command(CLI::App& run, CommonOptions& common) {
  auto options = std::make_shared<RunCommandOptions>();
  run.add_option("--workload,-w", options->workload, "workload id (see `kernelgate list`)");
  run.add_flag("--all", options->all, "every workload of the suites folder");
  run.add_option("--shard", options->shard,
                 "with --all: this runner's share I/N of the workloads (by id, the I-th and every N-th after "
                 "it); the N shards' report folders joined are one run's (docs/ctest.md)");
  run.add_option("--device,-d", options->device, "auto | cpu | cuda | cuda:N")
      ->capture_default_str();
  run.add_option("--preset", options->preset, "axes preset, e.g. ci (default: the full shapes)");
  run.add_option("--axes", options->axes, "axis overrides k=v,k=v");
  add_seed_option(run, options->seed,
                  "the run's seed, from which every input set is derived (default: drawn at random, "
                  "recorded in the results)",
                  &options->option_errors);
  add_baselines_option(run, options->baselines_dir, "folder of <workload>/<hardware>.json; it must exist");
  run.add_flag("--allow-empty-baselines", options->allow_empty_baselines,
               "a first run: a missing --baselines folder means no records (every candidate new)");
  run.add_option("--report-dir", options->report_dir, "where the reports go")
      ->capture_default_str();
  run.add_option("--protocol", options->protocol,
                 "timing: kernelbench | adaptive | none (default: adaptive)")
      ->check(CLI::IsMember({"kernelbench", "adaptive", "none"}));
  run.add_option("--timeout", options->timeout_s,
                 "watchdog seconds per candidate (default: the device's, cpu 300, GPU per device)")
      ->check(number_in(1, 86400, "a number of seconds", &options->option_errors, "--timeout"));
  run.add_option("--budget", options->budget_s,
                 "adaptive protocol: seconds of sampling per candidate (default: cpu 1, GPU 5)")
      ->check(number_in(0, 3600, "a number of seconds", &options->option_errors, "--budget"));
  run.add_option("--min-samples", options->min_samples,
                 "adaptive protocol: take at least this many samples per candidate, even past the "
                 "budget (default: cpu 2, GPU 100)")
      ->check(number_in(1, 100000, "a number of samples", &options->option_errors, "--min-samples"));
  run.add_flag("--allow-slow", options->allow_slow,
               "run on cpu even where interpret mode cannot finish a candidate inside the watchdog");
  run.add_flag("--counters", options->counters,
               "interpret mode: count each candidate's memory requests, bank conflicts and tensor-core "
               "work into the report (model.counters)");
  run.add_flag("--lint-fails", options->lint_fails,
               "a finding of `kernelgate lint` in a candidate's source file fails it (contract_violation); "
               "without it findings are listed in the report");
  run.add_option("--orders", options->orders,
                 "interpret mode: thread orders, each in its own run (forward,reverse,random:S)")
      ->capture_default_str();
  run.add_option("--candidates", options->candidates, "only these candidate ids, comma-separated");
  run.add_option("--results", options->results_file,
                 "also write the runner's results before the gate (a JSON array of runs)");
  run.add_option("--compare-whole-max", options->compare_whole_max,
                 "outputs of at most this many elements are compared whole; larger ones at "
                 "--sample-points points plus a scan of every element")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40))
      ->capture_default_str();
  run.add_option("--sample-points", options->sample_points,
                 "points of the float64 reference compared where the output is not compared whole")
      ->check(CLI::Range(std::int64_t{2}, std::int64_t{1} << 24))
      ->capture_default_str();
  add_suites_option(run, common);
  run.add_flag("--quiet,-q", options->quiet, "no progress lines and no table");
  run.add_flag("--json", options->json, "the JSON report on stdout (progress on stderr)");
  add_gate_options(run, options->gate, &options->option_errors);
  return [options, &common] { return run_command(*options, common); };
}

// The runner starts each candidate as `<this binary> __kg-candidate-child
// <scratch folder>`; hidden from --help (an empty group).
Work add_child_command(CLI::App& child, CommonOptions&) {
  auto folder = std::make_shared<std::string>();
  child.group("");
  child.add_option("folder", *folder)->required();
  return [folder] { return run_child(*folder); };
}

}  // namespace kg::cli
