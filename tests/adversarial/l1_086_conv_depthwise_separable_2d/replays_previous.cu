// Adversarial candidate: computes the first call's answer, keeps a copy, and
// returns that copy on every later call whatever the inputs. The runner must
// report it contract_violation (fresh_inputs).
#include <vector>

#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

void replay(const kg::LaunchArgs& args) {
  static std::vector<float> first_answer;
  const std::size_t bytes = kg::adversarial::shape_of(args).total() * sizeof(float);
  if (first_answer.empty()) {
    kg::adversarial::launch_misbehaving(args, kg::adversarial::Misbehaviour::none, args.stream);
    first_answer.resize(bytes / sizeof(float));
    cudaMemcpyAsync(first_answer.data(), args.output, bytes, cudaMemcpyDeviceToHost, args.stream);
    cudaStreamSynchronize(args.stream);
    return;
  }
  cudaMemcpyAsync(args.output, first_answer.data(), bytes, cudaMemcpyHostToDevice, args.stream);
}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kg::adversarial::kWorkload, "adversarial: returns the previous call's result", replay)});

}  // namespace
