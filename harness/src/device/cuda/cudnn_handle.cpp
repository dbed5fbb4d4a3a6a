// kg::cudnn::Handle: cudnnCreate/cudnnDestroy owned by one object.
#include "kernelgate/cudnn/handle.hpp"

#include "kernelgate/cuda_check.hpp"

namespace kg::cudnn {

Handle::Handle() {
  cudnnHandle_t handle = nullptr;
  KG_CUDNN_CHECK(cudnnCreate(&handle));
  handle_.reset(handle);
}

// Destructors must not throw; a failing destroy at exit changes nothing.
void Handle::Destroy::operator()(cudnnHandle_t handle) const { cudnnDestroy(handle); }

void Handle::set_stream(cudaStream_t stream) const { KG_CUDNN_CHECK(cudnnSetStream(handle_.get(), stream)); }

}  // namespace kg::cudnn
