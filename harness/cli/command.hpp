#pragma once
// The subcommands of the kernelgate CLI: one file per command, one table of
// them in main.cpp.
#include <filesystem>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "kernelgate/axes.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg::cli {

// Options every command shares.
struct CommonOptions {
  std::string suites_dir;  // --suites: load workloads from another folder
};

// What a subcommand does once its options are parsed. It returns the
// process's exit code for the outcomes that are not errors (0, 1 when a gate
// fails, CTest's skip code) and throws kg::Error on failure.
using Work = std::function<int()>;

// One subcommand: its name, its line in `kernelgate --help`, and the function
// that adds its options to the subcommand main() made and returns its work.
struct Command {
  const char* name;
  const char* description;
  Work (*add)(CLI::App& command, CommonOptions& common);
};

// The subcommands, one file each (cmd_<name>.cpp); main.cpp lists them.
Work add_list_command(CLI::App& command, CommonOptions& common);
Work add_describe_command(CLI::App& command, CommonOptions& common);
Work add_reference_command(CLI::App& command, CommonOptions& common);
Work add_run_command(CLI::App& command, CommonOptions& common);
Work add_child_command(CLI::App& command, CommonOptions& common);  // in cmd_run.cpp
Work add_gate_command(CLI::App& command, CommonOptions& common);
Work add_compare_command(CLI::App& command, CommonOptions& common);
Work add_publish_command(CLI::App& command, CommonOptions& common);
Work add_history_command(CLI::App& command, CommonOptions& common);
Work add_report_command(CLI::App& command, CommonOptions& common);
Work add_summarize_command(CLI::App& command, CommonOptions& common);
Work add_model_command(CLI::App& command, CommonOptions& common);
Work add_device_command(CLI::App& command, CommonOptions& common);
Work add_lint_command(CLI::App& command, CommonOptions& common);

// Where a command collects the errors of its option values instead of
// stopping the parse: `run` reports them once it knows its report folder, so
// even a bad option value leaves a JUnit file that says why.
using OptionErrors = std::vector<std::string>;

// A numeric option's check: a finite number from min to max, said in plain
// words ("--timeout: must be a number of seconds from 1 to 86400, not '-1'").
// With `deferred`, a bad value is recorded there under the option's name and
// replaced by min, and the parse goes on.
CLI::Validator number_in(double min, double max, const std::string& what = "a number",
                         OptionErrors* deferred = nullptr, const std::string& option = "");
// --seed: a whole number from 0 to 2^64 - 1; "-1" and larger values are
// refused instead of wrapping.
void add_seed_option(CLI::App& command, std::uint64_t& seed, const std::string& description,
                     OptionErrors* deferred = nullptr);

// "a,b,,c" -> {"a", "b", "c"}: the comma-separated lists of --candidates and the like.
std::vector<std::string> split_list(const std::string& text);

// The workload a command is about, as its positional argument, with --preset
// and --axes choosing its axes.
struct WorkloadChoice {
  std::string workload;
  std::string preset;
  std::string axes;
};
void add_workload_options(CLI::App& command, WorkloadChoice& choice);

// An axis of --axes under its old name (kg::renamed_axes) is accepted for one
// release: this says so on stderr, for each suite it applies to.
void note_renamed_axes(const Suite& suite, const Axes& overrides);
// The axes of add_workload_options: the suite's defaults, --preset, then
// --axes (kg::Suite::resolve_axes), with the note above.
Axes resolve_workload_axes(const Suite& suite, const WorkloadChoice& choice);

// --suites on a subcommand, and the folder it names (kg::resolve_suites_dir).
void add_suites_option(CLI::App& command, CommonOptions& common);
std::filesystem::path suites_dir_of(const CommonOptions& common);

// --baselines: the folder of <workload>/<hardware>.json, kg::default_baselines_dir
// unless given.
void add_baselines_option(CLI::App& command, std::filesystem::path& dir, const std::string& description);

}  // namespace kg::cli
