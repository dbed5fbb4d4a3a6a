// Adversarial candidate: writes into its input x.
// The runner must report it contract_violation (inputs_unchanged).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({kg::adversarial::misbehaving_candidate(
    "adversarial: writes into its input x",
    kg::adversarial::Misbehaviour::mutate_input)});

}  // namespace
