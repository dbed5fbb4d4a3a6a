// The stream hold (stream_hold.hpp). Harness code for the GPU only: it
// reads the global nanosecond timer, which interpret mode does not model.
#include "stream_hold.hpp"

#include <atomic>

#include "kernelgate/cuda_check.hpp"

namespace kg::cuda_detail {
namespace {

__device__ unsigned long long global_ns() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

// Spins on the host's release word (each read crosses PCIe, about a
// microsecond: no sleep needed) until it is set or the limit has passed.
__global__ void hold_until_released(const volatile int* words, int* expired, unsigned long long limit_ns) {
  const unsigned long long start = global_ns();
  while (words[0] == 0) {
    if (global_ns() - start > limit_ns) {
      *expired = 1;
      return;
    }
  }
}

}  // namespace

struct StreamHold::State {
  volatile int* words = nullptr;  // [0]: release, [1]: expired
  int* device_words = nullptr;
};

StreamHold::StreamHold() : state_(std::make_unique<State>()) {
  void* words = nullptr;
  KG_CUDA_CHECK(cudaHostAlloc(&words, 2 * sizeof(int), cudaHostAllocMapped));
  state_->words = static_cast<volatile int*>(words);
  KG_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&state_->device_words), words, 0));
}

StreamHold::~StreamHold() {
  if (state_->words) cudaFreeHost(const_cast<int*>(state_->words));
}

cudaError_t StreamHold::hold(cudaStream_t stream) {
  // The previous hold has ended: its sample waited for its stop event.
  state_->words[0] = 0;
  state_->words[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const auto limit_ns = static_cast<unsigned long long>(kLimitMs * 1e6);
  hold_until_released<<<1, 1, 0, stream>>>(state_->device_words, state_->device_words + 1, limit_ns);
  return cudaGetLastError();
}

void StreamHold::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  state_->words[0] = 1;
}

bool StreamHold::expired() const { return state_->words[1] != 0; }

}  // namespace kg::cuda_detail
