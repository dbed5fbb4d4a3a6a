// Adversarial candidate: writes one element past the end of the output.
// The runner must report it contract_violation (guard_bands).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({kg::adversarial::misbehaving_candidate(
    "adversarial: writes one element past the end of the output",
    kg::adversarial::Misbehaviour::write_past_end)});

}  // namespace
