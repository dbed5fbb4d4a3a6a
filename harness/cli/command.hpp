#pragma once
// Subcommands of the kernelgate CLI register themselves: one file per command.
#include <filesystem>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "kernelgate/axes.hpp"
#include "kernelgate/suite.hpp"

namespace kg::cli {

// Options every command shares.
struct CommonOptions {
  std::string suites_dir;  // --suites: load workloads from another folder
};

struct Command {
  std::string name;
  std::string description;  // one line, in `kernelgate --help`
  // Adds the options to the subcommand main() made of name and description;
  // the subcommand's callback does the work and throws kg::Error on failure.
  // It sets `exit_code` for non-error outcomes (e.g. 1 when a gate fails,
  // CTest's skip code).
  std::function<void(CLI::App* command, CommonOptions& common, int& exit_code)> add;
};

std::vector<Command>& commands();

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
// --seed: a whole number from 0 to 2^64 - 2 (set B uses seed + 1); "-1" and
// larger values are refused instead of wrapping.
void add_seed_option(CLI::App& command, std::uint64_t& seed, const std::string& description,
                     OptionErrors* deferred = nullptr);

// "a,b,,c" -> {"a", "b", "c"}: the comma-separated lists of --candidates and the like.
std::vector<std::string> split_list(const std::string& text);

// The workload a command is about, as its positional argument, with --preset
// and --axes choosing its axes.
void add_workload_options(CLI::App& command, std::string& workload, std::string& preset, std::string& axes);

// An axis of --axes under its old name (kg::renamed_axes) is accepted for one
// release: this says so on stderr, for each suite it applies to.
void note_renamed_axes(const Suite& suite, const Axes& overrides);
// The axes of add_workload_options: the suite's defaults, --preset, then
// --axes (kg::Suite::resolve_axes), with the note above.
Axes resolve_workload_axes(const Suite& suite, const std::string& preset, const std::string& axes);

// --suites on a subcommand, and the folder it names (kg::resolve_suites_dir).
void add_suites_option(CLI::App& command, CommonOptions& common);
std::filesystem::path suites_dir_of(const CommonOptions& common);

struct CommandRegistrar {
  explicit CommandRegistrar(Command command) { commands().push_back(std::move(command)); }
};

}  // namespace kg::cli
