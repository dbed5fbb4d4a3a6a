// kg::cudnn::Handle: cudnnCreate/cudnnDestroy owned by one object.
#include "kernelgate/cudnn/handle.hpp"

#include <utility>

#include "kernelgate/cuda_check.hpp"

namespace kg::cudnn {

Handle::Handle() { KG_CUDNN_CHECK(cudnnCreate(&handle_)); }

Handle::~Handle() {
  // Destructors must not throw; a failing destroy at exit changes nothing.
  if (handle_ != nullptr) cudnnDestroy(handle_);
}

Handle::Handle(Handle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) cudnnDestroy(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void Handle::set_stream(cudaStream_t stream) const { KG_CUDNN_CHECK(cudnnSetStream(handle_, stream)); }

}  // namespace kg::cudnn
