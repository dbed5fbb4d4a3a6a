// The child process's side: it answers the parent's commands (candidate_host.hpp)
// on the channel's file descriptors until the close command or the end of
// the command stream. Its exit code is 0 when every reply could be sent.
#include <cstdio>
#include <cstring>
#include <exception>

#include "candidate_host.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/runner_testing.hpp"
#include "runner_internal.hpp"

namespace kg {

int run_child(const std::filesystem::path&) {
  try {
    detail::CandidateHost host(nullptr, true);
    while (auto command = detail::read_message(detail::kCommandFd)) {
      const detail::Message reply = host.handle(*command);
      detail::write_message(detail::kReplyFd, reply);
      if (command->header.value("command", std::string()) == "close") return 0;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kernelgate child: %s\n", e.what());
    return 1;
  }
}

std::optional<int> run_child_if_requested(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], kChildSubcommand) != 0) return std::nullopt;
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s %s <scratch folder>\n", argv[0], kChildSubcommand);
    return 2;
  }
  return run_child(argv[2]);
}

}  // namespace kg
