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

KG_REGISTER_CANDIDATE({
    .workload = kg::adversarial::kWorkload,
    .id = "destroys_its_stream",
    .precision = "fp32",
    .summary = "adversarial: launches on its own stream and destroys it",
    .unsupported_reason = kg::adversarial::always_supported,
    .workspace_bytes = kg::adversarial::no_workspace,
    .launch = on_a_destroyed_stream,
});

}  // namespace
