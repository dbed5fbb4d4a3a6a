// kernelgate: a CI regression suite for GPU kernels. See README.md.
#include <cstdio>
#include <exception>

#include <nlohmann/json.hpp>

#include "build_info.hpp"
#include "command.hpp"
#include "kernelgate/candidate.hpp"
#include "kernelgate/error.hpp"

namespace kg::cli {
std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}
}  // namespace kg::cli

int main(int argc, char** argv) {
  CLI::App app{"kernelgate: a CI regression suite for GPU kernels"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kernelgate ") + KERNELGATE_VERSION + " (git " +
                                        KERNELGATE_BUILD_REVISION + ", " + KERNELGATE_BUILD_KIND + ")");
  kg::cli::CommonOptions common;
  int exit_code = 0;
  for (auto& command : kg::cli::commands())
    command.add(app.add_subcommand(command.name, command.description), common, exit_code);
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
