// Isolation: one child process per candidate (docs/runner.md, "Isolation").
// The parent executes its own binary again with the hidden child subcommand
// (a fork without exec would inherit a CUDA context that does not survive
// it) and drives it over two pipes; the child's stdout and stderr come back
// on a third, so nothing it prints reaches the parent's stdout.
//
// What the watchdog holds to, whatever the candidate does:
// - The limit is on elapsed wall time from the start, compared after every
//   reply and at the end, so a candidate that stops the parent (SIGSTOP) until
//   it is done is still `timed_out`.
// - The child leads its own session, and the parent is a subreaper, so every
//   descendant is found and killed when the child ends: a grandchild that
//   called setsid is reparented here. One still running after the child
//   exited is the `stray_processes` violation.
// - The child dies with the parent (PR_SET_PDEATHSIG); on SIGTERM, SIGINT or
//   SIGHUP the parent kills the child's processes and removes its folder
//   before it dies of the signal.
// - A result counts only from a child that answered every command, echoed the
//   nonce of its open command, and exited 0.
// - While a child runs the parent is not dumpable and the child has no
//   CAP_SYS_PTRACE, so the child cannot open /proc/<parent>/fd/* (the
//   parent's stdout) even as root.
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "candidate_host.hpp"
#include "kernelgate/error.hpp"
#include "runner_internal.hpp"
#if defined(KG_INTERPRET)
#include "kernelgate/interpret/tensor_core_arithmetic.hpp"
#endif

namespace kg::detail {
namespace {

using Clock = std::chrono::steady_clock;

std::string errno_text() { return std::strerror(errno); }

// A private folder for the child (its working directory and TMPDIR).
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kernelgate-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      throw Error("cannot create a temporary folder for the candidate's child process: " + errno_text());
    path_ = pattern;
  }
  ~TemporaryFolder() { remove(path_); }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }
  static void remove(const std::filesystem::path& path) {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }

 private:
  std::filesystem::path path_;
};

// The processes whose parent is this process, other than `except`.
std::vector<pid_t> children_of_this_process(pid_t except) {
  std::vector<pid_t> found;
  const pid_t self = getpid();
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text;
    std::getline(stat, text);
    // pid (comm) state ppid ...: comm may hold spaces and parentheses.
    const auto close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 1));
    char state = 0;
    pid_t parent = 0;
    rest >> state >> parent;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (parent == self && pid != except) found.push_back(pid);
  }
  return found;
}

// Kills a process and its process group, and reaps it.
void kill_and_reap(pid_t child) {
  kill(-child, SIGKILL);
  kill(child, SIGKILL);
  while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
}

// Kills the child's session and every process reparented to us; returns how
// many processes other than the child were found alive.
int kill_descendants(pid_t child) {
  int strays = 0;
  if (child > 0) kill(-child, SIGKILL);
  for (int round = 0; round < 100; ++round) {
    const std::vector<pid_t> found = children_of_this_process(child);
    if (found.empty()) break;
    for (pid_t pid : found) {
      // Zombies already dead count as strays too: they outlived the child.
      ++strays;
      kill_and_reap(pid);
    }
  }
  return strays;
}

// The child being run, for the termination watcher.
struct ActiveChild {
  std::mutex mutex;
  pid_t pid = 0;
  std::filesystem::path folder;
};
ActiveChild& active_child() {
  static ActiveChild& active = *new ActiveChild;  // never destroyed: the watcher may use it at exit
  return active;
}

// Set by the termination watcher before it kills the child. The main thread,
// which then finds its child gone (reaped by the watcher: waitpid says there
// is no child), must not report that as an error or a crash of its own: it
// waits for the signal to end the process.
std::atomic<bool> termination_requested{false};

