// Adversarial candidate: aborts in workspace_bytes. That callback runs in
// the candidate's child, so only this candidate is crashed (SIGABRT).
#include <cstdlib>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

std::size_t abort_instead(const kg::Axes&) { std::abort(); }
void honest(const kg::LaunchArgs& args) {
  kg::adversarial::launch_misbehaving(args, kg::adversarial::Misbehaviour::none, args.stream);
}

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "adversarial: aborts in workspace_bytes",
    .unsupported_reason = kg::adversarial::always_supported,
    .workspace_bytes = abort_instead,
    .launch = honest,
});

}  // namespace
