// Adversarial candidate: writes only the first half of the output.
// The runner must report it contract_violation (output_fully_written).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({kg::adversarial::misbehaving_candidate(
    "adversarial: writes only the first half of the output",
    kg::adversarial::Misbehaviour::write_first_half)});

}  // namespace
