// Adversarial candidate: writes through an unmapped address.
// The runner must report it crashed (SIGSEGV on the cpu device, an illegal address on a GPU).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({kg::adversarial::misbehaving_candidate(
    "adversarial: writes through an unmapped address",
    kg::adversarial::Misbehaviour::wild_pointer)});

}  // namespace
