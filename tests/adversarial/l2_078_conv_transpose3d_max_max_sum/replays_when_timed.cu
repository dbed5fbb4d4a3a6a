// Adversarial candidate: right on its three checked calls, then, once it is
// timed, writes back a copy of its last answer instead of computing. The
// timed samples alternate between input sets A and B behind the same
// pointers, so the copy is the answer to the wrong inputs:
// contract_violation (timed_outputs).
#include <vector>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

constexpr const char* kWorkload = "l2_078_conv_transpose3d_max_max_sum";

void replay_once_timed(const kg::LaunchArgs& args) {
  static int calls = 0;
  static std::vector<float> last;
  const auto count = static_cast<std::size_t>(kg::adversarial::output_count(args));
  if (++calls <= 3) {
    kg::adversarial::launch_honest(kWorkload, args);
    last.resize(count);
    cudaMemcpyAsync(last.data(), args.output, count * sizeof(float), cudaMemcpyDeviceToHost, args.stream);
    cudaStreamSynchronize(args.stream);
    return;
  }
  cudaMemcpyAsync(args.output, last.data(), count * sizeof(float), cudaMemcpyHostToDevice, args.stream);
  cudaStreamSynchronize(args.stream);
}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kWorkload, "adversarial: replays its last answer once it is being timed", replay_once_timed)});

}  // namespace
