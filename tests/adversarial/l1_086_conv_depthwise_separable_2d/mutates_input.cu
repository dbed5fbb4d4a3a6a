// Adversarial candidate: writes into its input x.
// The runner must report it contract_violation (inputs_unchanged).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({
    .workload = kg::adversarial::kWorkload,
    .id = "mutates_input",
    .precision = "fp32",
    .summary = "adversarial: writes into its input x",
    .unsupported_reason = kg::adversarial::always_supported,
    .workspace_bytes = kg::adversarial::no_workspace,
    .launch = [](const kg::LaunchArgs& args) {
      kg::adversarial::launch_misbehaving(args, kg::adversarial::Misbehaviour::mutate_input, args.stream);
    },
});

}  // namespace
