// Not an adversarial candidate of the main adversarial binary: a second
// registration of the id direct_fp32 for l2_078, built into a binary of its
// own (kernelgate-duplicate) beside the real one. Two candidates with one
// (workload, id) let the parent and the child pick different ones, so the
// binary must refuse to start, naming both files.
#include "../../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

constexpr const char* kWorkload = "l2_078_conv_transpose3d_max_max_sum";

void nothing(const kg::LaunchArgs&) {}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kWorkload, "adversarial: a second direct_fp32", nothing)});

}  // namespace
