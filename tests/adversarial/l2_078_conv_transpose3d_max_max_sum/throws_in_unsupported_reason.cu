// Adversarial candidate: throws from unsupported_reason. That callback runs
// in the candidate's child like every other, so this is the candidate's own
// crash: crashed, and the other candidates still run.
#include <stdexcept>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

constexpr const char* kWorkload = "l2_078_conv_transpose3d_max_max_sum";

std::string throw_instead(const kg::Axes&) { throw std::runtime_error("adversarial: unsupported_reason gave up"); }
void honest(const kg::LaunchArgs& args) { kg::adversarial::launch_honest(kWorkload, args); }

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "adversarial: throws from unsupported_reason",
    .unsupported_reason = throw_instead,
    .workspace_bytes = kg::adversarial::honest_workspace(kWorkload),
    .launch = honest,
});

}  // namespace
