// Adversarial candidate: answers correctly, but first leaves a grandchild
// behind in a session of its own (setsid), which a kill of the child's
// process group would miss. The parent is a subreaper: it finds the
// process when the child exits and kills it: contract_violation
// (stray_processes). The grandchild writes its pid to
// $KG_ADVERSARIAL_PID_FILE, so the test can check that it is gone.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

constexpr const char* kWorkload = "l2_078_conv_transpose3d_max_max_sum";

// The grandchild: in a session of its own, it says who it is and lingers.
void linger_in_a_new_session() {
  setsid();
  if (const char* file = std::getenv("KG_ADVERSARIAL_PID_FILE"); file && *file) {
    if (std::FILE* out = std::fopen(file, "w")) {
      std::fprintf(out, "%d\n", static_cast<int>(getpid()));
      std::fclose(out);
    }
  }
  sleep(600);
  _exit(0);
}

void leave_a_grandchild(const kg::LaunchArgs& args) {
  static std::once_flag first_call;
  std::call_once(first_call, [] {
    if (fork() == 0) linger_in_a_new_session();
  });
  kg::adversarial::launch_honest(kWorkload, args);
}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kWorkload, "adversarial: leaves a process behind in a new session", leave_a_grandchild)});

}  // namespace
