// The git revision a run is recorded with (reports' environment, baseline
// records): CI's own GITHUB_SHA when it is set, otherwise the HEAD of the
// source tree this kernelgate was built from, otherwise empty. It names the
// checkout the run happened in; a binary not rebuilt since is the user's call.
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernelgate/suite.hpp"
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

}  // namespace

std::string current_git_revision() {
  if (const char* sha = std::getenv("GITHUB_SHA"); sha && is_full_sha(sha)) return sha;
  const std::string source_dir = default_suites_dir().parent_path().string();
  const std::string command = "git -C " + shell_quote(source_dir) + " rev-parse HEAD 2>/dev/null";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "";
  std::array<char, 64> line{};
  std::string output = std::fgets(line.data(), static_cast<int>(line.size()), pipe) ? line.data() : "";
  pclose(pipe);
  while (!output.empty() && std::isspace(static_cast<unsigned char>(output.back()))) output.pop_back();
  return is_full_sha(output) ? output : "";
}

}  // namespace kg::detail
