// Isolation: one child process per candidate (DESIGN.md step 4). The parent
// executes its own binary again with the hidden child subcommand (a fork
// without exec would inherit a CUDA context that does not survive it), waits
// with a watchdog, and reads the result record the child wrote to a file.
// A signal is `crashed` with the signal named; a hang past the limit is
// `timed_out` and the child's process group is killed.
#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "kernelgate/error.hpp"
#include "runner_internal.hpp"

namespace kg::detail {
namespace {

// A private folder for the request and result files, removed on scope exit.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kernelgate-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      throw Error("cannot create a temporary folder for the candidate's child process: " +
                  std::string(std::strerror(errno)));
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

CandidateResult failed_result(const Candidate& candidate, Outcome outcome, std::string message) {
  CandidateResult result;
  result.id = candidate.id;
  result.precision = candidate.precision;
  result.outcome = outcome;
  result.message = message;
  result.checks.push_back(make_check("isolation", outcome, std::move(message)));
  return result;
}

// The child's environment: ours, plus the thread order for interpret mode.
std::vector<std::string> child_environment(const std::string& thread_order) {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry; ++entry) {
    if (std::strncmp(*entry, "KG_INTERPRET_ORDER=", 19) == 0) continue;
    environment.emplace_back(*entry);
  }
  if (!thread_order.empty()) environment.push_back("KG_INTERPRET_ORDER=" + thread_order);
  return environment;
}

}  // namespace

std::string describe_signal(int signal_number) {
  const char* name = sigabbrev_np(signal_number);
  const char* text = strsignal(signal_number);
  std::string description = name ? std::string("SIG") + name : "signal " + std::to_string(signal_number);
  if (text) description += std::string(" (") + text + ")";
  return description;
}

CandidateResult run_in_child(const Candidate& candidate, const nlohmann::ordered_json& request,
                             double timeout_s, const std::filesystem::path& executable) {
  TemporaryFolder folder;
  const auto request_file = folder.path() / "request.json";
  const auto result_file = folder.path() / "result.json";
  {
    std::ofstream out(request_file);
    out << request.dump(2);
    if (!out) throw Error("cannot write " + request_file.string());
  }
  const std::string program = executable.empty() ? "/proc/self/exe" : executable.string();
  const std::string thread_order = request.value("thread_order", std::string());

  // Everything the child needs is prepared before fork: after it only
  // async-signal-safe calls are allowed in a multi-threaded parent.
  std::vector<std::string> arguments = {program, kChildSubcommand, request_file.string(),
                                        result_file.string()};
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment = child_environment(thread_order);
  std::vector<char*> envp;
  for (auto& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);

  const pid_t pid = fork();
  if (pid < 0) throw Error("fork failed: " + std::string(std::strerror(errno)));
  if (pid == 0) {
    setpgid(0, 0);  // its own process group: the watchdog kills whatever it started
    dup2(STDERR_FILENO, STDOUT_FILENO);  // keep our stdout clean for --json
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so there is no window before the child does it

  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + std::chrono::duration<double>(timeout_s);
  int status = 0;
  bool timed_out = false;
  auto poll_interval = std::chrono::milliseconds(1);
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw Error("waitpid failed: " + std::string(std::strerror(errno)));
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(poll_interval);
    poll_interval = std::min(poll_interval * 2, std::chrono::milliseconds(20));
  }
  // Whatever the candidate left running in its group goes too.
  kill(-pid, SIGKILL);

  if (timed_out) {
    std::ostringstream message;
    message << "no result within the " << timeout_s << " s watchdog limit; the child was killed";
    return failed_result(candidate, Outcome::timed_out, message.str());
  }
  if (WIFSIGNALED(status))
    return failed_result(candidate, Outcome::crashed,
                         "killed by " + describe_signal(WTERMSIG(status)));
  std::ifstream in(result_file);
  if (!in) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return failed_result(candidate, Outcome::crashed,
                         code == 127 ? "could not execute " + program
                                     : "exited with code " + std::to_string(code) +
                                           " without a result");
  }
  try {
    return nlohmann::ordered_json::parse(in).get<CandidateResult>();
  } catch (const std::exception& e) {
    return failed_result(candidate, Outcome::crashed,
                         std::string("its result could not be read: ") + e.what());
  }
}

}  // namespace kg::detail
