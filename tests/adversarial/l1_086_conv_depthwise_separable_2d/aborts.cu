// Adversarial candidate: calls abort() in its host code.
// The runner must report it crashed (SIGABRT).
#include <cstdlib>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kg::adversarial::kWorkload, "adversarial: aborts the process", [](const kg::LaunchArgs&) { std::abort(); })});

}  // namespace
