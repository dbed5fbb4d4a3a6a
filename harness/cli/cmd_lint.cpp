// kernelgate lint FILE...: the source tripwire over candidate files. One line
// per finding (`file:line: rule: what it saw`); exit 1 on any finding, 0 on
// none. The rules and the exploit each guards: docs/lint.md.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/source_lint.hpp"

namespace kg::cli {
namespace {

struct LintOptions {
  std::vector<std::string> files;
  bool list_rules = false;
};

int print_rules() {
  for (const lint::Rule& rule : lint::rules()) std::printf("%-22s %s\n", rule.id, rule.guards);
  return 0;
}

}  // namespace

Work add_lint_command(CLI::App& command, CommonOptions&) {
  auto options = std::make_shared<LintOptions>();
  command.add_option("files", options->files, "Candidate source files (.cu, .cuh, .cpp)");
  command.add_flag("--rules", options->list_rules, "List the rules and the exploit each guards, and exit");
  return [options] {
    if (options->list_rules) return print_rules();
    if (options->files.empty()) throw Error("lint: name at least one candidate source file");
    // Every file is read before anything is printed, so an unreadable one
    // stops the command with its one-line error and no partial list.
    std::vector<lint::Finding> findings;
    for (const std::string& file : options->files)
      for (lint::Finding& finding : lint::lint_file(file)) findings.push_back(std::move(finding));
    for (const lint::Finding& finding : findings) std::printf("%s\n", lint::format(finding).c_str());
    std::fprintf(stderr, "kernelgate lint: %zu finding(s) in %zu file(s)\n", findings.size(), options->files.size());
    return findings.empty() ? 0 : 1;
  };
}

}  // namespace kg::cli
