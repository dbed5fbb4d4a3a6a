// Adversarial candidate: writes NaN into one output element.
// The runner must report it incorrect (NaN never passes).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({kg::adversarial::misbehaving_candidate(
    "adversarial: writes NaN into one output element",
    kg::adversarial::Misbehaviour::write_nan)});

}  // namespace
