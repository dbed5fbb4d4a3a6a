// The convolution runner of the cudnn_eager baselines (kernelgate/cudnn/eager.hpp).
#include "kernelgate/cudnn/eager.hpp"

#include <mutex>

#include "kernelgate/cuda_check.hpp"

namespace kg::cudnn {
namespace {

// Grown, never shrunk: a workload asks for the same size on every launch.
void* scratch_workspace(std::size_t bytes) {
  static std::mutex mutex;
  static void* buffer = nullptr;
  static std::size_t capacity = 0;
  std::lock_guard lock(mutex);
  if (bytes > capacity) {
    if (buffer) KG_CUDA_CHECK(cudaFree(buffer));
    buffer = nullptr;
    KG_CUDA_CHECK(cudaMalloc(&buffer, bytes));
    capacity = bytes;
  }
  return buffer;
}

}  // namespace

std::size_t convolution_workspace_bytes(ConvolutionShape shape, MathMode math) {
  shape.alignment = 16;
  return cached_plan(shape, math).workspace_bytes();
}

void run_convolution(ConvolutionShape shape, MathMode math, const float* input, const float* filter, float* output,
                     void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  shape.alignment = pointer_alignment({input, filter, output});
  const ConvolutionPlan& plan = cached_plan(shape, math);
  if (plan.workspace_bytes() > workspace_bytes) workspace = scratch_workspace(plan.workspace_bytes());
  const Handle& handle = shared_handle();
  handle.set_stream(stream);
  plan.execute(handle, input, filter, output, workspace);
}

}  // namespace kg::cudnn
