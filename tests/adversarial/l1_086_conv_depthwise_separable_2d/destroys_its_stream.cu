// Adversarial candidate: launches on a stream of its own and destroys that
// stream before returning. The stream audit must still name the stream it
// saw (the record keeps the stream's id, not a pointer that is freed by
// then): contract_violation (launch_stream).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

void on_a_destroyed_stream(const kg::LaunchArgs& args) {
  cudaStream_t own = nullptr;
  cudaStreamCreate(&own);
  kg::adversarial::launch_misbehaving(args, kg::adversarial::Misbehaviour::none, own);
  cudaStreamSynchronize(own);
  cudaStreamDestroy(own);
}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kg::adversarial::kWorkload, "adversarial: launches on its own stream and destroys it", on_a_destroyed_stream)});

}  // namespace
