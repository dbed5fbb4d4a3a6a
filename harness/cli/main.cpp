// kernelgate: a CI regression suite for GPU kernels. See README.md.
#include <cstdio>
#include <exception>

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
  kg::cli::CommonOptions common;
  int exit_code = 0;
  for (auto& command : kg::cli::commands()) command.add(app, common, exit_code);
  try {
    kg::check_candidate_registry();  // two candidates with one id: refuse before anything runs
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every malformed command line exits 2, as
    // any other bad input does (CLI11's own codes are not stable across versions).
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const kg::Error& e) {
    std::fprintf(stderr, "kernelgate: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kernelgate: internal error: %s\n", e.what());
    return 3;
  }
  return exit_code;
}
