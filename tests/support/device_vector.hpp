#pragma once
// Device memory for tests of code that runs in both builds: on the GPU in the
// gpu build and on the simulated GPU (cudaMalloc), in host memory in
// interpret mode proper, where "device" pointers are host pointers.
// KG_REQUIRE_GPU() skips a GPU test on a machine without one, or fails it
// when KERNELGATE_REQUIRE_GPU=1 (a GPU runner must never pass by skipping).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#if defined(KG_INTERPRET)
#include "kernelgate/interpret/cuda_shims.hpp"
#include "kernelgate/interpret/simulated_gpu.hpp"
#else
#include <cuda_runtime_api.h>
#endif

namespace kg::test {

inline void check(cudaError_t status, const char* what) {
  ASSERT_EQ(status, cudaSuccess) << what << ": " << cudaGetErrorString(status);
}

// Whether device memory comes from the CUDA runtime: on a GPU, and on the
// simulated GPU (kernelgate/interpret/simulated_gpu.hpp); interpret mode
// proper is its own device, whose "device" pointers are host pointers.
inline bool device_memory_from_runtime() {
#if defined(KG_INTERPRET)
  return interp::sim::is_open();
#else
  return true;
#endif
}

// A device copy of a host vector, copied back by `read`.
template <typename T>
class DeviceVector {
 public:
  explicit DeviceVector(const std::vector<T>& host)
      : from_runtime_(device_memory_from_runtime()), size_(host.size()) {
    if (!from_runtime_) {
      storage_ = host;
      data_ = storage_.data();
      return;
    }
    check(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()), "cudaMalloc");
    check(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;
  ~DeviceVector() {
    if (from_runtime_) cudaFree(data_);
  }
  T* get() const { return data_; }
  std::vector<T> read() const {
    check(cudaDeviceSynchronize(), "kernel");
    std::vector<T> host(size_);
    check(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }

 private:
  std::size_t bytes() const { return size_ * sizeof(T); }
  bool from_runtime_;
  std::vector<T> storage_;  // interpret mode proper's "device" memory
  T* data_ = nullptr;
  std::size_t size_;
};

#if defined(KG_INTERPRET)
inline bool have_gpu() { return true; }  // interpret mode is its own device
#else
inline bool have_gpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}
#endif

}  // namespace kg::test

#define KG_REQUIRE_GPU()                                                          \
  do {                                                                            \
    if (!::kg::test::have_gpu()) {                                                \
      const char* require = std::getenv("KERNELGATE_REQUIRE_GPU");                \
      if (require != nullptr && std::string(require) == "1") FAIL() << "no GPU";  \
      GTEST_SKIP() << "no GPU";                                                   \
    }                                                                             \
  } while (0)