void wait_for_termination_if_requested() {
  if (!termination_requested.load()) return;
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

// SIGTERM, SIGINT and SIGHUP are taken by a thread of their own (sigwait),
// which kills the active child's processes and removes its folder, then lets
// the signal end the process as it would have.
void install_termination_watcher() {
  static std::once_flag once;
  std::call_once(once, [] {
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    sigset_t signals;
    sigemptyset(&signals);
    for (int signal_number : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&signals, signal_number);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    std::thread([signals] {
      int received = 0;
      while (sigwait(&signals, &received) != 0) {
      }
      termination_requested.store(true);
      {
        ActiveChild& active = active_child();
        std::lock_guard lock(active.mutex);
        if (active.pid > 0) {
          kill_and_reap(active.pid);
          kill_descendants(active.pid);
          TemporaryFolder::remove(active.folder);
        }
      }
      signal(received, SIG_DFL);
      sigset_t only;
      sigemptyset(&only);
      sigaddset(&only, received);
      pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
      raise(received);
      _exit(128 + received);
    }).detach();
  });
}

std::string random_nonce() {
  std::random_device source;
  std::ostringstream out;
  out << std::hex;
  for (int i = 0; i < 4; ++i) out << source();
  return out.str();
}

struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw Error("pipe failed: " + errno_text());
    read = fds[0];
    write = fds[1];
  }
};

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// The child's environment: ours, with TMPDIR pointing into its folder. The
// interpret-mode thread order travels in the open command, not here.
std::vector<std::string> child_environment(const std::filesystem::path& folder) {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry; ++entry) {
    if (std::strncmp(*entry, "KG_INTERPRET_ORDER=", 19) == 0 || std::strncmp(*entry, "TMPDIR=", 7) == 0) continue;
    environment.emplace_back(*entry);
  }
  environment.push_back("TMPDIR=" + folder.string());
  return environment;
}

