// Adversarial candidate: right everywhere but one element in the middle of
// the output, which is NaN. Where the output is larger than the limit of
// whole comparison only sampled points are compared; the scan of every
// element for NaN and infinity must still find it: incorrect.
#include <cmath>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

constexpr const char* kWorkload = "l1_071_conv_transposed_2d";

void nan_in_the_middle(const kg::LaunchArgs& args) {
  kg::adversarial::launch_honest(kWorkload, args);
  const std::int64_t total = kg::adversarial::output_count(args);
  const float nan = std::nanf("");
  cudaMemcpyAsync(args.output + total / 2 + 1, &nan, sizeof nan, cudaMemcpyHostToDevice, args.stream);
  cudaStreamSynchronize(args.stream);
}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kWorkload, "adversarial: one NaN where the sampled comparison does not look", nan_in_the_middle)});

}  // namespace
