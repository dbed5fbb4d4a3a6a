// Adversarial candidate: right on its first three calls (the checked runs),
// then returns at once without launching anything, so a timing loop that
// never checks its output would record a latency of almost nothing. The
// runner must report it contract_violation (timed_outputs).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

constexpr const char* kWorkload = "l1_071_conv_transposed_2d";

void skip_once_timed(const kg::LaunchArgs& args) {
  static int calls = 0;
  if (++calls > 3) return;
  kg::adversarial::launch_honest(kWorkload, args);
}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kWorkload, "adversarial: does nothing once it is being timed", skip_once_timed)});

}  // namespace
