#pragma once
// The source tripwire of `kernelgate lint`: reads a candidate file and names
// the constructs behind the known ways a candidate games a harness (its own
// streams, processes, files and environment, patching the process, state kept
// between calls, a lower precision than it declares). A finding is a reason
// for a reviewer to look, not a verdict: the runner's checks judge what a
// kernel does, the tripwire only what its file says. The rules and the
// exploit each guards: docs/lint.md.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kg::lint {

// One construct a rule matched, at a line of the file.
struct Finding {
  std::string file;
  int line = 0;
  std::string rule;  // one of rules()'s ids
  std::string saw;   // what it saw, in words: "calls setenv"
};

// A rule's id and the exploit it guards, for `kernelgate lint --rules`.
struct Rule {
  const char* id;
  const char* guards;
};
const std::vector<Rule>& rules();

// The findings of one source text, in line order; `file` names it in them.
std::vector<Finding> lint_source(const std::string& file, std::string_view text);

// The findings of a file; throws kg::Error naming the file when it cannot be
// read.
std::vector<Finding> lint_file(const std::filesystem::path& file);

// "file:line: rule: saw", the line `kernelgate lint` prints.
std::string format(const Finding& finding);

}  // namespace kg::lint
