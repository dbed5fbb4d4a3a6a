// The stream hold (../cuda/stream_hold.hpp) on the simulated GPU: its
// runtime's hold, which keeps the stream's later work from running until the
// host releases it, and expires when that work is waited for first.
#include "../cuda/stream_hold.hpp"

#include "kernelgate/interpret/simulated_gpu.hpp"

namespace kg::cuda_detail {

struct StreamHold::State {
  std::shared_ptr<interp::sim::Hold> hold;  // the last one enqueued
};

StreamHold::StreamHold() : state_(std::make_unique<State>()) {}
StreamHold::~StreamHold() = default;

cudaError_t StreamHold::hold(cudaStream_t stream) {
  state_->hold = std::make_shared<interp::sim::Hold>();
  return interp::sim::enqueue_hold(stream, state_->hold);
}

void StreamHold::release() {
  if (state_->hold) state_->hold->released = true;
}

bool StreamHold::expired() const { return state_->hold && state_->hold->expired; }

}  // namespace kg::cuda_detail
