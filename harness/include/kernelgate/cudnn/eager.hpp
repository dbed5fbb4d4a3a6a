#pragma once
// What the cudnn_eager baselines (kernels/<workload>/cudnn_eager.cu) share:
// carving one workspace into the intermediates PyTorch eager would allocate,
// and running a cached convolution plan on the harness stream.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernelgate/cudnn/convolution.hpp"

namespace kg::cudnn {

// Hands out 256-byte aligned pieces of one buffer in order. With a null base
// it only adds up the sizes (what workspace_bytes reports).
class WorkspaceCarver {
 public:
  explicit WorkspaceCarver(void* base = nullptr) : base_(static_cast<std::byte*>(base)) {}

  template <typename T>
  T* take(std::size_t count) {
    const std::size_t offset = used_;
    used_ += (count * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
    return base_ ? reinterpret_cast<T*>(base_ + offset) : nullptr;
  }
  // Whatever is left after the pieces taken so far.
  void* rest() const { return base_ ? base_ + used_ : nullptr; }
  std::size_t used() const { return used_; }

 private:
  static constexpr std::size_t kAlignment = 256;
  std::byte* base_;
  std::size_t used_ = 0;
};

// The plan's workspace for `shape` with the alignment the harness's buffers
// have (cudaMalloc's 256 bytes: every pointer is 16-byte aligned).
std::size_t convolution_workspace_bytes(ConvolutionShape shape, MathMode math);

// Runs the convolution on `stream`. `shape.alignment` is recomputed from the
// pointers. When the given workspace is smaller than the plan needs (pointers
// less aligned than workspace_bytes assumed), a process-wide scratch buffer is
// allocated once and reused.
void run_convolution(ConvolutionShape shape, MathMode math, const float* input, const float* filter, float* output,
                     void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace kg::cudnn
