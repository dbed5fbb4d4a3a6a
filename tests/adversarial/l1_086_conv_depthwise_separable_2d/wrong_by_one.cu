// Adversarial candidate: one output element is off by 1.0.
// The runner must report it incorrect, naming the element.
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({kg::adversarial::misbehaving_candidate(
    "adversarial: one output element is off by 1.0",
    kg::adversarial::Misbehaviour::wrong_by_one)});

}  // namespace
