// Adversarial candidate: never finishes.
// The runner must report it timed_out.
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({kg::adversarial::misbehaving_candidate(
    "adversarial: never finishes",
    kg::adversarial::Misbehaviour::spin_forever)});

}  // namespace