class ChildProcessSession final : public CandidateSession {
 public:
  ChildProcessSession(const std::string& candidate_id, double timeout_s, const std::filesystem::path& executable)
      : candidate_id_(candidate_id), timeout_s_(timeout_s),
        deadline_(Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s))),
        program_(executable.empty() ? "/proc/self/exe" : executable.string()) {
    install_termination_watcher();
    Pipe commands, replies, output;
    const int null_input = open("/dev/null", O_RDONLY | O_CLOEXEC);
    // Everything the child needs is prepared before fork: after it only
    // async-signal-safe calls are allowed in a multi-threaded parent.
    std::vector<std::string> arguments = {program_, kChildSubcommand, folder_.path().string()};
    std::vector<char*> argv;
    for (auto& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    std::vector<std::string> environment = child_environment(folder_.path());
    std::vector<char*> envp;
    for (auto& entry : environment) envp.push_back(entry.data());
    envp.push_back(nullptr);
    const std::string folder = folder_.path().string();
    const pid_t parent = getpid();

    previous_dumpable_ = prctl(PR_GET_DUMPABLE);
    prctl(PR_SET_DUMPABLE, 0);
    std::lock_guard lock(active_child().mutex);
    pid_ = fork();
    if (pid_ < 0) {
      const std::string why = errno_text();
      prctl(PR_SET_DUMPABLE, previous_dumpable_);
      for (int fd : {commands.read, commands.write, replies.read, replies.write, output.read, output.write, null_input})
        close(fd);
      throw Error("fork failed: " + why);
    }
    if (pid_ == 0) {
      setsid();  // its own session and process group: the watchdog kills what it started
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0);  // fails harmlessly when not root
      // Above every fd the targets could collide with, then into place.
      const int sources[5] = {null_input, output.write, output.write, commands.read, replies.write};
      int moved[5];
      for (int i = 0; i < 5; ++i) moved[i] = fcntl(sources[i], F_DUPFD, 64);
      for (int i = 0; i < 5; ++i) dup2(moved[i], i);
      close_range(5, ~0u, 0);
      if (chdir(folder.c_str()) != 0) _exit(127);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    active_child().pid = pid_;
    active_child().folder = folder_.path();
    close(null_input);
    close(commands.read);
    close(replies.write);
    close(output.write);
    command_fd_ = commands.write;
    reply_fd_ = replies.read;
    output_fd_ = output.read;
    for (int fd : {command_fd_, reply_fd_, output_fd_}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  }

  ~ChildProcessSession() override {
    end_child();
    std::lock_guard lock(active_child().mutex);
    active_child().pid = 0;
    active_child().folder.clear();
  }

  Message call(const Message& command) override {
    if (ended_) throw *ended_;
    send(encode_message(command));
    for (;;) {
      if (auto reply = take_message_or_fail()) {
        if (Clock::now() > deadline_) fail_timed_out();
        return std::move(*reply);
      }
      if (reply_closed_) fail_exited();  // the child closed its end: it is gone or going
      wait_for_input();
    }
  }

  // Ends the child after its checks: the close command and its nonce, then
  // its exit status and its descendants. Returns what went wrong, if anything.
  std::optional<Finding> close_session(const std::string& nonce) {
    if (ended_) return ended_;
    try {
      const Message reply = call(make_command("close"));
      if (reply.header.value("nonce", std::string()) != nonce)
        fail(Outcome::crashed, "its reply to the close command did not carry the nonce the runner sent");
      close_fd(command_fd_);  // end of file: the child's loop returns
      const int status = wait_for_exit();
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail(Outcome::crashed, describe_status(status));
    } catch (const Finding& finding) {
      return finding;
    }
    if (Clock::now() > deadline_) fail_timed_out_no_throw();
    if (ended_) return ended_;
    const int strays = kill_descendants(pid_);
    descendants_killed_ = true;
    if (strays > 0)
      return Finding{Outcome::contract_violation, kContractCheck, "stray_processes",
                     "stray_processes: " + std::to_string(strays) +
                         " process(es) the candidate started were still there after its child process "
                         "exited; they were killed"};
    return std::nullopt;
  }

 private:
  // A write to a child that has gone must be EPIPE, not a SIGPIPE that kills
  // the run: the signal is blocked in this thread for the write, and one it
  // raised is taken back before the mask is restored.
  ssize_t write_without_sigpipe(const char* data, std::size_t size) {
    sigset_t pipe_signal, previous;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
    const ssize_t written = write(command_fd_, data, size);
    const int saved = errno;
    if (written < 0 && errno == EPIPE) {
      const timespec no_wait{0, 0};
      while (sigtimedwait(&pipe_signal, nullptr, &no_wait) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    errno = saved;
    return written;
  }

  void send(const std::vector<char>& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t written = write_without_sigpipe(bytes.data() + done, bytes.size() - done);
      if (written > 0) {
        done += static_cast<std::size_t>(written);
        continue;
      }
      if (written < 0 && errno != EAGAIN && errno != EINTR) fail_exited();  // EPIPE: the child is gone
      pollfd fds[2] = {{command_fd_, POLLOUT, 0}, {output_fd_, POLLIN, 0}};
      poll_until_deadline(fds, 2);
      drain_output();
    }
  }

  std::optional<Message> take_message_or_fail() {
    try {
      return take_message(reply_bytes_);
    } catch (const std::exception& e) {
      fail(Outcome::crashed, std::string("its replies broke the runner's protocol: ") + e.what());
    }
  }

  void wait_for_input() {
    pollfd fds[2] = {{reply_fd_, POLLIN, 0}, {output_fd_, POLLIN, 0}};
    poll_until_deadline(fds, 2);
    drain_output();
    char buffer[1 << 16];
    for (;;) {
      const ssize_t got = read(reply_fd_, buffer, sizeof buffer);
      if (got > 0) {
        reply_bytes_.insert(reply_bytes_.end(), buffer, buffer + got);
        continue;
      }
      if (got == 0 || (errno != EAGAIN && errno != EINTR)) reply_closed_ = true;
      return;
    }
  }

  void poll_until_deadline(pollfd* fds, int count) {
    const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
    if (remaining <= 0) fail_timed_out();
    const int ready = poll(fds, static_cast<nfds_t>(count), static_cast<int>(std::min<long long>(remaining, 200)));
    if (ready < 0 && errno != EINTR) throw Error("poll failed: " + errno_text());
  }

  // The child's output, forwarded to our stderr a line at a time with its id.
  void drain_output() {
    if (output_fd_ < 0) return;
    char buffer[1 << 14];
    for (;;) {
      const ssize_t got = read(output_fd_, buffer, sizeof buffer);
      if (got <= 0) {
        if (got == 0) close_fd(output_fd_);
        break;
      }
      pending_output_.append(buffer, static_cast<std::size_t>(got));
      tail_.append(buffer, static_cast<std::size_t>(got));
      if (tail_.size() > 2000) tail_.erase(0, tail_.size() - 2000);
    }
    for (auto newline = pending_output_.find('\n'); newline != std::string::npos;
         newline = pending_output_.find('\n')) {
      std::fprintf(stderr, "[%s] %s\n", candidate_id_.c_str(), pending_output_.substr(0, newline).c_str());
      pending_output_.erase(0, newline + 1);
    }
  }

  int wait_for_exit() {
    int status = 0;
    for (;;) {
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_ || (done < 0 && errno != EINTR)) wait_for_termination_if_requested();
      if (done == pid_) {
        reaped_ = true;
        drain_output();
        return status;
      }
      if (done < 0 && errno != EINTR) throw Error("waitpid failed: " + errno_text());
      if (Clock::now() >= deadline_) fail_timed_out();
      pollfd fds[1] = {{output_fd_, POLLIN, 0}};
      poll(fds, output_fd_ >= 0 ? 1 : 0, 5);
      drain_output();
    }
  }

  std::string describe_status(int status) const {
    std::string text;
    if (WIFSIGNALED(status)) {
      text = "killed by " + describe_signal(WTERMSIG(status));
    } else {
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      text = code == 127 ? "could not execute " + program_
                         : "exited with code " + std::to_string(code) + " before the runner's checks were done";
    }
    return text;
  }

  // The child stopped answering: wait for its status (it may still be dying).
  [[noreturn]] void fail_exited() {
    const int status = wait_for_exit();
    std::string message = describe_status(status);
    if (WIFEXITED(status) && !tail_.empty() && WEXITSTATUS(status) != 127) {
      std::string last = tail_.substr(tail_.size() > 300 ? tail_.size() - 300 : 0);
      while (!last.empty() && (last.back() == '\n' || last.back() == ' ')) last.pop_back();
      if (!last.empty()) message += "; its last output: " + printable(last);
    }
    fail(Outcome::crashed, message);
  }

  void fail_timed_out_no_throw() {
    std::ostringstream message;
    message << "no result within the " << timeout_s_ << " s watchdog limit; the child was killed";
    end_child();
    ended_ = Finding{Outcome::timed_out, kIsolationCheck, "", message.str()};
  }

  [[noreturn]] void fail_timed_out() {
    fail_timed_out_no_throw();
    throw *ended_;
  }

  [[noreturn]] void fail(Outcome outcome, std::string message) {
    end_child();
    ended_ = Finding{outcome, kIsolationCheck, "", std::move(message)};
    throw *ended_;
  }

  // Kills the child and everything it started; idempotent.
  void end_child() {
    if (pid_ > 0 && !reaped_) {
      kill_and_reap(pid_);
      reaped_ = true;
    }
    if (pid_ > 0 && !descendants_killed_) {
      kill_descendants(pid_);
      descendants_killed_ = true;
    }
    drain_output();
    if (!pending_output_.empty()) {
      std::fprintf(stderr, "[%s] %s\n", candidate_id_.c_str(), pending_output_.c_str());
      pending_output_.clear();
    }
    close_fd(command_fd_);
    close_fd(reply_fd_);
    close_fd(output_fd_);
    if (previous_dumpable_ >= 0) {
      prctl(PR_SET_DUMPABLE, previous_dumpable_);
      previous_dumpable_ = -1;
    }
  }

  TemporaryFolder folder_;
  std::string candidate_id_;
  double timeout_s_;
  Clock::time_point deadline_;
  std::string program_;
  pid_t pid_ = -1;
  bool reaped_ = false;
  bool reply_closed_ = false;
  bool descendants_killed_ = false;
  int previous_dumpable_ = -1;
  int command_fd_ = -1, reply_fd_ = -1, output_fd_ = -1;
  std::vector<char> reply_bytes_;
  std::string pending_output_, tail_;
  std::optional<Finding> ended_;
};

}  // namespace

