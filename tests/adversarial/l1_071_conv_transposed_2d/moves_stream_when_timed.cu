// Adversarial candidate: right, and on the harness's stream, for its first
// three calls (the checked runs, which are audited); from then on (warm-ups
// and timed samples) it puts its work on a stream of its own and returns at
// once, so the events on the harness stream time only the launch call. On a
// GPU a wait of about a millisecond goes before that work, as a long kernel
// would take. The runner must report it contract_violation (launch_stream):
// on the cpu device the audit of every timed sample names the stream; on a
// GPU, where timed samples are not audited, the device is seen still busy
// after each timed region (kg::judge_busy_after_timing).
#include "../common/adversarial.cuh"  // relative: also builds via KERNELGATE_EXTRA_KERNEL_DIRS

namespace {

constexpr const char* kWorkload = "l1_071_conv_transposed_2d";

#if !defined(KG_INTERPRET)  // interpret mode has no clock64; it needs no wait to be caught
__global__ void wait_cycles(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}
#endif

void move_stream_once_timed(const kg::LaunchArgs& args) {
  static int calls = 0;
  if (++calls <= 3) {
    kg::adversarial::launch_honest(kWorkload, args);
    return;
  }
  static cudaStream_t own = [] {
    cudaStream_t stream = nullptr;
    cudaStreamCreate(&stream);
    return stream;
  }();
  kg::LaunchArgs moved = args;
  moved.stream = own;
#if !defined(KG_INTERPRET)
  kg::launch(wait_cycles, dim3(1), dim3(1), 0, own, 2'000'000LL);
#endif
  kg::adversarial::launch_honest(kWorkload, moved);
}

KG_REGISTER_CANDIDATE({kg::adversarial::candidate(
    kWorkload, "adversarial: moves its work to a stream of its own once it is being timed", move_stream_once_timed)});

}  // namespace
