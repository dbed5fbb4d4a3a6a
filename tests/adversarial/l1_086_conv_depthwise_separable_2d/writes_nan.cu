// Adversarial candidate: writes NaN into one output element.
// The runner must report it incorrect (NaN never passes).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({
    .workload = kg::adversarial::kWorkload,
    .id = "writes_nan",
    .precision = "fp32",
    .summary = "adversarial: writes NaN into one output element",
    .unsupported_reason = kg::adversarial::always_supported,
    .workspace_bytes = kg::adversarial::no_workspace,
    .launch = [](const kg::LaunchArgs& args) {
      kg::adversarial::launch_misbehaving(args, kg::adversarial::Misbehaviour::write_nan, args.stream);
    },
});

}  // namespace
