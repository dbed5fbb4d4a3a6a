// Adversarial candidate: writes one element past the end of the output.
// The runner must report it contract_violation (guard_bands).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({
    .workload = kg::adversarial::kWorkload,
    .id = "writes_past_end",
    .precision = "fp32",
    .summary = "adversarial: writes one element past the end of the output",
    .unsupported_reason = kg::adversarial::always_supported,
    .workspace_bytes = kg::adversarial::no_workspace,
    .launch = [](const kg::LaunchArgs& args) {
      kg::adversarial::launch_misbehaving(args, kg::adversarial::Misbehaviour::write_past_end, args.stream);
    },
});

}  // namespace
