// Adversarial candidate: a kernel with a missing barrier (right only when
// the threads of a block run in order) that sets KG_INTERPRET_ORDER=forward
// before it launches, hoping the runner re-reads it. The child pins the
// order of its request before any candidate code runs: in interpret mode it
// is incorrect under thread order reverse. On a GPU its 32-thread blocks are
// one warp, which keeps the order: passed there.
#include <cstdlib>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

void forward_only(const kg::LaunchArgs& args) {
  setenv("KG_INTERPRET_ORDER", "forward", 1);
  kg::adversarial::launch_shifted(args);
}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kg::adversarial::kWorkload, "adversarial: resets the interpret-mode thread order from the environment", forward_only)});

}  // namespace
