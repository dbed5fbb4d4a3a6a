#pragma once
// Subcommands of the kernelgate CLI register themselves: one file per command.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace kg::cli {

// Options every command shares.
struct CommonOptions {
  std::string suites_dir;  // --suites: load workloads from another folder
};

struct Command {
  std::string name;
  // Adds the subcommand to the app; the subcommand's callback does the work and
  // throws kg::Error on failure. It sets `exit_code` for non-error outcomes
  // (e.g. 1 when a gate fails, CTest's skip code).
  std::function<void(CLI::App& app, CommonOptions& common, int& exit_code)> add;
};

std::vector<Command>& commands();

struct CommandRegistrar {
  explicit CommandRegistrar(Command command) { commands().push_back(std::move(command)); }
};

}  // namespace kg::cli
