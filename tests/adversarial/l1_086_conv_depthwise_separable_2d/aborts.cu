// Adversarial candidate: calls abort() in its host code.
// The runner must report it crashed (SIGABRT).
#include <cstdlib>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({
    .workload = kg::adversarial::kWorkload,
    .id = "aborts",
    .precision = "fp32",
    .summary = "adversarial: aborts the process",
    .unsupported_reason = kg::adversarial::always_supported,
    .workspace_bytes = kg::adversarial::no_workspace,
    .launch = [](const kg::LaunchArgs&) { std::abort(); },
});

}  // namespace
