// Adversarial candidate: tries to write into the parent's stdout through
// /proc/<parent>/fd/1 (which would break `kernelgate run --json`), then
// computes the right answer. The parent is not dumpable while a child runs
// and the child has no CAP_SYS_PTRACE, so the open fails even as root: the
// candidate passes and the JSON on stdout still parses.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

constexpr const char* kWorkload = "l1_071_conv_transposed_2d";

void write_to_parent_stdout(const kg::LaunchArgs& args) {
  const std::string path = "/proc/" + std::to_string(getppid()) + "/fd/1";
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND);
  if (fd >= 0) {
    const char garbage[] = "not JSON: written by a candidate into the parent's stdout\n";
    (void)!write(fd, garbage, sizeof garbage - 1);
    close(fd);
  }
  kg::adversarial::launch_honest(kWorkload, args);
}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kWorkload, "adversarial: writes into the parent's stdout", write_to_parent_stdout)});

}  // namespace