std::string describe_signal(int signal_number) {
  const char* name = sigabbrev_np(signal_number);
  const char* text = strsignal(signal_number);
  std::string description = name ? std::string("SIG") + name : "signal " + std::to_string(signal_number);
  if (text) description += std::string(" (") + text + ")";
  return description;
}

CandidateResult run_in_child(const Suite& suite, const Candidate& candidate, const Axes& axes,
                             const RunOptions& options, const ReferencePoints& reference,
                             const DeviceDescription& device, const std::string& thread_order, double timeout_s) {
  SessionRequest request{.device = device.child_spec, .thread_order = thread_order, .tensor_cores = {},
                         .nonce = random_nonce()};
#if defined(KG_INTERPRET)
  // Read here, in the parent, once per candidate: the child pins it.
  if (device.interpreted) request.tensor_cores = interp::to_string(interp::current_tensor_core_arithmetic());
#endif
  ChildProcessSession session(candidate.id, timeout_s, options.executable);
  CandidateResult result = check_through_session(suite, candidate, axes, options, reference, request, device, session);
  const std::optional<Finding> ending = session.close_session(request.nonce);
  if (!ending) return result;
  // A hang past the limit, or a child that did not end as it must, voids
  // whatever its replies said; a stray process fails a candidate that passed.
  const bool voids = ending->outcome == Outcome::timed_out || ending->outcome == Outcome::crashed;
  if (!voids && is_failure(result.outcome)) return result;
  CandidateResult ended;
  ended.id = candidate.id;
  ended.precision = candidate.precision;
  ended.thread_orders = result.thread_orders;
  return failed_result(std::move(ended), *ending);
}

}  // namespace kg::detail
