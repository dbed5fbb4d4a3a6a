#pragma once
// A cuDNN handle owned by one object and destroyed with it. Bound to the CUDA
// device current at creation. PyTorch instead lends handles from a pool per
// device and thread (getCudnnHandle) and, in current versions, never destroys
// them; the harness keeps one per device for the life of a candidate's child
// process (shared_handle, cudnn_plan_cache.cpp), so one owner is enough.
#include <cudnn.h>

#include <memory>

namespace kg::cudnn {

class Handle {
 public:
  Handle();  // cudnnCreate on the current device; throws kg::CudaError

  cudnnHandle_t get() const { return handle_.get(); }
  // The stream every later cuDNN call on this handle enqueues on.
  void set_stream(cudaStream_t stream) const;

 private:
  struct Destroy {
    void operator()(cudnnHandle_t handle) const;  // cudnnDestroy; never throws
  };
  std::unique_ptr<cudnnContext, Destroy> handle_;  // moves with its owner, never copied
};

}  // namespace kg::cudnn
