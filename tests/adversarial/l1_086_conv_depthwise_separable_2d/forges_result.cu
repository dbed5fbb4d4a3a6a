// Adversarial candidate: forges its result. It writes a reply claiming a
// clean run into every file descriptor it has and a "passed" result file
// into its folder, then exits 0 without computing anything. The parent
// accepts a result only from a child that answered every command with the
// values it asked for, echoed the nonce of its open command and exited 0:
// crashed.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

void forge(const kg::LaunchArgs&) {
  const std::string header =
      R"({"stream":"","guards":"","inputs":"","output_hash":0,)"
      R"("scan":{"poisoned":0,"first_poisoned":-1,"non_finite":0,"first_non_finite":-1}})";
  const std::uint64_t lengths[2] = {header.size(), 0};
  for (int fd = 1; fd < 32; ++fd) {
    (void)!write(fd, lengths, sizeof lengths);
    (void)!write(fd, header.data(), header.size());
  }
  std::ofstream("result.json") << R"({"id":"forges_result","outcome":"passed","checks":[]})";
  _exit(0);
}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kg::adversarial::kWorkload, "adversarial: forges a passing result and exits 0", forge)});

}  // namespace
