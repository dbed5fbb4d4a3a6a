#pragma once
// A cuDNN handle that is destroyed with its owner: move-only RAII, as PyTorch's
// ATen/cudnn/Handle.h keeps them. Bound to the CUDA device current at creation.
#include <cudnn.h>

namespace kg::cudnn {

class Handle {
 public:
  Handle();  // cudnnCreate on the current device; throws kg::CudaError
  ~Handle();
  Handle(Handle&& other) noexcept;
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  cudnnHandle_t get() const { return handle_; }
  // The stream every later cuDNN call on this handle enqueues on.
  void set_stream(cudaStream_t stream) const;

 private:
  cudnnHandle_t handle_ = nullptr;
};

}  // namespace kg::cudnn
