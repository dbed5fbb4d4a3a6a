// The git revision a run is recorded with (reports' environment, baseline
// records): CI's own GITHUB_SHA when it is set, otherwise the HEAD of the
// checkout the suite files were read from, marked "-dirty" when that tree
// has changes HEAD does not hold, otherwise empty. It names the checkout the
// run happened in; a binary not rebuilt since is the user's call.
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernelgate/detail/suite.hpp"
#include "runner_internal.hpp"

namespace kg::detail {
namespace {

bool is_full_sha(const std::string& text) {
  if (text.size() != 40) return false;
  for (char c : text)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Quoted for /bin/sh: inside single quotes only ' itself needs care.
std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The first line a shell command prints, without trailing white space.
std::string first_line_of(const std::string& command) {
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "";
  std::array<char, 256> line{};
  std::string output = std::fgets(line.data(), static_cast<int>(line.size()), pipe) ? line.data() : "";
  pclose(pipe);
  while (!output.empty() && std::isspace(static_cast<unsigned char>(output.back()))) output.pop_back();
  return output;
}

}  // namespace

std::string git_revision_of_tree(const std::string& directory) {
  const std::string git = "git -C " + shell_quote(directory);
  const std::string head = first_line_of(git + " rev-parse HEAD 2>/dev/null");
  if (!is_full_sha(head)) return "";
  // Modified tracked files or untracked, not ignored ones (a new candidate,
  // say): the run is not what HEAD names.
  const bool dirty = !first_line_of(git + " status --porcelain 2>/dev/null").empty();
  return dirty ? head + "-dirty" : head;
}

std::string current_git_revision(const std::filesystem::path& checkout_folder) {
  if (const char* sha = std::getenv("GITHUB_SHA"); sha && is_full_sha(sha)) return sha;
  return git_revision_of_tree(checkout_folder.empty() ? "." : checkout_folder.string());
}

}  // namespace kg::detail
