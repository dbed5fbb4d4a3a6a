// Adversarial candidate: computes the right answer, but on the default stream
// instead of the one the harness gave (so on a GPU it races with the harness's
// timing and copies). The runner must report it contract_violation (launch_stream).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kg::adversarial::kWorkload, "adversarial: launches on the default stream",
    [](const kg::LaunchArgs& args) {
      kg::adversarial::launch_misbehaving(args, kg::adversarial::Misbehaviour::none, nullptr);
    })});

}  // namespace
