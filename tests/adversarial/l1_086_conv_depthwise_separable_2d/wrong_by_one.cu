// Adversarial candidate: one output element is off by 1.0.
// The runner must report it incorrect, naming the element.
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({
    .workload = kg::adversarial::kWorkload,
    .id = "wrong_by_one",
    .precision = "fp32",
    .summary = "adversarial: one output element is off by 1.0",
    .unsupported_reason = kg::adversarial::always_supported,
    .workspace_bytes = kg::adversarial::no_workspace,
    .launch = [](const kg::LaunchArgs& args) {
      kg::adversarial::launch_misbehaving(args, kg::adversarial::Misbehaviour::wrong_by_one, args.stream);
    },
});

}  // namespace
