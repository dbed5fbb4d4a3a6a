// Adversarial candidate: writes through an unmapped address.
// The runner must report it crashed (SIGSEGV on the cpu device, an illegal address on a GPU).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({
    .workload = kg::adversarial::kWorkload,
    .id = "segfaults",
    .precision = "fp32",
    .summary = "adversarial: writes through an unmapped address",
    .unsupported_reason = kg::adversarial::always_supported,
    .workspace_bytes = kg::adversarial::no_workspace,
    .launch = [](const kg::LaunchArgs& args) {
      kg::adversarial::launch_misbehaving(args, kg::adversarial::Misbehaviour::wild_pointer, args.stream);
    },
});

}  // namespace
