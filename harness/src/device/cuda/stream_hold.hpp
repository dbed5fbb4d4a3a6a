#pragma once
// The stream hold of a timed sample (timed_region.hpp): a one-thread kernel
// that waits on the harness stream until the host writes its release word,
// so that the candidate's launch is enqueued behind it and the events time
// the device's work without the host's work to enqueue it. A hold that waits
// longer than its limit gives up and says so, so that a launch that waits on
// the device itself (which the hold would keep waiting) cannot deadlock.
#include <cuda_runtime_api.h>

#include <memory>

namespace kg::cuda_detail {

class StreamHold {
 public:
  // How long a hold waits for its release: far above any launch's enqueue
  // (tens of microseconds; a cuDNN execute's plan lookup and variant pack
  // included), short enough that a launch which waits on the device costs
  // little per sample.
  static constexpr double kLimitMs = 200;

  StreamHold();
  ~StreamHold();
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;

  cudaError_t hold(cudaStream_t stream);  // enqueues the waiting kernel; the launch's status
  void release();                  // the host's word: the kernel may end
  bool expired() const;            // the last hold gave up before its release

 private:
  // The platform's (platform.hpp): on a GPU pinned, device-mapped words for
  // the release and the verdict (stream_hold.cu); on the simulated GPU its
  // runtime's hold (../sim/stream_hold_sim.cpp).
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kg::cuda_detail
