// kernelgate: a CI regression suite for GPU kernels. See README.md.
#include <cstdio>
#include <exception>

#include <nlohmann/json.hpp>

#include "build_info.hpp"
#include "command.hpp"
#include "kernelgate/candidate.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/runner.hpp"

namespace {

// The subcommands, in the order `kernelgate --help` lists them: the everyday
// ones first, then the gate's steps, then the tools around it.
const kg::cli::Command kCommands[] = {
    {"list", "List the workloads of the suites folder", kg::cli::add_list_command},
    {"describe", "Show a workload: axes, tensors, FLOPs, bytes, floors per hardware, identity",
     kg::cli::add_describe_command},
    {"reference", "Generate a workload's inputs and its float64 reference; --dump writes .npy files",
     kg::cli::add_reference_command},
    {"run", "Run, check and time every candidate of a workload, gate it, write reports", kg::cli::add_run_command},
    {"gate", "Gate the results of an earlier `kernelgate run --results` and write its reports, running nothing",
     kg::cli::add_gate_command},
    {"compare", "Compare the --results of two runs on one machine (base and head), candidate by candidate",
     kg::cli::add_compare_command},
    {"publish", "Merge the measured records of reports into the baseline files, keeping history",
     kg::cli::add_publish_command},
    {"history", "Show each implementation's published records over time, with their change points",
     kg::cli::add_history_command},
    {"report", "Render a static HTML leaderboard per workload from the reports and baselines",
     kg::cli::add_report_command},
    {"summarize", "Join the Markdown summaries of all reports in a folder", kg::cli::add_summarize_command},
    {"model",
     "Model every candidate's time on GPU keys from interpret mode's counters, at full size by counting a sample "
     "of each launch's blocks (docs/roofline.md)",
     kg::cli::add_model_command},
    {"device", "Show the device a run would use: name, hardware key, CTest label, environment",
     kg::cli::add_device_command},
    {"lint", "Flag the constructs behind known ways to game the gate in candidate source files (docs/lint.md)",
     kg::cli::add_lint_command},
    // How the runner starts each candidate's child; hidden from --help.
    {kg::kChildSubcommand, "", kg::cli::add_child_command},
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kernelgate: a CI regression suite for GPU kernels"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kernelgate ") + KERNELGATE_VERSION + " (git " +
                                        KERNELGATE_BUILD_REVISION + ", " + KERNELGATE_BUILD_KIND + ")");
  kg::cli::CommonOptions common;
  int exit_code = 0;
  for (const kg::cli::Command& command : kCommands) {
    CLI::App* subcommand = app.add_subcommand(command.name, command.description);
    subcommand->callback([&exit_code, work = command.add(*subcommand, common)] { exit_code = work(); });
  }
  // A word where the subcommand goes that names none: said as such, not as
  // "a subcommand is required".
  auto is_subcommand = [&](const std::string& word) {
    for (const CLI::App* command : app.get_subcommands({}))
      if (command->check_name(word)) return true;
    return false;
  };
  if (argc > 1 && argv[1][0] != '-' && !is_subcommand(argv[1])) {
    std::fprintf(stderr, "kernelgate: error: unknown subcommand '%s'; run kernelgate --help\n", argv[1]);
    return 2;
  }
  try {
    kg::check_candidate_registry();  // two candidates with one id: refuse before anything runs
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help and --version: printed by CLI11, exit 0
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Every malformed command line is one line naming the option, exit 2 as
    // any other bad input (CLI11's own codes are not stable across versions).
    std::fprintf(stderr, "kernelgate: usage error: %s (run kernelgate --help)\n", e.what());
    return 2;
  } catch (const kg::Error& e) {
    std::fprintf(stderr, "kernelgate: error: %s\n", e.what());
    return 2;
  } catch (const nlohmann::json::exception& e) {
    // Every JSON file is read through readers that name the file and path;
    // this is the net under them, still bad input rather than a crash.
    std::fprintf(stderr, "kernelgate: error: malformed JSON: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kernelgate: internal error: %s\n", e.what());
    return 3;
  }
  return exit_code;
}
